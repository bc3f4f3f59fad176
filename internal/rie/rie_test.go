package rie_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/internal/rie"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/dynamo/packedclicks"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/reclaimflow"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

const (
	module = "github.com/shortlink-dev/shortener"
	// trivial is the baseline function's name among the builds.
	trivial = "trivial"
	// owner is the owner of the API Gateway fixtures' key in the keys
	// table (newTables puts it there).
	owner = "p6r4ocs3d1"
)

// workDir holds the builds of this test binary; TestMain removes it.
var workDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "shortener-rie-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	workDir = dir
	testenv.Main(m)
	os.RemoveAll(dir)
}

// artifacts are the emulator and every bootstrap, built once per binary.
type artifacts struct {
	rie        string
	bootstraps map[string]string // function name (and trivial) -> path
}

var (
	buildOnce sync.Once
	built     artifacts
	buildErr  error
)

// functions lists the functions the repository builds: every
// functions/<name> with a main.go, as `make build` does.
func functions(t testing.TB) []string {
	t.Helper()
	entries, err := os.ReadDir("../../functions")
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join("../../functions", e.Name(), "main.go")); err == nil {
			names = append(names, e.Name())
		}
	}
	require.NotEmpty(t, names)
	return names
}

func build(t testing.TB) artifacts {
	t.Helper()
	buildOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
		defer cancel()
		pkgs := []string{module + "/internal/rie/testdata/trivial"}
		for _, fn := range functions(t) {
			pkgs = append(pkgs, module+"/functions/"+fn)
		}
		built.bootstraps, buildErr = rie.Build(ctx, filepath.Join(workDir, "build"), pkgs...)
		if buildErr == nil {
			built.rie, buildErr = rie.Install(ctx, filepath.Join(workDir, "bin"))
		}
	})
	require.NoError(t, buildErr)
	return built
}

// env is the environment Lambda would give function fn, with its AWS
// calls sent to the emulators and nothing read from this machine's AWS
// configuration.
func env(t testing.TB, fn string, extra map[string]string) map[string]string {
	t.Helper()
	home := filepath.Join(workDir, "home")
	require.NoError(t, os.MkdirAll(home, 0o755))
	e := map[string]string{
		"AWS_LAMBDA_FUNCTION_NAME":        "shortener-" + fn,
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "256",
		"AWS_LAMBDA_FUNCTION_TIMEOUT":     "30",
		"AWS_REGION":                      emulator.Region,
		"AWS_DEFAULT_REGION":              emulator.Region,
		"AWS_ACCESS_KEY_ID":               emulator.AccessKeyID,
		"AWS_SECRET_ACCESS_KEY":           emulator.SecretAccessKey,
		// aws-sdk-go-v2's LoadDefaultConfig honours the endpoint variables,
		// the service-specific one first; the test reads back what the
		// function wrote, so a function that ignored them would fail here,
		// not reach AWS. Any other service's call fails fast, locally:
		// nothing listens on port 1.
		"AWS_ENDPOINT_URL_DYNAMODB":     testenv.DynamoDBEndpoint(t),
		"AWS_ENDPOINT_URL":              "http://127.0.0.1:1",
		"AWS_EC2_METADATA_DISABLED":     "true",
		"HOME":                          home,
		"AWS_CONFIG_FILE":               filepath.Join(home, "no-config"),
		"AWS_SHARED_CREDENTIALS_FILE":   filepath.Join(home, "no-credentials"),
		"TZ":                            "UTC",
		"SHORTENER_BASE_URL":            "https://sho.rt",
		"EDGE_PARAMETER":                "/Shortener/edge",
		"SHORTENER_TOMBSTONE_GRACE":     "720h",
		"SHORTENER_REDIRECT_DB_TIMEOUT": "2s",
	}
	for k, v := range extra {
		e[k] = v
	}
	if _, ok := e["AWS_ENDPOINT_URL_SSM"]; !ok && e["EDGE_PARAMETER"] != "" && (fn == "create" || fn == "manage") {
		// create and manage learn the distribution's own host from the
		// edge parameter even beside a custom domain (they refuse links
		// to it): the edge stack's parameter, as published.
		srv := httptest.NewServer(&ssmStandIn{params: map[string]string{
			e["EDGE_PARAMETER"]: `{"distributionId":"E2EXAMPLE12345","domainName":"d111111abcdef8.cloudfront.net"}`}})
		t.Cleanup(srv.Close)
		e["AWS_ENDPOINT_URL_SSM"] = srv.URL
	}
	return e
}

