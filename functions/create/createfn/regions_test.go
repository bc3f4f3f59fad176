package createfn

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/dynamoerr"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkapi"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/linkstore/dynamostore"
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
		require.NoError(t, dynamostore.CreateLedgerTable(context.Background(), db, table))
		ledger := dynamostore.NewLedger(db, dynamostore.LedgerConfig{Table: table, Timeout: 10 * time.Second})
		out := make([]*linkstore.Reserved, n)
		for i := range out {
			cfg := dynamostore.Config{LinksTable: testenv.UniqueName(t, "links"), IdempotencyTable: testenv.UniqueName(t, "idem"), Timeout: 10 * time.Second}
			require.NoError(t, dynamostore.CreateTables(context.Background(), db, cfg))
			out[i] = linkstore.NewReserved(dynamostore.New(db, cfg), ledger, nil)
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
			return dynamoerr.Wrap("reserve", &types.ReplicatedWriteConflictException{})
		}
		return nil
	}
	links := linkstore.NewMemory(nil)
	h := batchHandler(t, linkstore.NewReserved(links, ledger, nil))
	ev := createEvent(t, `{"url":"https://example.com/conflict","alias":"contested"}`, "Idempotency-Key", "k-503")

	resp, err := h.Handle(context.Background(), ev)
	require.NoError(t, err)
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, resp.Body)
	assert.Equal(t, apigw.RetryAfter, resp.Headers["Retry-After"])
	assert.Equal(t, "application/problem+json", resp.Headers["Content-Type"])
	assert.Equal(t, http.StatusServiceUnavailable, decode[apigw.Problem](t, resp).Status)
	_, err = links.Get(context.Background(), "contested")
	assert.ErrorIs(t, err, link.ErrNotFound)
	assert.Empty(t, ledger.Reservations())
	assert.Empty(t, ledger.Claims())

	retry, err := h.Handle(context.Background(), ev)
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, retry.StatusCode, retry.Body)
	assert.Equal(t, "contested", decode[linkapi.Link](t, retry).Code)
}
