package dynamoclicks

import (
	"context"

	"github.com/shortlink-dev/shortener/shared/tableschema"
	"github.com/shortlink-dev/shortener/shared/tableschema/dynamotable"
)

// CreateTable creates the analytics table as the deployed stack has it
// (tableschema.Analytics: keys, on-demand billing, TTL on expires_at), for
// DynamoDB Local in the local run and the tests. A table that already
// exists is left alone. In AWS the table comes from infra/, never from
// here.
func CreateTable(ctx context.Context, db dynamotable.API, table string) error {
	return dynamotable.Create(ctx, db, table, tableschema.Analytics())
}
