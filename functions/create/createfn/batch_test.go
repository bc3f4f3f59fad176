package createfn

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
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
)

// batchHandler is a handler drawing real random codes, so a hundred
// concurrent items never run out of scripted ones.
func batchHandler(t *testing.T, store linkstore.Store) *Handler {
	t.Helper()
	return newHandler(t, Options{Store: store, Now: time.Now})
}

// dynamoStore is a store on fresh tables of DynamoDB Local.
func dynamoStore(t *testing.T) linkstore.Store {
	t.Helper()
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
	cfg := dynamo.LinkConfig{LinksTable: testenv.UniqueName(t, "links"), IdempotencyTable: testenv.UniqueName(t, "idem"), Timeout: 10 * time.Second}
	require.NoError(t, localtable.Links(context.Background(), db, cfg.LinksTable, cfg.IdempotencyTable))
	return dynamo.NewLinkStore(db, cfg)
}

// stores are the implementations every batch behaviour is checked on.
var stores = []struct {
	name string
	new  func(t *testing.T) linkstore.Store
}{
	{"memory", func(*testing.T) linkstore.Store { return linkstore.NewMemory(nil) }},
	{"dynamodb", dynamoStore},
}

func batchEvent(t *testing.T, body any, headers ...string) events.APIGatewayProxyRequest {
	t.Helper()
	ev := event(t, "batch-request.json")
	switch b := body.(type) {
	case string:
		ev.Body = b
	default:
		raw, err := json.Marshal(b)
		require.NoError(t, err)
		ev.Body = string(raw)
	}
	ev.Headers = map[string]string{"Content-Type": "application/json"}
	ev.MultiValueHeaders = nil
	for i := 0; i+1 < len(headers); i += 2 {
		ev.Headers[headers[i]] = headers[i+1]
	}
	return ev
}

// batchOf is a batch body of create requests.
func batchOf(items ...any) map[string]any { return map[string]any{"links": items} }

// hundred is a batch of 100 valid items, with URLs numbered by index.
func hundred(tag string) []any {
	items := make([]any, 100)
	for i := range items {
		items[i] = map[string]any{"url": fmt.Sprintf("https://example.com/%s/%d", tag, i)}
	}
	return items
}

func results(t *testing.T, resp events.APIGatewayProxyResponse) []linkapi.BatchResult {
	t.Helper()
	require.Equal(t, 200, resp.StatusCode, resp.Body)
	assert.Equal(t, "application/json", resp.Headers["Content-Type"])
	out := apigwtest.Decode[linkapi.BatchResponse](t, resp)
	for i, r := range out.Results {
		require.Equal(t, i, r.Index, "results come in request order")
		if r.Status == 201 {
			require.NotNil(t, r.Link, "a 201 carries its link")
			require.Empty(t, r.Problem)
		} else {
			require.Nil(t, r.Link, "only a 201 carries a link")
			require.NotEmpty(t, r.Problem)
		}
	}
	return out.Results
}

func problemOf(t *testing.T, r linkapi.BatchResult) apigw.Problem {
	t.Helper()
	var p apigw.Problem
	require.NoError(t, json.Unmarshal(r.Problem, &p))
	assert.Equal(t, r.Status, p.Status)
	return p
}

