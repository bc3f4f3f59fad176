package apispec_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/create/createfn"
	"github.com/shortlink-dev/shortener/functions/manage/managefn"
	"github.com/shortlink-dev/shortener/functions/originauth/originauthfn"
	"github.com/shortlink-dev/shortener/functions/redirect/redirectfn"
	"github.com/shortlink-dev/shortener/functions/stats/statsfn"
	"github.com/shortlink-dev/shortener/functions/webhooks/webhooksfn"
	"github.com/shortlink-dev/shortener/internal/apispec"
	"github.com/shortlink-dev/shortener/internal/localgw"
	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/audit"
	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/edgespec"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/linkstore/storetest"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/webhook"
	"github.com/shortlink-dev/shortener/shared/workspace"
)

// resolver answers hooks.example.com with a public address and
// internal.example.com with a private one.
type resolver struct{}

func (resolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	ips := map[string]string{"hooks.example.com": "93.184.215.14", "internal.example.com": "10.0.0.7"}
	if ip, ok := ips[host]; ok {
		return []net.IPAddr{{IP: net.ParseIP(ip)}}, nil
	}
	return nil, fmt.Errorf("no such host %s", host)
}

// webhookFaults is webhook.Memory that fails List with err while err is set.
type webhookFaults struct {
	*webhook.Memory
	mu  sync.Mutex
	err error
}

func (f *webhookFaults) fail(err error) {
	f.mu.Lock()
	f.err = err
	f.mu.Unlock()
}

func (f *webhookFaults) List(ctx context.Context, owner string) ([]webhook.Subscription, error) {
	f.mu.Lock()
	err := f.err
	f.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return f.Memory.List(ctx, owner)
}

// clicks stands in for the analytics table behind the stats handler:
// three clicks in the first bucket of any range, one country and one
// referrer.
type clicks struct{}

func (clicks) Series(_ context.Context, _ string, _ clickstore.Kind, from, _ time.Time) ([]clickstore.Point, error) {
	return []clickstore.Point{{Start: from, Counts: clickstore.Counts{Total: 3, Human: 2, Bot: 1}}}, nil
}

func (clicks) Breakdown(_ context.Context, _ string, kind clickstore.Kind, _, _ time.Time) (map[string]clickstore.Counts, bool, error) {
	key := "DE"
	if kind == clickstore.Referrer {
		key = "news.example.com"
	}
	return map[string]clickstore.Counts{key: {Total: 3, Human: 2, Bot: 1}}, true, nil
}

// faultStore is linkstore.Memory that fails every call with err while err
// is set, for the 500 and 503 answers.
type faultStore struct {
	*linkstore.Memory
	mu  sync.Mutex
	err error
}

func (f *faultStore) fail(err error) {
	f.mu.Lock()
	f.err = err
	f.mu.Unlock()
}

func (f *faultStore) check() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

func (f *faultStore) Create(ctx context.Context, l link.Link, idem *linkstore.Idempotency) error {
	if err := f.check(); err != nil {
		return err
	}
	return f.Memory.Create(ctx, l, idem)
}

func (f *faultStore) Get(ctx context.Context, code string) (link.Link, error) {
	if err := f.check(); err != nil {
		return link.Link{}, err
	}
	return f.Memory.Get(ctx, code)
}

func (f *faultStore) GetIdempotency(ctx context.Context, owner, key string) (linkstore.Idempotency, error) {
	if err := f.check(); err != nil {
		return linkstore.Idempotency{}, err
	}
	return f.Memory.GetIdempotency(ctx, owner, key)
}

func (f *faultStore) List(ctx context.Context, owner string, limit int, cursor string) ([]link.Link, string, error) {
	if err := f.check(); err != nil {
		return nil, "", err
	}
	return f.Memory.List(ctx, owner, limit, cursor)
}

// env is the local gateway in front of the real handlers, over one
// in-memory store and one clock, with the document's checker.
type env struct {
	t       *testing.T
	srv     *httptest.Server
	client  *http.Client
	checker *apispec.Checker
	clock   *storetest.Clock
	store   *faultStore
	hooks   *webhookFaults

	mu   sync.Mutex
	seen map[string]map[int]bool // operation ("" outside any) -> statuses
}

