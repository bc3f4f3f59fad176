package dynamostore

import (
	"context"

	"github.com/shortlink-dev/shortener/shared/tableschema"
	"github.com/shortlink-dev/shortener/shared/tableschema/dynamotable"
)

// CreateTables creates the links and idempotency tables as the deployed
// stack has them (keys, indexes, stream, TTL: tableschema.Links and
// tableschema.Idempotency), for DynamoDB Local in the local run and the
// tests. Tables that already exist are left alone. In AWS the tables come
// from infra/, never from here.
func CreateTables(ctx context.Context, db dynamotable.API, cfg Config) error {
	if err := dynamotable.Create(ctx, db, cfg.LinksTable, tableschema.Links()); err != nil {
		return err
	}
	return dynamotable.Create(ctx, db, cfg.IdempotencyTable, tableschema.Idempotency())
}