// TestBatchMixedResults: 100 items with 2 invalid and 1 taken alias yield
// 97 created, 2 400s and 1 409 in one answer, on every store.
func TestBatchMixedResults(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			store := st.new(t)
			h := batchHandler(t, store)
			ctx := context.Background()
			taken, err := h.Handle(ctx, apigwtest.WithBody(event(t, "create-alias.json"), `{"url":"https://example.com/first","alias":"taken-one"}`))
			require.NoError(t, err)
			require.Equal(t, 201, taken.StatusCode, taken.Body)

			items := hundred("mixed")
			items[10] = map[string]any{"url": "javascript:alert(1)"}
			items[50] = map[string]any{"url": "https://example.com/x", "alias": "Admin"}
			items[70] = map[string]any{"url": "https://example.com/second", "alias": "Taken-One"}
			items[99] = map[string]any{"url": "https://example.com/own", "alias": "Own-Alias", "redirect_status": 308}
			resp, err := h.Handle(ctx, batchEvent(t, batchOf(items...)))
			require.NoError(t, err)
			got := results(t, resp)
			require.Len(t, got, 100)

			count := map[int]int{}
			for _, r := range got {
				count[r.Status]++
			}
			assert.Equal(t, map[int]int{201: 97, 400: 2, 409: 1}, count)
			assert.Equal(t, "url", problemOf(t, got[10]).Field)
			assert.Equal(t, "alias", problemOf(t, got[50]).Field)
			p := problemOf(t, got[70])
			assert.Equal(t, apigw.ProblemConflict.Type, p.Type)
			assert.Contains(t, p.Detail, "Taken-One")

			codes := map[string]bool{}
			for i, r := range got {
				if r.Status != 201 {
					continue
				}
				codes[r.Link.Code] = true
				stored, err := store.Get(ctx, r.Link.Code)
				require.NoError(t, err)
				assert.Equal(t, items[i].(map[string]any)["url"], stored.URL, "item %d", i)
				assert.Equal(t, "p6r4ocs3d1", stored.Owner)
			}
			assert.Len(t, codes, 97, "every created item has its own code")
			assert.Equal(t, "Own-Alias", got[99].Link.Alias)
			assert.Equal(t, 308, got[99].Link.RedirectStatus)
			old, err := store.Get(ctx, "taken-one")
			require.NoError(t, err)
			assert.Equal(t, "https://example.com/first", old.URL, "a taken alias is never overwritten")
		})
	}
}

func TestBatchFixture(t *testing.T) {
	h := batchHandler(t, linkstore.NewMemory(nil))
	resp, err := h.Handle(context.Background(), event(t, "batch-request.json"))
	require.NoError(t, err)
	got := results(t, resp)
	require.Len(t, got, 3)
	assert.Equal(t, []int{201, 201, 400}, []int{got[0].Status, got[1].Status, got[2].Status})
	assert.Equal(t, "https://sho.rt/Summer-Sale", got[1].Link.ShortURL)
	assert.Empty(t, resp.Headers["Idempotent-Replayed"])
}

// TestBatchItemsFailAlone: an item that is not a create request (unknown
// field, wrong type, not an object) fails with a 400 naming its field, and
// the others are created.
func TestBatchItemsFailAlone(t *testing.T) {
	h := batchHandler(t, linkstore.NewMemory(nil))
	body := `{"links":[{"url":"https://example.com/a"},{"url":5},{"url":"https://example.com/c","labels":["x"]},"https://example.com/d",null,{"url":"https://example.com/f"}]}`
	resp, err := h.Handle(context.Background(), batchEvent(t, body))
	require.NoError(t, err)
	got := results(t, resp)
	require.Len(t, got, 6)
	assert.Equal(t, 201, got[0].Status)
	assert.Equal(t, 201, got[5].Status)
	for i, field := range map[int]string{1: "url", 2: "labels", 3: "body", 4: "url"} {
		assert.Equal(t, 400, got[i].Status, "item %d", i)
		assert.Equal(t, field, problemOf(t, got[i]).Field, "item %d", i)
	}
}