const (
	// originSecret is the redirect origin's secret (functions/originauth).
	originSecret = "conformance-origin-secret"

	keyA = "key-a" // owner-a
	keyB = "key-b" // owner-b
)

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	doc, err := apispec.Load(ctx, apispec.Path())
	require.NoError(t, err, "the document loads and is a valid OpenAPI 3.1 document")
	require.Equal(t, "3.1.0", doc.OpenAPI)

	clock := storetest.NewClock(time.Now().UTC().Truncate(time.Second))
	e := &env{t: t, clock: clock, store: &faultStore{Memory: linkstore.NewMemory(clock.Now)}, seen: map[string]map[int]bool{}}
	cfg, err := config.Load(func(k string) string {
		return map[string]string{"SHORTENER_BASE_URL": "https://sho.rt"}[k]
	})
	require.NoError(t, err)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	keys := apikey.NewMemory(map[string]string{keyA: "owner-a", keyB: "owner-b"})
	owners := apikey.NewResolver(keys, apikey.ResolverOptions{})
	auditLog := &audit.Memory{Now: clock.Now}
	c, err := createfn.New(createfn.Options{Store: e.store, Config: cfg, Log: log, Metrics: metrics.New(io.Discard, "Shortener", "create"), Now: clock.Now, Owners: owners,
		Audit: auditLog})
	require.NoError(t, err)
	members := workspace.NewMemory()
	require.NoError(t, members.Put(ctx, workspace.Member{Workspace: "owner-a", User: "alice", Role: workspace.RoleAdmin, AddedAt: clock.Now(), AddedBy: "operator"}))
	m := managefn.New(managefn.Options{Store: e.store, Config: cfg, Log: log, Metrics: metrics.New(io.Discard, "Shortener", "manage"), Now: clock.Now, Owners: owners,
		Members: members, Keys: keys, Audit: auditLog, AuditLog: auditLog})
	r := redirectfn.New(redirectfn.Options{Store: e.store, Config: cfg, Log: log, Metrics: metrics.New(io.Discard, "Shortener", "redirect"), Now: clock.Now})
	st := statsfn.New(statsfn.Options{Links: e.store, Lists: e.store, Clicks: clicks{}, Now: clock.Now, Log: log,
		Metrics: metrics.New(io.Discard, "Shortener", "stats"), Owners: owners})
	// The redirect route as deployed, behind the origin authorizer; every
	// request carries the secret, as CloudFront's do (e.do).
	e.hooks = &webhookFaults{Memory: webhook.NewMemory()}
	wh := webhooksfn.New(webhooksfn.Options{Store: e.hooks, Owners: owners, Guard: webhook.Guard{Resolver: resolver{}},
		Now: clock.Now, Log: log, Metrics: metrics.New(io.Discard, "Shortener", "webhooks"), Audit: auditLog})
	auth := originauthfn.New(originauthfn.Options{Secrets: originauthfn.Static{originSecret}})
	gw, err := localgw.New(localgw.Options{
		Routes: localgw.Routes(localgw.Handlers{Create: c.Handle, Redirect: r.Handle, Manage: m.Handle, Batch: c.Handle, QR: m.Handle, Stats: st.Handle,
			Webhooks: wh.Handle, OriginAuthorizer: &localgw.Authorizer{Header: originauthfn.HeaderName, Handler: auth.Handle}}),
		APIKeys: localgw.StaticKeys(keyA, keyB),
		Log:     log,
		// As deployed (infra/api): without it a QR code is base64 text.
		BinaryMediaTypes: apigw.BinaryMediaTypes,
		// As deployed too: a method a path does not list is the REST
		// API's MISSING_AUTHENTICATION_TOKEN response, a not-found problem.
		GatewayResponses: edgespec.Management(edgespec.DefaultUsagePlan).GatewayResponses,
	})
	require.NoError(t, err)
	e.srv = httptest.NewServer(withHealth(gw, e.store))
	t.Cleanup(e.srv.Close)
	e.client = &http.Client{Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	e.checker, err = apispec.New(doc, e.srv.URL)
	require.NoError(t, err)
	return e
}

