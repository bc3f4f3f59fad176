package dynamokeys

import (
	"context"

	"github.com/shortlink-dev/shortener/shared/tableschema"
	"github.com/shortlink-dev/shortener/shared/tableschema/dynamotable"
)

// CreateTable creates the keys table as the deployed stack has it
// (tableschema.Keys), for DynamoDB Local in the local run and the tests; an
// existing table is left alone. In AWS the table comes from infra/tables,
// never from here.
func CreateTable(ctx context.Context, db dynamotable.API, table string) error {
	return dynamotable.Create(ctx, db, table, tableschema.Keys())
}
