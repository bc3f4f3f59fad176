package dynamo_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/faults"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/linkstore/storetest"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// newRegions makes n Regions on DynamoDB Local: a links table each (MREC
// replicas that the suite replicates by hand) and one reservation table,
// which in a one-Region emulator stands for the MRSC table.
func newRegions(t *testing.T, n int, now func() time.Time, db *dynamodb.Client) []*linkstore.Reserved {
	t.Helper()
	ledgerTable := testenv.UniqueName(t, "reservations")
	require.NoError(t, localtable.Create(context.Background(), db, ledgerTable, tableschema.Reservations()))
	ledger := dynamo.NewLedger(db, dynamo.LedgerConfig{Table: ledgerTable, Now: now})
	regions := make([]*linkstore.Reserved, n)
	for i := range regions {
		cfg := dynamo.LinkConfig{LinksTable: testenv.UniqueName(t, "links"), IdempotencyTable: testenv.UniqueName(t, "idem"), Now: now}
		require.NoError(t, localtable.Links(context.Background(), db, cfg.LinksTable, cfg.IdempotencyTable))
		regions[i] = linkstore.NewReserved(dynamo.NewLinkStore(db, cfg), ledger, now)
	}
	return regions
}

func TestReservedOnDynamoDBLocal(t *testing.T) {
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
	storetest.Run(t, func(t *testing.T, now func() time.Time) linkstore.Store {
		return newRegions(t, 1, now, db)[0]
	})
}

func TestReservedAcrossRegionsOnDynamoDBLocal(t *testing.T) {
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
	storetest.RunRegions(t, func(t *testing.T, n int, now func() time.Time) []*linkstore.Reserved {
		return newRegions(t, n, now, db)
	})
}

// TestReplicatedWriteConflictOnDynamoDBLocal: DynamoDB's own answer
// (ReplicatedWriteConflictException over the wire, decoded by the SDK) at
// each reservation-table write of a create is a retryable error, and
// leaves no link, no reservation and no claim; the same create then
// succeeds.
func TestReplicatedWriteConflictOnDynamoDBLocal(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) }
	for _, op := range []string{"PutItem claim", "PutItem reservation"} {
		t.Run(op, func(t *testing.T) {
			inj := faults.New()
			db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t), inj.DynamoDB)
			s := newRegions(t, 1, now, db)[0]
			prefix := map[string]string{"PutItem claim": "idem#", "PutItem reservation": "code#"}[op]
			f := inj.Add(faults.Rule{Op: "PutItem", Times: 1, Reply: faults.ReplyReplicatedWriteConflict(), Match: func(in any) bool {
				pk, ok := in.(*dynamodb.PutItemInput).Item["pk"].(*types.AttributeValueMemberS)
				return ok && len(pk.Value) > len(prefix) && pk.Value[:len(prefix)] == prefix
			}})
			l := link.Link{Code: "c0nflct", URL: "https://example.com", Owner: "o", CreatedAt: now(), UpdatedAt: now(),
				ExpiresAt: now().Add(time.Hour), Status: link.StatusActive, Version: 1, RedirectStatus: 302}
			idem := &linkstore.Idempotency{Owner: "o", Key: "k", RequestHash: "h", Code: l.Code, ExpiresAt: now().Add(time.Hour)}

			err := s.Create(context.Background(), l, idem)
			require.Equal(t, 1, f.Fired())
			require.ErrorIs(t, err, link.ErrUnavailable)
			var conflict *types.ReplicatedWriteConflictException
			assert.True(t, errors.As(err, &conflict))
			_, err = s.Links.Get(context.Background(), l.Code)
			assert.ErrorIs(t, err, link.ErrNotFound, "no link")
			_, err = s.Ledger.GetReservation(context.Background(), l.Code)
			assert.ErrorIs(t, err, link.ErrNotFound, "no reservation")
			_, err = s.Ledger.GetClaim(context.Background(), "o", "k")
			assert.ErrorIs(t, err, link.ErrNotFound, "no claim")

			require.NoError(t, s.Create(context.Background(), l, idem), "the retry succeeds")
		})
	}
}

// TestClaimWrittenButItsAnswerLost: the claim's put took effect in the
// reservation table but its answer was a ReplicatedWriteConflictException
// (the fault injector's After). The create answers a retryable error; its
// retry under the key waits out the lease, then finishes the one link.
func TestClaimWrittenButItsAnswerLost(t *testing.T) {
	clock := storetest.NewClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	inj := faults.New()
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t), inj.DynamoDB)
	s := newRegions(t, 1, clock.Now, db)[0]
	f := inj.Add(faults.Rule{Op: "PutItem", After: true, Times: 1, Reply: faults.ReplyReplicatedWriteConflict(), Match: func(in any) bool {
		pk, ok := in.(*dynamodb.PutItemInput).Item["pk"].(*types.AttributeValueMemberS)
		return ok && len(pk.Value) > 5 && pk.Value[:5] == "idem#"
	}})
	now := clock.Now()
	l := link.Link{Code: "l0stans", URL: "https://example.com", Owner: "o", CreatedAt: now, UpdatedAt: now,
		ExpiresAt: now.Add(time.Hour), Status: link.StatusActive, Version: 1, RedirectStatus: 302}
	idem := &linkstore.Idempotency{Owner: "o", Key: "k", RequestHash: "h", Code: l.Code, Response: []byte(`{}`), ExpiresAt: now.Add(time.Hour)}

	require.ErrorIs(t, s.Create(context.Background(), l, idem), link.ErrUnavailable)
	require.Equal(t, 1, f.Fired())
	_, err := s.GetIdempotency(context.Background(), "o", "k")
	require.ErrorIs(t, err, link.ErrUnavailable, "in progress as far as anyone can tell")

	clock.Add(linkstore.DefaultLease + time.Second)
	rec, err := s.GetIdempotency(context.Background(), "o", "k")
	require.NoError(t, err)
	assert.Equal(t, l.Code, rec.Code)
	got, err := s.Links.Get(context.Background(), l.Code)
	require.NoError(t, err)
	assert.Equal(t, l, got)
	res, err := s.Ledger.GetReservation(context.Background(), l.Code)
	require.NoError(t, err)
	assert.False(t, res.Pending)
}
