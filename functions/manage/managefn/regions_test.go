package managefn

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// twoRegions are two management handlers, each over its own links table
// (MREC replicas) with one reservation ledger between them (MRSC), holding
// one link of ownerA at version 1 that has replicated to both.
func twoRegions(t *testing.T, onDynamoDB bool) [2]*fixture {
	t.Helper()
	var fs [2]*fixture
	fs[0], fs[1] = newFixture(t), newFixture(t)
	var ledger linkstore.Ledger = linkstore.NewMemoryLedger(fs[0].clock.Now)
	links := [2]linkstore.Links{linkstore.NewMemory(fs[0].clock.Now), linkstore.NewMemory(fs[0].clock.Now)}
	if onDynamoDB {
		db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
		table := testenv.UniqueName(t, "reservations")
		require.NoError(t, localtable.Create(context.Background(), db, table, tableschema.Reservations()))
		ledger = dynamo.NewLedger(db, dynamo.LedgerConfig{Table: table, Timeout: 10 * time.Second, Now: fs[0].clock.Now})
		for i := range links {
			cfg := dynamo.LinkConfig{LinksTable: testenv.UniqueName(t, "links"), Timeout: 10 * time.Second, ConsistentReads: true, Now: fs[0].clock.Now}
			require.NoError(t, localtable.Links(context.Background(), db, cfg.LinksTable, testenv.UniqueName(t, "idem")))
			links[i] = dynamo.NewLinkStore(db, cfg)
		}
	}
	for i, f := range fs {
		f.clock = fs[0].clock
		f.h.Now = f.clock.Now
		f.h.Store = linkstore.NewReserved(links[i], ledger, f.clock.Now)
	}
	now := fs[0].clock.Now().Truncate(time.Millisecond)
	l := link.Link{Code: code, URL: "https://example.com/landing?utm_source=newsletter", Owner: ownerA, CreatedAt: now, UpdatedAt: now,
		ExpiresAt: now.Add(link.DefaultTTL).Truncate(time.Second), Status: link.StatusActive, Version: 1, RedirectStatus: 302}
	require.NoError(t, fs[0].h.Store.(*linkstore.Reserved).Create(context.Background(), l, nil))
	require.NoError(t, links[1].Create(context.Background(), l, nil), "replicated")
	return fs
}

// TestIfMatchAcrossRegions: two edits of version 1, one in each Region at
// once, never both succeed: one 200, one 412. Likewise an edit racing a
// delete.
func TestIfMatchAcrossRegions(t *testing.T) {
	for _, onDynamoDB := range []bool{false, true} {
		name := map[bool]string{false: "memory", true: "dynamodb"}[onDynamoDB]
		t.Run(name+"/two edits", func(t *testing.T) {
			fs := twoRegions(t, onDynamoDB)
			statuses := race(t, fs, event(t, "patch-link.json"), event(t, "patch-link.json"))
			assert.ElementsMatch(t, []int{http.StatusOK, http.StatusPreconditionFailed}, statuses)
		})
		t.Run(name+"/an edit and a delete", func(t *testing.T) {
			fs := twoRegions(t, onDynamoDB)
			del := withIfMatch(at(event(t, "delete-link.json"), code), `"1"`)
			statuses := race(t, fs, event(t, "patch-link.json"), del)
			// The loser is 412 (the edit came first) or 404 (the delete
			// came first: the link is gone for every Region).
			ok := 0
			for _, s := range statuses {
				switch s {
				case http.StatusOK, http.StatusNoContent:
					ok++
				default:
					assert.Contains(t, []int{http.StatusPreconditionFailed, http.StatusNotFound}, s)
				}
			}
			assert.Equal(t, 1, ok, "exactly one succeeds: %v", statuses)
		})
	}
}

func race(t *testing.T, fs [2]*fixture, evs ...events.APIGatewayProxyRequest) []int {
	t.Helper()
	statuses := make([]int, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			resp, err := fs[i].h.Handle(context.Background(), evs[i])
			assert.NoError(t, err)
			statuses[i] = resp.StatusCode
		})
	}
	wg.Wait()
	return statuses
}
