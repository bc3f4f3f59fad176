package linkstore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/linkstore/storetest"
)

// memoryRegions are n Memory links tables sharing one MemoryLedger.
func memoryRegions(_ *testing.T, n int, now func() time.Time) []*linkstore.Reserved {
	ledger := linkstore.NewMemoryLedger(now)
	regions := make([]*linkstore.Reserved, n)
	for i := range regions {
		regions[i] = linkstore.NewReserved(linkstore.NewMemory(now), ledger, now)
	}
	return regions
}

func TestReservedKeepsTheStoreContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) linkstore.Store {
		return memoryRegions(t, 1, now)[0]
	})
}

func TestReservedAcrossRegions(t *testing.T) {
	storetest.RunRegions(t, memoryRegions)
}

// TestReplicatedWriteConflictLeavesNothingHalfDone: an MRSC write conflict
// at any step of a create answers a retryable error, and a create that
// answered so left no link, no reservation and no claim behind, or, when
// the conflict came after its link, a claim its retry finishes.
func TestReplicatedWriteConflictLeavesNothingHalfDone(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) }
	for _, op := range []string{"claim", "reserve", "confirm"} {
		t.Run(op, func(t *testing.T) {
			ledger := linkstore.NewMemoryLedger(now)
			links := linkstore.NewMemory(now)
			s := linkstore.NewReserved(links, ledger, now)
			ledger.Fault = func(got string) error {
				if got == op {
					return dynamo.Wrap("mrsc", &types.ReplicatedWriteConflictException{})
				}
				return nil
			}
			l := link.Link{Code: "c0nflct", URL: "https://example.com", Owner: "o", CreatedAt: now(), UpdatedAt: now(),
				ExpiresAt: now().Add(time.Hour), Status: link.StatusActive, Version: 1, RedirectStatus: 302}
			idem := &linkstore.Idempotency{Owner: "o", Key: "k", RequestHash: "h", Code: l.Code, ExpiresAt: now().Add(time.Hour)}
			err := s.Create(context.Background(), l, idem)
			require.ErrorIs(t, err, link.ErrUnavailable)
			var conflict *types.ReplicatedWriteConflictException
			assert.True(t, errors.As(err, &conflict), "the cause stays inspectable")

			_, lerr := links.Get(context.Background(), l.Code)
			switch op {
			case "confirm":
				// The link is written; the reservation and the claim stay
				// pending, and the retry under the key finishes the create.
				require.NoError(t, lerr)
				assert.True(t, ledger.Reservations()[l.Code].Pending)
				ledger.Fault = nil
				s.Now = func() time.Time { return now().Add(linkstore.DefaultLease + time.Second) }
				rec, err := s.GetIdempotency(context.Background(), "o", "k")
				require.NoError(t, err)
				assert.Equal(t, l.Code, rec.Code)
				assert.False(t, ledger.Reservations()[l.Code].Pending)
			default:
				assert.ErrorIs(t, lerr, link.ErrNotFound, "no link")
				assert.Empty(t, ledger.Reservations(), "no reservation")
				assert.Empty(t, ledger.Claims(), "no claim")
			}
		})
	}
}

// TestDeleteRetriedAfterItsLinkWriteFailed: a DELETE whose tombstone write
// failed after the reservation was marked deleted is finished by its
// retry, not refused as a link that is gone while it still redirects.
func TestDeleteRetriedAfterItsLinkWriteFailed(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) }
	ledger := linkstore.NewMemoryLedger(now)
	links := &failingDeletes{Memory: linkstore.NewMemory(now), fail: 1}
	s := linkstore.NewReserved(links, ledger, now)
	l := link.Link{Code: "del0001", URL: "https://example.com", Owner: "o", CreatedAt: now(), UpdatedAt: now(),
		ExpiresAt: now().Add(time.Hour), Status: link.StatusActive, Version: 1, RedirectStatus: 302}
	require.NoError(t, s.Create(context.Background(), l, nil))
	tomb := link.Tombstone{Code: l.Code, TombstonedAt: now(), ReclaimAfter: now().Add(time.Hour), Reason: "deleted"}

	require.ErrorIs(t, s.Delete(context.Background(), "o", l.Code, 1, tomb), link.ErrUnavailable)
	require.NoError(t, s.Delete(context.Background(), "o", l.Code, 1, tomb), "the retry finishes the delete")
	got, err := links.Get(context.Background(), l.Code)
	require.NoError(t, err)
	assert.Equal(t, link.StatusTombstone, got.Status)
	assert.ErrorIs(t, s.Delete(context.Background(), "o", l.Code, 0, tomb), link.ErrNotFound, "then it is gone")
	assert.ErrorIs(t, s.Delete(context.Background(), "intruder", l.Code, 0, tomb), link.ErrNotFound)
}

// failingDeletes fails the first fail Deletes of its links table.
type failingDeletes struct {
	*linkstore.Memory
	fail int
}

func (f *failingDeletes) Delete(ctx context.Context, owner, code string, expect int64, t link.Tombstone) error {
	if f.fail > 0 {
		f.fail--
		return fmt.Errorf("delete: %w", link.ErrUnavailable)
	}
	return f.Memory.Delete(ctx, owner, code, expect, t)
}
