package createfn

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/apigw/apigwtest"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkapi"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// regionSets are the ways the tests build n Regions: each its own links
// table (MREC, not replicated here: every test's answer is decided before
// replication would matter), all sharing one reservation ledger (MRSC).
var regionSets = []struct {
	name string
	new  func(t *testing.T, n int) []*linkstore.Reserved
}{
	{"memory", func(_ *testing.T, n int) []*linkstore.Reserved {
		ledger := linkstore.NewMemoryLedger(nil)
		out := make([]*linkstore.Reserved, n)
		for i := range out {
			out[i] = linkstore.NewReserved(linkstore.NewMemory(nil), ledger, nil)
		}
		return out
	}},
	{"dynamodb", func(t *testing.T, n int) []*linkstore.Reserved {
		db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
		table := testenv.UniqueName(t, "reservations")
		require.NoError(t, localtable.Create(context.Background(), db, table, tableschema.Reservations()))
		ledger := dynamo.NewLedger(db, dynamo.LedgerConfig{Table: table, Timeout: 10 * time.Second})
		out := make([]*linkstore.Reserved, n)
		for i := range out {
			cfg := dynamo.LinkConfig{LinksTable: testenv.UniqueName(t, "links"), IdempotencyTable: testenv.UniqueName(t, "idem"), Timeout: 10 * time.Second}
			require.NoError(t, localtable.Links(context.Background(), db, cfg.LinksTable, cfg.IdempotencyTable))
			out[i] = linkstore.NewReserved(dynamo.NewLinkStore(db, cfg), ledger, nil)
		}
		return out
	}},
}

func createEvent(t *testing.T, body string, headers ...string) events.APIGatewayProxyRequest {
	t.Helper()
	ev := event(t, "create-request.json")
	ev.Body = body
	ev.Headers = map[string]string{"Content-Type": "application/json", "x-api-key": fixtureKey}
	ev.MultiValueHeaders = nil
	for i := 0; i+1 < len(headers); i += 2 {
		ev.Headers[headers[i]] = headers[i+1]
	}
	return ev
}

// TestAliasRaceAcrossRegions: 50 creates of one alias spread over three
// Regions' handlers give exactly one 201; the others are 409.
func TestAliasRaceAcrossRegions(t *testing.T) {
	for _, set := range regionSets {
		t.Run(set.name, func(t *testing.T) {
			regions := set.new(t, 3)
			var (
				wg       sync.WaitGroup
				mu       sync.Mutex
				statuses = map[int]int{}
			)
			for i := range 50 {
				h := batchHandler(t, regions[i%3])
				wg.Go(func() {
					resp, err := h.Handle(context.Background(), createEvent(t, `{"url":"https://example.com/race","alias":"Launch"}`))
					assert.NoError(t, err)
					mu.Lock()
					statuses[resp.StatusCode]++
					mu.Unlock()
				})
			}
			wg.Wait()
			assert.Equal(t, map[int]int{http.StatusCreated: 1, http.StatusConflict: 49}, statuses)
		})
	}
}

// TestKeyRetriedInAnotherRegion: a create retried with its
// Idempotency-Key in another Region answers the first link again, and
// only one link exists.
func TestKeyRetriedInAnotherRegion(t *testing.T) {
	for _, set := range regionSets {
		t.Run(set.name, func(t *testing.T) {
			regions := set.new(t, 2)
			ev := createEvent(t, `{"url":"https://example.com/once"}`, "Idempotency-Key", "order-42")
			first, err := batchHandler(t, regions[0]).Handle(context.Background(), ev)
			require.NoError(t, err)
			require.Equal(t, http.StatusCreated, first.StatusCode, first.Body)

			retry, err := batchHandler(t, regions[1]).Handle(context.Background(), ev)
			require.NoError(t, err)
			require.Equal(t, http.StatusCreated, retry.StatusCode, retry.Body)
			assert.Equal(t, "true", retry.Headers["Idempotent-Replayed"])
			assert.JSONEq(t, first.Body, retry.Body)

			for r, s := range regions {
				links, _, err := s.List(context.Background(), "p6r4ocs3d1", 10, "")
				require.NoError(t, err)
				want := map[int]int{0: 1, 1: 0}[r]
				assert.Len(t, links, want, "Region %d", r)
			}
		})
	}
}