func TestBatchRefusesTheWholeRequest(t *testing.T) {
	tests := []struct {
		name    string
		body    any
		headers []string
		method  string
		noKey   bool
		status  int
		field   string
	}{
		{name: "no links", body: `{"links":[]}`, status: 400, field: "links"},
		{name: "links missing", body: `{}`, status: 400, field: "links"},
		{name: "links null", body: `{"links":null}`, status: 400, field: "links"},
		{name: "101 links", body: batchOf(append(hundred("over"), map[string]any{"url": "https://example.com/101"})...), status: 400, field: "links"},
		{name: "links not an array", body: `{"links":{"url":"https://example.com/"}}`, status: 400, field: "links"},
		{name: "unknown field", body: `{"links":[{"url":"https://example.com/"}],"dry_run":true}`, status: 400, field: "dry_run"},
		{name: "not json", body: `links=1`, status: 400, field: "body"},
		{name: "an array", body: `[{"url":"https://example.com/"}]`, status: 400, field: "body"},
		{name: "form", body: `{"links":[]}`, headers: []string{"Content-Type", "application/x-www-form-urlencoded"}, status: 415},
		{name: "too large", body: `{"links":["` + strings.Repeat("a", MaxBatchBodyBytes) + `"]}`, status: 413},
		{name: "malformed key", body: batchOf(map[string]any{"url": "https://example.com/"}), headers: []string{"Idempotency-Key", "two words"}, status: 400, field: "Idempotency-Key"},
		{name: "no api key", body: batchOf(map[string]any{"url": "https://example.com/"}), noKey: true, status: 401},
		{name: "GET", body: ``, method: "GET", status: 405},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := linkstore.NewMemory(nil)
			h := batchHandler(t, store)
			ev := batchEvent(t, tt.body, tt.headers...)
			if tt.method != "" {
				ev.HTTPMethod = tt.method
			}
			if tt.noKey {
				ev.RequestContext.Identity.APIKey = ""
			}
			resp, err := h.Handle(context.Background(), ev)
			require.NoError(t, err)
			apigwtest.RequireProblem(t, resp, tt.status, tt.field)
			if tt.status == 405 {
				assert.Equal(t, "POST", resp.Headers["Allow"])
			}
			links, _, err := store.List(context.Background(), "p6r4ocs3d1", 100, "")
			require.NoError(t, err)
			assert.Empty(t, links, "a refused batch writes nothing")
		})
	}
}

// failingStore fails the creates of the URLs in fail with unavailability.
type failingStore struct {
	linkstore.Store
	mu   sync.Mutex
	fail map[string]bool
}

func (f *failingStore) Create(ctx context.Context, l link.Link, idem *linkstore.Idempotency) error {
	f.mu.Lock()
	fail := f.fail[l.URL]
	f.mu.Unlock()
	if fail {
		return fmt.Errorf("put: %w", link.ErrUnavailable)
	}
	return f.Store.Create(ctx, l, idem)
}

func TestBatchIdempotency(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			store := &failingStore{Store: st.new(t), fail: map[string]bool{"https://example.com/idem/3": true}}
			h := batchHandler(t, store)
			ctx := context.Background()
			items := hundred("idem")[:20]
			items[7] = map[string]any{"url": "https://example.com/seven", "alias": "Lucky-Seven"}
			items[9] = map[string]any{"url": "not a url"}
			ev := batchEvent(t, batchOf(items...), "Idempotency-Key", "import-2026-11-30")

			first, err := h.Handle(ctx, ev)
			require.NoError(t, err)
			r1 := results(t, first)
			assert.Equal(t, 503, r1[3].Status, "a dependency failure fails the item alone")
			assert.Equal(t, 400, r1[9].Status)
			assert.Equal(t, 201, r1[7].Status)
			assert.Empty(t, first.Headers["Idempotent-Replayed"])

			t.Run("a retry replays what was created and retries what failed", func(t *testing.T) {
				store.mu.Lock()
				store.fail = nil
				store.mu.Unlock()
				// Same batch, other spacing and key order: the same batch.
				var buf strings.Builder
				buf.WriteString(`{ "links" : [`)
				for i, it := range items {
					if i > 0 {
						buf.WriteString(", ")
					}
					m := it.(map[string]any)
					if m["alias"] != nil {
						fmt.Fprintf(&buf, `{"alias": %q, "url": %q}`, m["alias"], m["url"])
					} else {
						fmt.Fprintf(&buf, `{ "url":%q }`, m["url"])
					}
				}
				buf.WriteString("] }")
				again, err := h.Handle(ctx, batchEvent(t, buf.String(), "Idempotency-Key", "import-2026-11-30"))
				require.NoError(t, err)
				r2 := results(t, again)
				assert.Equal(t, "true", again.Headers["Idempotent-Replayed"])
				for i := range r1 {
					if r1[i].Status == 201 {
						assert.Equal(t, r1[i], r2[i], "item %d is the same link, not a second one", i)
					}
				}
				assert.Equal(t, 201, r2[3].Status, "the failed item is created on the retry")
				assert.Equal(t, 400, r2[9].Status)

				third, err := h.Handle(ctx, ev)
				require.NoError(t, err)
				assert.Equal(t, r2, results(t, third), "from now on every retry answers the same")
			})
			t.Run("the same key with another body is 422 and creates nothing", func(t *testing.T) {
				other := append([]any{}, items...)
				other[0] = map[string]any{"url": "https://example.com/changed"}
				other = append(other, map[string]any{"url": "https://example.com/extra"})
				resp, err := h.Handle(ctx, batchEvent(t, batchOf(other...), "Idempotency-Key", "import-2026-11-30"))
				require.NoError(t, err)
				apigwtest.RequireProblem(t, resp, 422, "")
				links, _, err := store.List(ctx, "p6r4ocs3d1", 100, "")
				require.NoError(t, err)
				assert.Len(t, links, 19, "19 created by the first two requests, none since")
			})
			t.Run("a batch's key does not serve a single create", func(t *testing.T) {
				ev := apigwtest.WithBody(event(t, "create-idempotent.json"), `{"url":"https://example.com/single"}`)
				ev.Headers["Idempotency-Key"] = "import-2026-11-30"
				resp, err := h.Handle(ctx, ev)
				require.NoError(t, err)
				assert.Equal(t, 422, resp.StatusCode, resp.Body)
			})
		})
	}
}