// start runs function fn under the emulator until the test ends.
func start(t testing.TB, fn string, e map[string]string) *rie.Function {
	t.Helper()
	a := build(t)
	bootstrap, ok := a.bootstraps[fn]
	require.True(t, ok, "no bootstrap built for %s", fn)
	f, err := rie.Start(context.Background(), rie.Options{RIE: a.rie, Bootstrap: bootstrap, Env: e})
	require.NoError(t, err)
	t.Cleanup(f.Stop)
	return f
}

// fixture reads a handler's test event, letting edit change it first.
func fixture(t testing.TB, fn, name string, edit func(map[string]any)) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../functions", fn, fn+"fn", "testdata", name))
	require.NoError(t, err)
	if edit == nil {
		return b
	}
	var ev map[string]any
	require.NoError(t, json.Unmarshal(b, &ev))
	edit(ev)
	b, err = json.Marshal(ev)
	require.NoError(t, err)
	return b
}

// withCode points an API Gateway event at code.
func withCode(prefix, code string) func(map[string]any) {
	return func(ev map[string]any) {
		ev["path"] = prefix + code
		ev["pathParameters"] = map[string]any{"code": code}
	}
}

func invoke(t testing.TB, f *rie.Function, payload []byte) rie.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := f.Invoke(ctx, payload)
	require.NoError(t, err)
	require.Equal(t, 200, res.Status, "emulator status; body %s\n%s", res.Body, f.Output())
	require.Empty(t, res.FunctionError(), "function error\n%s", f.Output())
	return res
}

func apiResponse(t testing.TB, res rie.Result) events.APIGatewayProxyResponse {
	t.Helper()
	var resp events.APIGatewayProxyResponse
	require.NoError(t, json.Unmarshal(res.Body, &resp), "%s", res.Body)
	return resp
}

// tables are one set of the service's tables on DynamoDB Local.
type tables struct {
	links, idem, analytics, keys, audit string
}

// fixtureKey is the API key the API Gateway fixtures carry.
const fixtureKey = "k3yV4lu3Examp1e"