// TestReplicatedWriteConflictIs503: an MRSC write conflict is answered
// 503 with Retry-After and a problem+json body, and the retry creates the
// link.
func TestReplicatedWriteConflictIs503(t *testing.T) {
	ledger := linkstore.NewMemoryLedger(nil)
	fired := 0
	ledger.Fault = func(op string) error {
		if op == "reserve" && fired == 0 {
			fired++
			return dynamo.Wrap("reserve", &types.ReplicatedWriteConflictException{})
		}
		return nil
	}
	links := linkstore.NewMemory(nil)
	h := batchHandler(t, linkstore.NewReserved(links, ledger, nil))
	ev := createEvent(t, `{"url":"https://example.com/conflict","alias":"contested"}`, "Idempotency-Key", "k-503")

	resp, err := h.Handle(context.Background(), ev)
	require.NoError(t, err)
	apigwtest.RequireProblem(t, resp, http.StatusServiceUnavailable, "")
	assert.Equal(t, apigw.RetryAfter, resp.Headers["Retry-After"])
	_, err = links.Get(context.Background(), "contested")
	assert.ErrorIs(t, err, link.ErrNotFound)
	assert.Empty(t, ledger.Reservations())
	assert.Empty(t, ledger.Claims())

	retry, err := h.Handle(context.Background(), ev)
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, retry.StatusCode, retry.Body)
	assert.Equal(t, "contested", apigwtest.Decode[linkapi.Link](t, retry).Code)
}

// TestBatchAliasesAcrossRegions: the same ten aliases sent as two batches
// at once, one per Region (each under its own key), are each created
// once: every alias is 201 in exactly one batch and 409 in the other. A
// retry of one batch in the other Region replays its answer.
func TestBatchAliasesAcrossRegions(t *testing.T) {
	for _, set := range regionSets {
		t.Run(set.name, func(t *testing.T) {
			regions := set.new(t, 2)
			items := make([]any, 10)
			for i := range items {
				items[i] = map[string]any{"url": fmt.Sprintf("https://example.com/%d", i), "alias": fmt.Sprintf("Spring-%d", i)}
			}
			answers := make([][]linkapi.BatchResult, 2)
			evs := make([]events.APIGatewayProxyRequest, 2)
			var wg sync.WaitGroup
			for r := range 2 {
				evs[r] = batchEvent(t, batchOf(items...), "Idempotency-Key", fmt.Sprintf("batch-%d", r))
				h := batchHandler(t, regions[r])
				wg.Go(func() {
					resp, err := h.Handle(context.Background(), evs[r])
					assert.NoError(t, err)
					answers[r] = results(t, resp)
				})
			}
			wg.Wait()
			for i := range items {
				got := []int{answers[0][i].Status, answers[1][i].Status}
				assert.ElementsMatch(t, []int{http.StatusCreated, http.StatusConflict}, got, "alias %d", i)
			}

			// Retry, in the other Region, a batch that created something:
			// the race may leave one batch with nothing but 409s, which a
			// retry answers anew (409 again) rather than replays.
			first := 0
			if !slices.ContainsFunc(answers[0], func(r linkapi.BatchResult) bool { return r.Status == http.StatusCreated }) {
				first = 1
			}
			retry, err := batchHandler(t, regions[1-first]).Handle(context.Background(), evs[first])
			require.NoError(t, err)
			assert.Equal(t, "true", retry.Headers["Idempotent-Replayed"])
			for i, r := range results(t, retry) {
				assert.Equal(t, answers[first][i].Status, r.Status, "item %d answers as the first time", i)
			}
		})
	}
}