// TestBatchIdempotencyKeyBindsTheWholeRequest: an Idempotency-Key names
// one request, whatever became of its items. The same key with the same
// body always replays, with another body it is always 422, and one key
// never serves both a single create and a batch.
func TestBatchIdempotencyKeyBindsTheWholeRequest(t *testing.T) {
	invalid := map[string]any{"url": "not a url"}
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			ctx := context.Background()
			send := func(h *Handler, key string, items ...any) events.APIGatewayProxyResponse {
				resp, err := h.Handle(ctx, batchEvent(t, batchOf(items...), "Idempotency-Key", key))
				require.NoError(t, err)
				return resp
			}
			single := func(h *Handler, key, body string) events.APIGatewayProxyResponse {
				ev := apigwtest.WithBody(event(t, "create-idempotent.json"), body)
				ev.Headers["Idempotency-Key"] = key
				resp, err := h.Handle(ctx, ev)
				require.NoError(t, err)
				return resp
			}

			t.Run("early items failed: another body is 422 and the first replays", func(t *testing.T) {
				store := st.new(t)
				h := batchHandler(t, store)
				first := []any{invalid, invalid, map[string]any{"url": "https://example.com/kept"}}
				r1 := results(t, send(h, "early-fail", first...))
				require.Equal(t, []int{400, 400, 201}, statuses(r1))

				other := send(h, "early-fail", map[string]any{"url": "https://example.com/intruder"})
				assert.Equal(t, 422, other.StatusCode, other.Body)

				again := send(h, "early-fail", first...)
				r2 := results(t, again)
				assert.Equal(t, "true", again.Headers["Idempotent-Replayed"])
				assert.Equal(t, r1[2], r2[2], "the genuine retry replays its link")
				links, _, err := store.List(ctx, "p6r4ocs3d1", 100, "")
				require.NoError(t, err)
				assert.Len(t, links, 1, "the other body created nothing")
			})
			t.Run("nothing created: another body is still 422", func(t *testing.T) {
				store := st.new(t)
				h := batchHandler(t, store)
				require.Equal(t, []int{400, 400}, statuses(results(t, send(h, "all-fail", invalid, invalid))))

				other := send(h, "all-fail", map[string]any{"url": "https://example.com/intruder"})
				assert.Equal(t, 422, other.StatusCode, other.Body)
				assert.Equal(t, []int{400, 400}, statuses(results(t, send(h, "all-fail", invalid, invalid))),
					"the same body is still the same request")
				links, _, err := store.List(ctx, "p6r4ocs3d1", 100, "")
				require.NoError(t, err)
				assert.Empty(t, links)
			})
			t.Run("a batch's key refuses a single create", func(t *testing.T) {
				store := st.new(t)
				h := batchHandler(t, store)
				require.Equal(t, []int{201}, statuses(results(t, send(h, "shared-key", map[string]any{"url": "https://example.com/b"}))))
				resp := single(h, "shared-key", `{"url":"https://example.com/b"}`)
				assert.Equal(t, 422, resp.StatusCode, resp.Body)
			})
			t.Run("a single create's key refuses a batch", func(t *testing.T) {
				store := st.new(t)
				h := batchHandler(t, store)
				resp := single(h, "shared-key", `{"url":"https://example.com/s"}`)
				require.Equal(t, 201, resp.StatusCode, resp.Body)
				batch := send(h, "shared-key", map[string]any{"url": "https://example.com/s"})
				assert.Equal(t, 422, batch.StatusCode, batch.Body)
				links, _, err := store.List(ctx, "p6r4ocs3d1", 100, "")
				require.NoError(t, err)
				assert.Len(t, links, 1)
			})
		})
	}
}

