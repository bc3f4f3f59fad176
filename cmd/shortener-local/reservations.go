package main

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// createReservations creates the reservation table (RESERVATION_TABLE)
// on DynamoDB Local. One table on the one-Region emulator stands for the
// MRSC reservation table every Region of a deployment shares: each
// conditional write there is checked against the one copy, as MRSC checks
// it against the latest version in every Region (docs/lifecycle.md,
// section 7). Nothing to do without the setting.
func createReservations(ctx context.Context, db *dynamodb.Client, table string) error {
	if table == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, tablesTimeout)
	defer cancel()
	return localtable.Create(ctx, db, table, tableschema.Reservations())
}