func newTables(t testing.TB) tables {
	t.Helper()
	tb := tables{
		links:     testenv.UniqueName(t, "links"),
		idem:      testenv.UniqueName(t, "idem"),
		analytics: testenv.UniqueName(t, "clicks"),
		keys:      testenv.UniqueName(t, "keys"),
		audit:     testenv.UniqueName(t, "audit"),
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db := testenv.DynamoDBClient(t)
	require.NoError(t, localtable.Links(ctx, db, tb.links, tb.idem))
	require.NoError(t, localtable.Create(ctx, db, tb.analytics, tableschema.Analytics()))
	require.NoError(t, localtable.Create(ctx, db, tb.keys, tableschema.Keys()))
	require.NoError(t, localtable.Create(ctx, db, tb.audit, tableschema.Audit()))
	require.NoError(t, tb.keyStore(t).Add(ctx, apikey.Record{Hash: apikey.Hash(fixtureKey), Owner: owner,
		Status: apikey.StatusActive, CreatedAt: time.Now()}))
	return tb
}

func (tb tables) env() map[string]string {
	return map[string]string{"LINKS_TABLE": tb.links, "IDEMPOTENCY_TABLE": tb.idem, "ANALYTICS_TABLE": tb.analytics, "KEYS_TABLE": tb.keys,
		"AUDIT_TABLE": tb.audit}
}

func (tb tables) keyStore(t testing.TB) *dynamo.KeyStore {
	return dynamo.NewKeyStore(testenv.DynamoDBClient(t), dynamo.KeyConfig{Table: tb.keys, ConsistentReads: true})
}

func (tb tables) store(t testing.TB) *dynamo.LinkStore {
	return dynamo.NewLinkStore(testenv.DynamoDBClient(t), dynamo.LinkConfig{LinksTable: tb.links, IdempotencyTable: tb.idem})
}

// packagingCases are the checks of each function, by name. Every function
// under functions/ must have one.
var packagingCases = map[string]func(t *testing.T, tb tables, state *shared){
	"create":     testCreate,
	"redirect":   testRedirect,
	"originauth": testOriginAuth,
	"apiauth":    testAPIAuth,
	"manage":     testManage,
	"ttlstream":  testTTLStream,
	"reclaim":    testReclaim,
	"clicks":     testClicks,
	"stats":      testStats,
	// internal/rie/webhooks_test.go
	"webhooks":        testWebhooks,
	"webhookstream":   testWebhookStream,
	"webhookdelivery": testWebhookDelivery,
	// internal/rie/auditarchive_test.go
	"auditarchive": testAuditArchive,
}

// shared carries what one case leaves for the next (the created code).
type shared struct {
	code, url string
}

// order runs create first: redirect and manage read its link.
var order = []string{"create", "redirect", "originauth", "apiauth", "manage", "ttlstream", "reclaim", "clicks", "stats",
	"webhooks", "webhookstream", "webhookdelivery", "auditarchive"}

func TestBootstraps(t *testing.T) {
	fns := functions(t)
	for _, fn := range fns {
		assert.Contains(t, packagingCases, fn, "functions/%s has no packaging case in internal/rie", fn)
	}
	tb := newTables(t)
	var state shared
	for _, fn := range order {
		if !slices.Contains(fns, fn) {
			continue // not built yet
		}
		ok := t.Run(fn, func(t *testing.T) { packagingCases[fn](t, tb, &state) })
		if !ok && fn == "create" {
			t.Fatal("create failed; the cases after it read its link")
		}
	}
}

func TestTrivialBaseline(t *testing.T) {
	// The baseline of the cold-start figures answers through the same
	// harness, so those figures measure what they claim.
	f := start(t, trivial, env(t, trivial, nil))
	res := invoke(t, f, []byte(`{"ping":1}`))
	assert.JSONEq(t, `{"ping":1}`, string(res.Body))
	assert.Positive(t, res.Init, "the first invoke reports an init duration")
	res = invoke(t, f, []byte(`{"ping":2}`))
	assert.JSONEq(t, `{"ping":2}`, string(res.Body))
	assert.Zero(t, res.Init, "a warm invoke has no init")
}

func testCreate(t *testing.T, tb tables, state *shared) {
	f := start(t, "create", env(t, "create", tb.env()))

	res := invoke(t, f, fixture(t, "create", "create-request.json", nil))
	resp := apiResponse(t, res)
	require.Equal(t, 201, resp.StatusCode, "%s", resp.Body)
	var body struct {
		Code, ShortURL, URL string
	}
	require.NoError(t, json.Unmarshal([]byte(resp.Body), &struct {
		Code     *string `json:"code"`
		ShortURL *string `json:"short_url"`
		URL      *string `json:"url"`
	}{&body.Code, &body.ShortURL, &body.URL}))
	assert.Len(t, body.Code, 7)
	assert.Equal(t, "https://sho.rt/"+body.Code, body.ShortURL)
	assert.Equal(t, "https://example.com/landing?utm_source=newsletter", body.URL)
	assert.Positive(t, res.Init)

	// The link is in DynamoDB Local: the function's SDK went there.
	l, err := tb.store(t).Get(context.Background(), body.Code)
	require.NoError(t, err)
	assert.Equal(t, owner, l.Owner)
	assert.Equal(t, body.URL, l.URL)
	state.code, state.url = body.Code, body.URL

	// An Idempotency-Key retry answers the first link again.
	idem := fixture(t, "create", "create-idempotent.json", nil)
	first := apiResponse(t, invoke(t, f, idem))
	require.Equal(t, 201, first.StatusCode, "%s", first.Body)
	again := apiResponse(t, invoke(t, f, idem))
	require.Equal(t, 201, again.StatusCode, "%s", again.Body)
	assert.JSONEq(t, first.Body, again.Body)
	assert.Equal(t, "true", again.Headers["Idempotent-Replayed"])
}

func testRedirect(t *testing.T, tb tables, state *shared) {
	require.NotEmpty(t, state.code)
	f := start(t, "redirect", env(t, "redirect", tb.env()))

	resp := apiResponse(t, invoke(t, f, fixture(t, "redirect", "redirect-get.json", withCode("/", state.code))))
	assert.Equal(t, 302, resp.StatusCode, "%s", resp.Body)
	assert.Equal(t, state.url, resp.Headers["Location"])
	assert.Contains(t, resp.Headers["Cache-Control"], "s-maxage=")

	head := apiResponse(t, invoke(t, f, fixture(t, "redirect", "redirect-head.json", withCode("/", state.code))))
	assert.Equal(t, 302, head.StatusCode)
	assert.Empty(t, head.Body)

	unknown := apiResponse(t, invoke(t, f, fixture(t, "redirect", "redirect-get.json", withCode("/", "Zz9Zz9Z"))))
	assert.Equal(t, 404, unknown.StatusCode)
}

func testManage(t *testing.T, tb tables, state *shared) {
	require.NotEmpty(t, state.code)
	f := start(t, "manage", env(t, "manage", tb.env()))

	resp := apiResponse(t, invoke(t, f, fixture(t, "manage", "get-link.json", withCode("/v1/links/", state.code))))
	require.Equal(t, 200, resp.StatusCode, "%s", resp.Body)
	var body map[string]any
	require.NoError(t, json.Unmarshal([]byte(resp.Body), &body))
	assert.Equal(t, state.code, body["code"])
	assert.Equal(t, state.url, body["url"])

	// The owner outlives its keys: another key of the same owner, which
	// API Gateway knows by another apiKeyId (a rotated key, or the same
	// owner's key in another Region), sees the link; a revoked key of the
	// owner is refused with a 403 problem.
	ctx := context.Background()
	second, _, err := apikey.Issue(ctx, tb.keyStore(t), nil, owner, "", "", time.Now())
	require.NoError(t, err)
	revoked, _, err := apikey.Issue(ctx, tb.keyStore(t), nil, owner, "", "", time.Now())
	require.NoError(t, err)
	_, err = tb.keyStore(t).Revoke(ctx, apikey.Hash(revoked), time.Now())
	require.NoError(t, err)
	asKey := func(key, keyID string) func(map[string]any) {
		return func(ev map[string]any) {
			withCode("/v1/links/", state.code)(ev)
			identity := ev["requestContext"].(map[string]any)["identity"].(map[string]any)
			identity["apiKey"], identity["apiKeyId"] = key, keyID
		}
	}
	resp = apiResponse(t, invoke(t, f, fixture(t, "manage", "get-link.json", asKey(second, "s3c0nd1d00"))))
	assert.Equal(t, 200, resp.StatusCode, "another key of the owner sees the link: %s", resp.Body)
	resp = apiResponse(t, invoke(t, f, fixture(t, "manage", "get-link.json", asKey(revoked, "r3v0k3d100"))))
	assert.Equal(t, 403, resp.StatusCode, "a revoked key: %s", resp.Body)
	assert.Equal(t, "application/problem+json", resp.Headers["Content-Type"])
}

func testTTLStream(t *testing.T, tb tables, _ *shared) {
	f := start(t, "ttlstream", env(t, "ttlstream", tb.env()))

	res := invoke(t, f, fixture(t, "ttlstream", "ttl-remove.json", nil))
	var resp events.DynamoDBEventResponse
	require.NoError(t, json.Unmarshal(res.Body, &resp), "%s", res.Body)
	assert.Empty(t, resp.BatchItemFailures)

	ts, err := tb.store(t).GetTombstone(context.Background(), "Xk3pQ9a")
	require.NoError(t, err, "the TTL deletion left a tombstone")
	assert.Equal(t, link.ReasonExpired, ts.Reason)
	assert.Equal(t, owner, ts.PrevOwner)
	assert.WithinDuration(t, ts.TombstonedAt.Add(720*time.Hour), ts.ReclaimAfter, time.Second)

	// A user's deletion is not TTL's: no tombstone.
	res = invoke(t, f, fixture(t, "ttlstream", "user-remove.json", nil))
	require.NoError(t, json.Unmarshal(res.Body, &resp), "%s", res.Body)
	assert.Empty(t, resp.BatchItemFailures)
}

func testReclaim(t *testing.T, tb tables, _ *shared) {
	past := time.Now().Add(-40 * 24 * time.Hour)
	written, err := tb.store(t).Tombstone(context.Background(), link.Tombstone{
		Code: "Rc1aimMe", TombstonedAt: past, ReclaimAfter: past.Add(30 * 24 * time.Hour), Reason: link.ReasonExpired,
	})
	require.NoError(t, err)
	require.True(t, written)
	f := start(t, "reclaim", env(t, "reclaim", tb.env()))

	res := invoke(t, f, []byte(`{"total":5}`))
	var out reclaimflow.Output
	require.NoError(t, json.Unmarshal(res.Body, &out), "%s", res.Body)
	assert.Equal(t, reclaimflow.Output{Reclaimed: 1, Total: 6}, out)
	_, err = tb.store(t).GetTombstone(context.Background(), "Rc1aimMe")
	assert.ErrorIs(t, err, link.ErrNotFound, "the due tombstone was released")
}

func testClicks(t *testing.T, tb tables, _ *shared) {
	f := start(t, "clicks", env(t, "clicks", tb.env()))
	ev := fixture(t, "clicks", "kinesis-clicks.json", nil)

	res := invoke(t, f, ev)
	var resp events.KinesisEventResponse
	require.NoError(t, json.Unmarshal(res.Body, &resp), "%s", res.Body)
	assert.Empty(t, resp.BatchItemFailures)
	// The same batch again (a retry) counts nothing twice.
	res = invoke(t, f, ev)
	require.NoError(t, json.Unmarshal(res.Body, &resp), "%s", res.Body)
	assert.Empty(t, resp.BatchItemFailures)

	// The layout the function writes by default (SHORTENER_CLICK_STORE).
	store := packedclicks.New(testenv.DynamoDBClient(t), packedclicks.Config{Table: tb.analytics})
	day := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	points, err := store.Series(context.Background(), "Ab3dE5g", clickstore.Day, day, day.Add(24*time.Hour))
	require.NoError(t, err)
	require.Len(t, points, 1)
	assert.Equal(t, clickstore.Counts{Total: 28, Human: 20, Bot: 8}, points[0].Counts)
}

func testStats(t *testing.T, tb tables, _ *shared) {
	// The clicks case counted the fixture's clicks on Ab3dE5g; the stats
	// fixture asks for that link's 12:00-14:00 hours. Counts start at the
	// link's creation, so the link predates them.
	created := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	require.NoError(t, tb.store(t).Create(context.Background(), link.Link{
		Code: "Ab3dE5g", Owner: owner, URL: "https://example.com/", CreatedAt: created, UpdatedAt: created,
		ExpiresAt: time.Now().Add(24 * time.Hour).Truncate(time.Second), Status: link.StatusActive, Version: 1, RedirectStatus: 302,
	}, nil))
	f := start(t, "stats", env(t, "stats", tb.env()))

	resp := apiResponse(t, invoke(t, f, fixture(t, "stats", "stats-request.json", nil)))
	require.Equal(t, 200, resp.StatusCode, "%s", resp.Body)
	var body struct {
		Totals struct{ Total, Human, Bot int64 } `json:"totals"`
		Series []struct {
			Total int64 `json:"total"`
		} `json:"series"`
	}
	require.NoError(t, json.Unmarshal([]byte(resp.Body), &body))
	assert.Equal(t, struct{ Total, Human, Bot int64 }{28, 20, 8}, body.Totals)
	require.Len(t, body.Series, 2)
	assert.Equal(t, int64(16), body.Series[0].Total)
	assert.Equal(t, int64(12), body.Series[1].Total)
}