func statuses(rs []linkapi.BatchResult) []int {
	out := make([]int, len(rs))
	for i, r := range rs {
		out[i] = r.Status
	}
	return out
}

// TestBatchConcurrentDuplicates: the same batch sent twice at once under
// one key creates every link once; both answers name the same links.
func TestBatchConcurrentDuplicates(t *testing.T) {
	store := linkstore.NewMemory(nil)
	h := batchHandler(t, store)
	ev := batchEvent(t, batchOf(hundred("twin")...), "Idempotency-Key", "twin")
	var wg sync.WaitGroup
	answers := make([][]linkapi.BatchResult, 2)
	for i := range answers {
		wg.Go(func() {
			resp, err := h.Handle(context.Background(), ev)
			assert.NoError(t, err)
			answers[i] = results(t, resp)
		})
	}
	wg.Wait()
	assert.Equal(t, answers[0], answers[1])
	links, _, err := store.List(context.Background(), "p6r4ocs3d1", 100, "")
	require.NoError(t, err)
	assert.Len(t, links, 100)
}

// countingStore records how many creates run at once.
type countingStore struct {
	linkstore.Store
	delay    time.Duration
	inFlight atomic.Int32
	peak     atomic.Int32
}

func (c *countingStore) Create(ctx context.Context, l link.Link, idem *linkstore.Idempotency) error {
	n := c.inFlight.Add(1)
	defer c.inFlight.Add(-1)
	for {
		p := c.peak.Load()
		if n <= p || c.peak.CompareAndSwap(p, n) {
			break
		}
	}
	select {
	case <-time.After(c.delay):
	case <-ctx.Done():
		return ctx.Err()
	}
	return c.Store.Create(ctx, l, idem)
}

func TestBatchBoundsConcurrency(t *testing.T) {
	store := &countingStore{Store: linkstore.NewMemory(nil), delay: 20 * time.Millisecond}
	h := batchHandler(t, store)
	resp, err := h.Handle(context.Background(), batchEvent(t, batchOf(hundred("bound")...)))
	require.NoError(t, err)
	for _, r := range results(t, resp) {
		require.Equal(t, 201, r.Status)
	}
	assert.Equal(t, int32(BatchConcurrency), store.peak.Load(), "items run concurrently, at most BatchConcurrency at once")
}

// TestBatchStaysWithinItsDeadline: when the store hangs, the batch still
// answers before the Lambda deadline, each unfinished item a retryable 503.
func TestBatchStaysWithinItsDeadline(t *testing.T) {
	store := &countingStore{Store: linkstore.NewMemory(nil), delay: time.Hour}
	h := batchHandler(t, store)
	ctx, cancel := context.WithTimeout(context.Background(), batchMargin+300*time.Millisecond)
	defer cancel()
	start := time.Now()
	resp, err := h.Handle(ctx, batchEvent(t, batchOf(hundred("slow")[:20]...)))
	require.NoError(t, err)
	// Generous for a busy machine; the store would hold each item an hour.
	assert.Less(t, time.Since(start), 5*time.Second, "answered by the deadline, not after the store")
	for _, r := range results(t, resp) {
		assert.Equal(t, 503, r.Status)
		assert.Equal(t, apigw.ProblemUnavailable.Type, problemOf(t, r).Type)
	}
}