// withHealth answers GET /v1/health in front of the gateway as the deployed
// API does from API Gateway itself (infra/api addHealth, played by
// cmd/shortener-local's withHealth): one read of the reserved code
// "health", {"status":"ok"} when the store answers (not found included),
// {"status":"unavailable"} and 503 when it fails.
func withHealth(gw http.Handler, store *faultStore) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/health" || r.Method != http.MethodGet {
			gw.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		if _, err := store.Get(r.Context(), "health"); err != nil && !errors.Is(err, link.ErrNotFound) {
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"status":"unavailable"}`)
			return
		}
		io.WriteString(w, `{"status":"ok"}`)
	})
}

// call is one request and what the document and the handlers must make of it.
type call struct {
	method, path string
	key          string
	body         string
	headers      []string // name, value, ...
	status       int
	// invalid: the request breaks the document (a body the schema
	// refuses, a missing API key...), and the document must say so.
	invalid bool
}

// do sends c, requires the answer's status, and checks both the request
// and the answer against the document. It returns the answer.
func (e *env) do(c call) (http.Header, []byte) {
	t := e.t
	t.Helper()
	var body io.Reader
	if c.body != "" {
		body = strings.NewReader(c.body)
	}
	req, err := http.NewRequest(c.method, e.srv.URL+c.path, body)
	require.NoError(t, err)
	if c.key != "" {
		req.Header.Set("x-api-key", c.key)
	}
	req.Header.Set(originauthfn.HeaderName, originSecret)
	if c.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(c.headers); i += 2 {
		req.Header.Set(c.headers[i], c.headers[i+1])
	}
	resp, err := e.client.Do(req)
	require.NoError(t, err)
	respBody, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	label := c.method + " " + c.path
	require.Equal(t, c.status, resp.StatusCode, "%s answered %s", label, respBody)

	res := e.checker.Check(context.Background(), apispec.Exchange{
		Request: req, RequestBody: []byte(c.body), Status: resp.StatusCode, Header: resp.Header, Body: respBody,
	})
	assert.NoError(t, res.ResponseErr, "%s: the answer (%d %s) breaks the document", label, resp.StatusCode, respBody)
	if c.invalid {
		assert.Error(t, res.RequestErr, "%s: the document should refuse this request", label)
	} else {
		assert.NoError(t, res.RequestErr, "%s: the request breaks the document", label)
	}
	e.mu.Lock()
	if e.seen[res.Operation] == nil {
		e.seen[res.Operation] = map[int]bool{}
	}
	e.seen[res.Operation][resp.StatusCode] = true
	e.mu.Unlock()
	return resp.Header, respBody
}

// create makes a link for key and returns its code.
func (e *env) create(key, body string) string {
	e.t.Helper()
	_, b := e.do(call{method: "POST", path: "/v1/links", key: key, body: body, status: 201})
	var l struct{ Code string }
	require.NoError(e.t, json.Unmarshal(b, &l))
	return l.Code
}

func TestConformance(t *testing.T) {
	e := newEnv(t)
	post := func(path, body string, status int, invalid bool, headers ...string) (http.Header, []byte) {
		return e.do(call{method: "POST", path: path, key: keyA, body: body, status: status, invalid: invalid, headers: headers})
	}

	// POST /v1/links
	code := e.create(keyA, `{"url":"https://example.com/landing?utm_source=newsletter"}`)
	e.create(keyA, `{"url":"https://example.com/summer","alias":"Summer-Sale","ttl_seconds":86400,"redirect_status":307}`)
	e.create(keyA, `{"url":"https://example.com/perm","alias":"perm-301","expires_at":"`+e.clock.Now().Add(48*time.Hour).Format(time.RFC3339)+`","redirect_status":301}`)
	e.create(keyA, `{"url":"https://example.com/perm8","alias":"perm-308","redirect_status":308}`)
	e.create(keyA, `{"url":"https://example.com/promo","alias":"Promo25"}`)
	post("/v1/links", `{"url":"https://example.com/again","alias":"summer-SALE"}`, 409, false)
	post("/v1/links", `{"url":"https://example.com/idem"}`, 201, false, "Idempotency-Key", "order-1")
	h, _ := post("/v1/links", `{"url":"https://example.com/idem"}`, 201, false, "Idempotency-Key", "order-1")
	assert.Equal(t, "true", h.Get("Idempotent-Replayed"))
	post("/v1/links", `{"url":"https://example.com/other"}`, 422, false, "Idempotency-Key", "order-1")
	post("/v1/links", `{"url":"https://example.com/x"}`, 400, true, "Idempotency-Key", "has space")
	post("/v1/links", `{"url":"https://example.com/","labels":["x"]}`, 400, true)
	e.create(keyA, `{"url":"https://example.com/tagged","title":"Spring launch","notes":"one\ntwo","tags":["launch","EU"]}`)
	post("/v1/links", `{"url":"https://example.com/","title":"a\u202eb"}`, 400, false) // a rule the schema cannot express
	post("/v1/links", `{"url":"https://example.com/","tags":["a b"]}`, 400, false)
	post("/v1/links", `{"url":"https://example.com/","title":"`+strings.Repeat("x", 201)+`"}`, 400, true)
	post("/v1/links", `{"url":"ftp://example.com/file"}`, 400, false) // a rule the schema cannot express
	post("/v1/links", `{"url":"https://sho.rt/loop"}`, 400, false)
	// The document allows every length a deployment may (1-100); this one
	// keeps the defaults, 3-64.
	post("/v1/links", `{"url":"https://example.com/","alias":"ab"}`, 400, false)
	post("/v1/links", `{"url":"https://example.com/","alias":"`+strings.Repeat("k", 101)+`"}`, 400, true)
	imported := e.create(keyA, `{"url":"https://example.com/imported","alias":"imported-1","imported_clicks":48213}`)
	post("/v1/links", `{"url":"https://example.com/","imported_clicks":-1}`, 400, true)
	post("/v1/links", `{"url":"https://example.com/","imported_clicks":1000000000001}`, 400, true)
	post("/v1/links", `{"url":"https://example.com/","alias":"Admin"}`, 400, false)
	post("/v1/links", `{"url":"https://example.com/","ttl_seconds":60,"expires_at":"2099-01-01T00:00:00Z"}`, 400, true)
	post("/v1/links", `{"url":"https://example.com/","ttl_seconds":0}`, 400, true)
	post("/v1/links", `{"url":"https://example.com/","redirect_status":303}`, 400, true)
	post("/v1/links", `{"url":"https://example.com/","ttl_seconds":"60"}`, 400, true)
	post("/v1/links", `{}`, 400, true)
	post("/v1/links", `not json`, 400, true)
	post("/v1/links", `{"url":"https://example.com/`+strings.Repeat("a", 70<<10)+`"}`, 413, false)
	post("/v1/links", `{"url":"https://example.com/`+strings.Repeat("a", 1<<20)+`"}`, 413, false) // the gateway's cap
	post("/v1/links", `{"url":"https://example.com/"}`, 415, true, "Content-Type", "text/plain")
	e.do(call{method: "POST", path: "/v1/links", body: `{"url":"https://example.com/"}`, status: 401, invalid: true})
	e.do(call{method: "POST", path: "/v1/links", key: "nobody", body: `{"url":"https://example.com/"}`, status: 403})
	e.store.fail(fmt.Errorf("put: %w", link.ErrUnavailable))
	h, _ = post("/v1/links", `{"url":"https://example.com/"}`, 503, false)
	assert.Equal(t, "1", h.Get("Retry-After"))
	e.store.fail(fmt.Errorf("a bug"))
	post("/v1/links", `{"url":"https://example.com/"}`, 500, false)
	e.store.fail(nil)

	// POST /v1/links/batch
	_, b := post("/v1/links/batch", `{"links":[{"url":"https://example.com/b1"},{"url":"https://example.com/b2","alias":"Batch-Two"}]}`, 200, false)
	assert.Contains(t, string(b), `"status":201`)
	_, b = post("/v1/links/batch", `{"links":[{"url":"https://example.com/b3"},{"url":"javascript:x"},{"url":"https://example.com/b4","alias":"batch-two"},{"nope":1}]}`, 200, true)
	for _, s := range []string{`"status":201`, `"status":400`, `"status":409`} {
		assert.Contains(t, string(b), s)
	}
	batch := `{"links":[{"url":"https://example.com/i1"},{"url":"https://example.com/i2"}]}`
	post("/v1/links/batch", batch, 200, false, "Idempotency-Key", "batch-1")
	h, _ = post("/v1/links/batch", batch, 200, false, "Idempotency-Key", "batch-1")
	assert.Equal(t, "true", h.Get("Idempotent-Replayed"))
	post("/v1/links/batch", `{"links":[{"url":"https://example.com/i3"}]}`, 422, false, "Idempotency-Key", "batch-1")
	many := make([]string, 101)
	for i := range many {
		many[i] = fmt.Sprintf(`{"url":"https://example.com/m%d"}`, i)
	}
	post("/v1/links/batch", `{"links":[`+strings.Join(many, ",")+`]}`, 400, true)
	post("/v1/links/batch", `{"links":[]}`, 400, true)
	post("/v1/links/batch", `{"items":[]}`, 400, true)
	post("/v1/links/batch", `{"links":[{"url":"https://example.com/"}]}`, 415, true, "Content-Type", "application/x-www-form-urlencoded")
	post("/v1/links/batch", `{"links":["`+strings.Repeat("a", 1<<20)+`"]}`, 413, true)
	e.do(call{method: "POST", path: "/v1/links/batch", key: "nobody", body: `{"links":[{"url":"https://example.com/"}]}`, status: 403})
	e.do(call{method: "POST", path: "/v1/links/batch", body: `{"links":[{"url":"https://example.com/"}]}`, status: 401, invalid: true})
	e.store.fail(fmt.Errorf("get: %w", link.ErrUnavailable))
	post("/v1/links/batch", batch, 503, false, "Idempotency-Key", "batch-2")
	e.store.fail(nil)
	e.do(call{method: "GET", path: "/v1/links/batch", key: keyA, status: 404, invalid: true})

	// GET /v1/links
	get := func(path, key string, status int, invalid bool, headers ...string) (http.Header, []byte) {
		return e.do(call{method: "GET", path: path, key: key, status: status, invalid: invalid, headers: headers})
	}
	_, b = get("/v1/links?limit=2", keyA, 200, false)
	var page struct {
		NextCursor string `json:"next_cursor"`
	}
	require.NoError(t, json.Unmarshal(b, &page))
	require.NotEmpty(t, page.NextCursor)
	get("/v1/links?limit=100&cursor="+page.NextCursor, keyA, 200, false)
	get("/v1/links", keyB, 200, false) // an empty page
	get("/v1/links?limit=0", keyA, 400, true)
	get("/v1/links?limit=many", keyA, 400, true)
	get("/v1/links?q=example&limit=1", keyA, 200, false)
	get("/v1/links?q="+strings.Repeat("x", 201), keyA, 400, true)
	get("/v1/links?cursor=bm9wZQ", keyA, 400, false)
	_, b = get("/v1/links?tag=launch,eu", keyA, 200, false)
	assert.Contains(t, string(b), `"title":"Spring launch"`)
	get("/v1/links?tag=launch&q=spring", keyA, 200, false)
	get("/v1/links?tag=a%20b", keyA, 400, false)

	// GET /v1/tags
	_, b = get("/v1/tags", keyA, 200, false)
	assert.JSONEq(t, `{"tags":[{"tag":"eu","links":1},{"tag":"launch","links":1}]}`, string(b))
	_, b = get("/v1/tags", keyB, 200, false)
	assert.JSONEq(t, `{"tags":[]}`, string(b), "another owner's tags are never shown")
	get("/v1/tags", "", 401, true)
	get("/v1/tags", "nobody", 403, false)
	e.do(call{method: "DELETE", path: "/v1/tags", key: keyA, status: 404, invalid: true})
	get("/v1/links", "", 401, true)
	get("/v1/links", "nobody", 403, false)
	e.store.fail(fmt.Errorf("query: %w", link.ErrUnavailable))
	get("/v1/links", keyA, 503, false)
	e.store.fail(nil)
	e.do(call{method: "DELETE", path: "/v1/links", key: keyA, status: 404, invalid: true})

	// GET /v1/links/{code}
	h, _ = get("/v1/links/"+code, keyA, 200, false)
	etag := h.Get("ETag")
	get("/v1/links/SUMMER-sale", keyA, 200, false)
	get("/v1/links/"+code, keyB, 404, false)
	get("/v1/links/nOsUcH1", keyA, 404, false)
	get("/v1/links/a.b", keyA, 404, false)
	get("/v1/links/"+code, "", 401, true)
	e.store.fail(fmt.Errorf("get: %w", link.ErrUnavailable))
	get("/v1/links/"+code, keyA, 503, false)
	e.store.fail(nil)

	// PATCH /v1/links/{code}
	patch := func(path, body string, status int, invalid bool, headers ...string) (http.Header, []byte) {
		return e.do(call{method: "PATCH", path: path, key: keyA, body: body, status: status, invalid: invalid, headers: headers})
	}
	h, _ = patch("/v1/links/"+code, `{"url":"https://example.com/new"}`, 200, false, "If-Match", etag)
	assert.NotEqual(t, etag, h.Get("ETag"))
	patch("/v1/links/"+code, `{"status":"disabled"}`, 412, false, "If-Match", etag)
	patch("/v1/links/"+code, `{"status":"disabled","redirect_status":302}`, 200, false)
	patch("/v1/links/"+code, `{"status":"active"}`, 200, false, "Content-Type", "application/merge-patch+json")
	patch("/v1/links/"+code, `{}`, 400, true)
	patch("/v1/links/"+code, `{"status":"deleted"}`, 400, true)
	patch("/v1/links/"+code, `{"alias":"renamed"}`, 400, true)
	patch("/v1/links/"+imported, `{"imported_clicks":1}`, 400, true)
	patch("/v1/links/"+code, `{"url":"mailto:a@example.com"}`, 400, false)
	patch("/v1/links/"+code, `{"status":"active"}`, 400, false, "If-Match", ",")
	patch("/v1/links/"+code, `{"status":"active"}`, 415, true, "Content-Type", "text/plain")
	patch("/v1/links/"+code, `{"url":"https://example.com/`+strings.Repeat("b", 70<<10)+`"}`, 413, false)
	patch("/v1/links/nOsUcH1", `{"status":"active"}`, 404, false)
	short := e.create(keyA, `{"url":"https://example.com/short-lived","ttl_seconds":60}`)
	e.clock.Add(2 * time.Minute)
	patch("/v1/links/"+short, `{"ttl_seconds":3600}`, 410, false)
	e.do(call{method: "PATCH", path: "/v1/links/" + code, key: "nobody", body: `{"status":"active"}`, status: 403})
	// A deleted link cannot be revived: 410, as the document says, to its
	// owner; to anyone else it is 404 like any code that is not theirs.
	deleted := e.create(keyA, `{"url":"https://example.com/deleted"}`)
	e.do(call{method: "DELETE", path: "/v1/links/" + deleted, key: keyA, status: 204})
	patch("/v1/links/"+deleted, `{"url":"https://example.com/revived"}`, 410, false)
	e.do(call{method: "PATCH", path: "/v1/links/" + deleted, key: keyB, body: `{"status":"active"}`, status: 404})

	// GET /v1/health: no API key, answered without a function.
	e.do(call{method: "GET", path: "/v1/health", status: 200})
	e.store.fail(fmt.Errorf("get: %w", link.ErrUnavailable))
	e.do(call{method: "GET", path: "/v1/health", status: 503})
	e.store.fail(nil)

	// GET /v1/links/{code}/qr
	h, b = get("/v1/links/"+code+"/qr", keyA, 200, false, "Accept", "image/png")
	assert.Equal(t, "image/png", h.Get("Content-Type"))
	assert.Equal(t, "\x89PNG", string(b[:4]), "the gateway decodes the base64 body")
	_, b = get("/v1/links/"+code+"/qr", keyA, 200, false, "Accept", "text/html,*/*;q=0.8")
	assert.Equal(t, "\x89PNG", string(b[:4]), "bytes for a browser's Accept too")
	_, b = get("/v1/links/"+code+"/qr", keyA, 200, false, "Accept", "*/*")
	assert.Equal(t, "\x89PNG", string(b[:4]), "bytes for curl's Accept: */* is the binary media type")
	h, _ = get("/v1/links/Summer-Sale/qr?format=svg&size=512", keyA, 200, false)
	assert.Equal(t, "image/svg+xml", h.Get("Content-Type"))
	get("/v1/links/"+code+"/qr?size=10", keyA, 400, true)
	get("/v1/links/"+code+"/qr?size=2000", keyA, 400, true)
	get("/v1/links/"+code+"/qr?format=gif", keyA, 400, true)
	get("/v1/links/"+code+"/qr", keyB, 404, false)
	get("/v1/links/"+code+"/qr", "", 401, true)
	get("/v1/links/"+code+"/qr", "nobody", 403, false)
	e.do(call{method: "POST", path: "/v1/links/" + code + "/qr", key: keyA, status: 404, invalid: true})

	// GET and HEAD /{code}
	for _, m := range []string{"GET", "HEAD"} {
		h, _ = e.do(call{method: m, path: "/" + code, status: 302})
		assert.Equal(t, "https://example.com/new", h.Get("Location"))
		e.do(call{method: m, path: "/summer-sale", status: 307})
		e.do(call{method: m, path: "/perm-301", status: 301})
		e.do(call{method: m, path: "/PERM-308", status: 308})
		h, _ = e.do(call{method: m, path: "/PROMO25", status: 303})
		assert.Equal(t, "/promo25", h.Get("Location"), "an alias typed in a code's shape is sent to its own path")
		e.do(call{method: m, path: "/nOsUcH1", status: 404})
		e.do(call{method: m, path: "/favicon.ico", status: 404})
		e.do(call{method: m, path: "/" + short, status: 410})
	}
	e.store.fail(fmt.Errorf("get: %w", link.ErrUnavailable))
	e.do(call{method: "GET", path: "/Unc4ch3", status: 503})
	e.store.fail(nil)
	e.do(call{method: "PUT", path: "/" + code, status: 404, invalid: true})
	// POST /unlock/{code}: a password form's; a link without a password refuses it.
	e.do(call{method: "POST", path: "/unlock/" + code, body: "password=whatever1", headers: []string{"Content-Type", "application/x-www-form-urlencoded"}, status: 405})

	// GET /v1/links/{code}/stats
	_, b = get("/v1/links/"+code+"/stats", keyA, 200, false)
	assert.Contains(t, string(b), `"granularity":"day"`)
	_, b = get("/v1/links/"+imported+"/stats", keyA, 200, false)
	assert.Contains(t, string(b), `"imported":{"clicks":48213}`)
	_, b = get("/v1/links/"+imported, keyA, 200, false)
	assert.Contains(t, string(b), `"imported_clicks":48213`)
	from := e.clock.Now().Add(-3 * time.Hour).Format(time.RFC3339)
	get("/v1/links/Summer-Sale/stats?granularity=hour&from="+from, keyA, 200, false)
	get("/v1/links/"+code+"/stats?from=2026-11-01&to=2026-11-30", keyA, 200, false)
	get("/v1/links/"+code+"/stats?granularity=week", keyA, 400, true)
	get("/v1/links/"+code+"/stats?from=yesterday", keyA, 400, true)
	get("/v1/links/"+code+"/stats?granularity=hour&from=2020-01-01", keyA, 400, false) // over 92 days
	get("/v1/links/"+code+"/stats?bucket=hour", keyA, 400, false)                      // unknown parameters are refused
	get("/v1/links/"+code+"/stats", keyB, 404, false)
	get("/v1/links/nOsUcH1/stats", keyA, 404, false)
	get("/v1/links/"+code+"/stats", "", 401, true)
	get("/v1/links/"+code+"/stats", "nobody", 403, false)
	e.store.fail(fmt.Errorf("get: %w", link.ErrUnavailable))
	get("/v1/links/"+code+"/stats", keyA, 503, false)
	e.store.fail(nil)

	// GET /v1/stats
	_, b = get("/v1/stats", keyA, 200, false)
	assert.Contains(t, string(b), `"top_links":`)
	_, b = get("/v1/stats?codes="+code+",Summer-Sale&from=2026-11-24", keyA, 200, false)
	assert.Contains(t, string(b), `"per_link":`)
	get("/v1/stats?tag=promo", keyA, 400, false) // no tags table yet
	get("/v1/stats?granularity=hour", keyA, 400, true)
	get("/v1/stats?bucket=day", keyA, 400, false)
	get("/v1/stats", "", 401, true)

	// POST, GET /v1/webhooks; DELETE /v1/webhooks/{id}; GET /v1/webhooks/{id}/deliveries
	_, b = post("/v1/webhooks", `{"url":"https://hooks.example.com/in","events":["link.created","link.clicked"],"human_only":true}`, 201, false)
	var hook struct{ ID, Secret string }
	require.NoError(t, json.Unmarshal(b, &hook))
	require.NotEmpty(t, hook.Secret)
	post("/v1/webhooks", `{"url":"https://internal.example.com/in","events":["link.created"]}`, 400, false)
	post("/v1/webhooks", `{"url":"https://hooks.example.com/in","events":["link.viewed"]}`, 400, true)
	post("/v1/webhooks", `{"url":"https://hooks.example.com/in","events":[]}`, 400, true)
	post("/v1/webhooks", `{"events":["link.created"]}`, 400, true)
	post("/v1/webhooks", `{"url":"https://hooks.example.com/in","events":["link.created"]}`, 415, true, "Content-Type", "text/plain")
	post("/v1/webhooks", `{"url":"https://hooks.example.com/`+strings.Repeat("a", 70<<10)+`","events":["link.created"]}`, 413, true)
	for range webhook.MaxSubscriptions - 1 {
		post("/v1/webhooks", `{"url":"https://hooks.example.com/more","events":["link.deleted"]}`, 201, false)
	}
	post("/v1/webhooks", `{"url":"https://hooks.example.com/more","events":["link.deleted"]}`, 409, false)
	e.do(call{method: "POST", path: "/v1/webhooks", body: `{"url":"https://hooks.example.com/in","events":["link.created"]}`, status: 401, invalid: true})
	e.do(call{method: "POST", path: "/v1/webhooks", key: "nobody", body: `{"url":"https://hooks.example.com/in","events":["link.created"]}`, status: 403})
	_, b = get("/v1/webhooks", keyA, 200, false)
	assert.Contains(t, string(b), hook.ID)
	assert.NotContains(t, string(b), hook.Secret)
	_, b = get("/v1/webhooks", keyB, 200, false)
	assert.NotContains(t, string(b), hook.ID)
	get("/v1/webhooks", "nobody", 403, false)
	get("/v1/webhooks", "", 401, true)
	e.hooks.fail(fmt.Errorf("query: %w", link.ErrUnavailable))
	get("/v1/webhooks", keyA, 503, false)
	e.hooks.fail(fmt.Errorf("a bug"))
	get("/v1/webhooks", keyA, 500, false)
	e.hooks.fail(nil)
	require.NoError(t, e.hooks.Record(context.Background(), "owner-a", webhook.Delivery{Subscription: hook.ID, EventID: "msg_1",
		Event: webhook.LinkCreated, Attempt: 1, Status: webhook.StatusRetrying, ResponseCode: 500, At: e.clock.Now(), NextRetry: e.clock.Now().Add(5 * time.Second)}))
	_, b = get("/v1/webhooks/"+hook.ID+"/deliveries", keyA, 200, false)
	assert.Contains(t, string(b), `"next_retry"`)
	get("/v1/webhooks/"+hook.ID+"/deliveries", keyB, 404, false)
	get("/v1/webhooks/"+hook.ID+"/deliveries", "", 401, true)
	get("/v1/webhooks/"+hook.ID+"/deliveries", "nobody", 403, false)
	e.do(call{method: "DELETE", path: "/v1/webhooks/" + hook.ID, key: keyB, status: 404})
	e.do(call{method: "DELETE", path: "/v1/webhooks/" + hook.ID, key: "nobody", status: 403})
	e.do(call{method: "DELETE", path: "/v1/webhooks/" + hook.ID, key: keyA, status: 204})
	e.do(call{method: "DELETE", path: "/v1/webhooks/" + hook.ID, key: keyA, status: 404})
	e.do(call{method: "DELETE", path: "/v1/webhooks/" + hook.ID, status: 401, invalid: true})
	e.do(call{method: "GET", path: "/v1/webhooks/" + hook.ID, key: keyA, status: 404, invalid: true})

	// GET /v1/members; PUT and DELETE /v1/members/{user}
	_, b = get("/v1/members", keyA, 200, false)
	assert.Contains(t, string(b), `"alice"`)
	_, b = get("/v1/members", keyB, 200, false)
	assert.NotContains(t, string(b), `"alice"`, "another workspace's members")
	get("/v1/members", "", 401, true)
	get("/v1/members", "nobody", 403, false)
	e.do(call{method: "PUT", path: "/v1/members/bob-sub", key: keyA, body: `{"role":"editor"}`, status: 200})
	e.do(call{method: "PUT", path: "/v1/members/bob-sub", key: keyA, body: `{"role":"owner"}`, status: 400, invalid: true})
	e.do(call{method: "PUT", path: "/v1/members/bob-sub", key: keyA, body: `{}`, status: 400, invalid: true})
	e.do(call{method: "PUT", path: "/v1/members/alice", key: keyA, body: `{"role":"viewer"}`, status: 409})
	e.do(call{method: "PUT", path: "/v1/members/bob-sub", body: `{"role":"editor"}`, status: 401, invalid: true})
	e.do(call{method: "DELETE", path: "/v1/members/alice", key: keyA, status: 409})
	e.do(call{method: "DELETE", path: "/v1/members/bob-sub", key: keyB, status: 404})
	e.do(call{method: "DELETE", path: "/v1/members/bob-sub", key: keyA, status: 204})
	e.do(call{method: "DELETE", path: "/v1/members/bob-sub", key: keyA, status: 404})

	// POST and GET /v1/keys; DELETE /v1/keys/{id}; POST /v1/keys/{id}/rotate
	h, b = e.do(call{method: "POST", path: "/v1/keys", key: keyA, body: `{"role":"viewer","note":"ci","expires_in_days":90}`, status: 201})
	assert.Equal(t, "no-store", h.Get("Cache-Control"))
	var newKey struct{ Key, ID string }
	require.NoError(t, json.Unmarshal(b, &newKey))
	e.do(call{method: "POST", path: "/v1/keys", key: keyA, status: 201})
	e.do(call{method: "POST", path: "/v1/keys", key: keyA, body: `{"role":"owner"}`, status: 400, invalid: true})
	e.do(call{method: "POST", path: "/v1/keys", key: keyA, body: `{"expires_in_days":0}`, status: 400, invalid: true})
	e.do(call{method: "POST", path: "/v1/keys", key: "nobody", status: 403})
	e.do(call{method: "POST", path: "/v1/keys", status: 401, invalid: true})
	_, b = get("/v1/keys", keyA, 200, false)
	assert.Contains(t, string(b), newKey.ID)
	assert.NotContains(t, string(b), newKey.Key)
	_, b = get("/v1/keys", keyB, 200, false)
	assert.NotContains(t, string(b), newKey.ID, "another workspace's keys")
	get("/v1/keys", "", 401, true)
	_, b = e.do(call{method: "POST", path: "/v1/keys/" + newKey.ID + "/rotate", key: keyA, status: 201})
	var rotated struct{ ID, Replaces string }
	require.NoError(t, json.Unmarshal(b, &rotated))
	assert.Equal(t, newKey.ID, rotated.Replaces)
	e.do(call{method: "POST", path: "/v1/keys/" + newKey.ID + "/rotate", key: keyA, status: 409})
	e.do(call{method: "POST", path: "/v1/keys/" + rotated.ID + "/rotate", key: keyB, status: 404})
	e.do(call{method: "POST", path: "/v1/keys/NOTHEX00/rotate", key: keyA, status: 400, invalid: true})
	e.do(call{method: "DELETE", path: "/v1/keys/" + rotated.ID, key: keyB, status: 404})
	e.do(call{method: "DELETE", path: "/v1/keys/" + apikey.Hash(keyA)[:8], key: keyA, status: 409})
	e.do(call{method: "DELETE", path: "/v1/keys/" + rotated.ID, key: keyA, status: 204})
	e.do(call{method: "DELETE", path: "/v1/keys/" + rotated.ID, key: keyA, status: 204})
	e.do(call{method: "DELETE", path: "/v1/keys/zz", key: keyA, status: 400, invalid: true})
	e.do(call{method: "DELETE", path: "/v1/keys/" + rotated.ID, status: 401, invalid: true})

	// DELETE /v1/links/{code}
	del := func(path string, status int, headers ...string) {
		e.do(call{method: "DELETE", path: path, key: keyA, status: status, headers: headers})
	}
	del("/v1/links/"+code, 412, "If-Match", etag)
	del("/v1/links/"+code, 400, "If-Match", " , ")
	del("/v1/links/"+code, 404, "x-api-key", keyB)
	del("/v1/links/"+code, 204)
	del("/v1/links/"+code, 404)
	get("/v1/links/"+code, keyA, 404, false)
	e.clock.Add(time.Minute) // past the redirect's cache
	e.do(call{method: "GET", path: "/" + code, status: 410})
	e.do(call{method: "DELETE", path: "/v1/links/" + code, status: 401, invalid: true})

	// GET /v1/audit: every change above, newest first, paged.
	_, b = get("/v1/audit?limit=3", keyA, 200, false)
	var auditPage struct {
		Entries    []struct{ Action string }
		NextCursor string `json:"next_cursor"`
	}
	require.NoError(t, json.Unmarshal(b, &auditPage))
	require.Len(t, auditPage.Entries, 3)
	assert.Equal(t, "delete", auditPage.Entries[0].Action, "the link's delete is the newest change")
	require.NotEmpty(t, auditPage.NextCursor)
	get("/v1/audit?limit=3&cursor="+auditPage.NextCursor, keyA, 200, false)
	_, b = get("/v1/audit?target_type=webhook&actor=key:"+apikey.Hash(keyA)[:8]+"&from=2000-01-01T00:00:00Z", keyA, 200, false)
	assert.Contains(t, string(b), hook.ID)
	assert.NotContains(t, string(b), hook.Secret)
	_, b = get("/v1/audit", keyB, 200, false)
	assert.NotContains(t, string(b), hook.ID, "another workspace's log")
	get("/v1/audit?target_type=team", keyA, 400, true)
	get("/v1/audit?limit=500", keyA, 400, true)
	get("/v1/audit?cursor=bm9wZQ", keyA, 400, false)
	get("/v1/audit?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z", keyA, 400, false)
	get("/v1/audit", "", 401, true)
	get("/v1/audit", "nobody", 403, false)
	e.do(call{method: "DELETE", path: "/v1/audit", key: keyA, status: 404, invalid: true})

	// The problem types' page, without an API key.
	e.do(call{method: "GET", path: "/v1/problems", status: 200})

	// Paths the document does not have.
	e.do(call{method: "GET", path: "/v1/nothing", key: keyA, status: 404, invalid: true})
	e.do(call{method: "GET", path: "/v1/links/" + code + "/nothing", key: keyA, status: 404, invalid: true})

	t.Run("every operation was exercised", func(t *testing.T) {
		for op := range operations(t) {
			assert.NotEmpty(t, e.seen[op], "no call exercised %s", op)
		}
		statuses := map[int]bool{}
		for _, s := range e.seen {
			for st := range s {
				statuses[st] = true
			}
		}
		for _, st := range []int{200, 201, 204, 301, 302, 303, 307, 308, 400, 401, 403, 404, 405, 409, 410, 412, 413, 415, 422, 500, 503} {
			assert.True(t, statuses[st], "no call was answered %d", st)
		}
	})
}

// operations lists the document's operations as "METHOD /path".
func operations(t *testing.T) map[string]bool {
	t.Helper()
	doc, err := apispec.Load(context.Background(), apispec.Path())
	require.NoError(t, err)
	ops := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for m := range item.Operations() {
			ops[m+" "+path] = true
		}
	}
	return ops
}

// TestDocumentHasEveryRoute: the gateway's route table (every route, with
// every Handlers field set, so a route added for a new function shows up
// here) and the document's operations are the same set.
func TestDocumentHasEveryRoute(t *testing.T) {
	var h localgw.Handlers
	stub := localgw.Handler(nil)
	v := reflect.ValueOf(&h).Elem()
	for i := range v.NumField() {
		if v.Field(i).Type() == reflect.TypeOf(stub) {
			v.Field(i).Set(reflect.ValueOf(localgw.Handler(func(context.Context, events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
				return events.APIGatewayProxyResponse{}, nil
			})))
		}
	}
	var routes []string
	for _, rt := range localgw.Routes(h) {
		for _, m := range rt.Methods {
			routes = append(routes, m+" "+rt.Pattern)
		}
	}
	// The gateway answers the problems page itself, as API Gateway does,
	// and the health check is answered in front of it, as API Gateway
	// does with no function (infra/api addHealth; withHealth here and in
	// cmd/shortener-local).
	routes = append(routes, "GET /v1/problems", "GET /v1/health")
	var documented []string
	for op := range operations(t) {
		documented = append(documented, op)
	}
	sort.Strings(routes)
	sort.Strings(documented)
	assert.Equal(t, documented, routes)
}

// TestProblemTypesAreAnsweredHere: a problem's type, resolved against the
// URL of the request that got it (RFC 3986 section 5), is a page this
// deployment answers without an API key, with a section for that problem.
func TestProblemTypesAreAnsweredHere(t *testing.T) {
	e := newEnv(t)
	for _, c := range []call{
		{method: "POST", path: "/v1/links", key: keyA, body: `{"url":"ftp://example.com/f"}`, status: 400},
		{method: "GET", path: "/v1/links/nOsUcH1", key: keyA, status: 404},
		{method: "GET", path: "/v1/links", status: 401, invalid: true},
	} {
		_, b := e.do(c)
		var p struct{ Type string }
		require.NoError(t, json.Unmarshal(b, &p))
		ref, err := url.Parse(p.Type)
		require.NoError(t, err)
		base, err := url.Parse(e.srv.URL + c.path)
		require.NoError(t, err)
		page := base.ResolveReference(ref)
		require.Equal(t, base.Host, page.Host, "%s points outside this deployment", p.Type)
		require.NotEmpty(t, page.Fragment, "%s names its section", p.Type)

		h, body := e.do(call{method: "GET", path: page.Path, status: 200})
		assert.Equal(t, "text/html; charset=utf-8", h.Get("Content-Type"))
		assert.Contains(t, string(body), `id="`+page.Fragment+`"`)
	}
}

// TestQRDescriptionSaysWhatIsDeployed: the QR operation's text names the
// binary media types the API is deployed with (apigw.BinaryMediaTypes, set
// by infra/api), so a reader is not told to send an Accept that is not
// needed, nor that the API lists one it does not.
func TestQRDescriptionSaysWhatIsDeployed(t *testing.T) {
	doc, err := apispec.Load(context.Background(), apispec.Path())
	require.NoError(t, err)
	op := doc.Paths.Value("/v1/links/{code}/qr").Get
	require.NotNil(t, op)
	for _, mt := range apigw.BinaryMediaTypes {
		assert.Contains(t, op.Description, "`"+mt+"`", "the deployed binary media type %s is named", mt)
	}
	if !slices.Contains(apigw.BinaryMediaTypes, "image/png") {
		assert.NotContains(t, op.Description, "lists image/png", "the API does not list image/png")
	}
}

// TestEveryRoutedOperationDeclaresItsPathsMethodNotAllowed: every
// operation of every path the gateway routes declares the MethodNotAllowed
// problem, with its Allow header, as the functions answer a method they
// are invoked with and do not take. The gateway itself never answers it:
// API Gateway does not route a method a path does not list (checked by
// Checker).
func TestEveryRoutedOperationDeclaresItsPathsMethodNotAllowed(t *testing.T) {
	doc, err := apispec.Load(context.Background(), apispec.Path())
	require.NoError(t, err)
	mna := doc.Components.Responses["MethodNotAllowed"]
	require.NotNil(t, mna)
	assert.Contains(t, mna.Value.Headers, "Allow")
	for path, item := range doc.Paths.Map() {
		if path == "/v1/health" {
			continue // answered in front of the gateway, which routes it nowhere
		}
		for m, op := range item.Operations() {
			r := op.Responses.Status(http.StatusMethodNotAllowed)
			if assert.NotNil(t, r, "%s %s declares 405", m, path) {
				assert.Contains(t, r.Value.Headers, "Allow", "%s %s: its 405 names the methods in Allow", m, path)
			}
		}
	}
}
