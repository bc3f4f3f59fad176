package createfn

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/eventtest"
	"github.com/shortlink-dev/shortener/internal/logtest"
	"github.com/shortlink-dev/shortener/shared/apigw/apigwtest"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkapi"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/metrics"
)

var now = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// scriptedCodes hands out the codes it was given, then fails.
type scriptedCodes struct {
	codes []string
	calls atomic.Int32
}

func (s *scriptedCodes) Next() (string, error) {
	i := int(s.calls.Add(1)) - 1
	if i >= len(s.codes) {
		return "", fmt.Errorf("no code %d scripted", i)
	}
	return s.codes[i], nil
}

func (s *scriptedCodes) Length() int { return 7 }

// flakyStore fails the first failCreates creates with err, then behaves.
type flakyStore struct {
	linkstore.Store
	failCreates atomic.Int32
	err         error
}

func (f *flakyStore) Create(ctx context.Context, l link.Link, idem *linkstore.Idempotency) error {
	if f.failCreates.Add(-1) >= 0 {
		return f.err
	}
	return f.Store.Create(ctx, l, idem)
}

type fixture struct {
	h       *Handler
	store   *linkstore.Memory
	codes   *scriptedCodes
	metrics *logtest.Buffer
}

// testConfig is the configuration the tests' handlers run under: short
// links on sho.rt, the rules' other limits left to their defaults.
var testConfig = config.Config{BaseURL: "https://sho.rt", ShortDomains: []string{"sho.rt"}, CodeLength: 7}

// newHandler is New(o) under testConfig, resolving the fixtures' keys and
// logging nowhere.
func newHandler(t testing.TB, o Options) *Handler {
	t.Helper()
	o.Config, o.Owners, o.Log = testConfig, testOwners, slog.New(slog.NewTextHandler(io.Discard, nil))
	h, err := New(o)
	require.NoError(t, err)
	return h
}

func newFixture(t *testing.T, codes ...string) *fixture {
	t.Helper()
	f := &fixture{store: linkstore.NewMemory(func() time.Time { return now }), codes: &scriptedCodes{codes: codes}, metrics: &logtest.Buffer{}}
	f.h = newHandler(t, Options{
		Store:   f.store,
		Codes:   f.codes,
		Now:     func() time.Time { return now },
		Metrics: metrics.New(f.metrics, "Shortener", "create"),
	})
	return f
}

func event(t testing.TB, name string) events.APIGatewayProxyRequest {
	t.Helper()
	return eventtest.Load[events.APIGatewayProxyRequest](t, filepath.Join("testdata", name))
}

func TestCreateGenerated(t *testing.T) {
	f := newFixture(t, "Ab3dE5g")
	resp, err := f.h.Handle(context.Background(), event(t, "create-request.json"))
	require.NoError(t, err)
	require.Equal(t, 201, resp.StatusCode, resp.Body)
	assert.Equal(t, "application/json", resp.Headers["Content-Type"])
	assert.Equal(t, "/v1/links/Ab3dE5g", resp.Headers["Location"])

	got := apigwtest.Decode[linkapi.Link](t, resp)
	assert.Equal(t, linkapi.Link{
		Code:           "Ab3dE5g",
		ShortURL:       "https://sho.rt/Ab3dE5g",
		URL:            "https://example.com/landing?utm_source=newsletter",
		CreatedAt:      "2026-11-30T12:00:00Z",
		ExpiresAt:      now.Add(link.DefaultTTL).Format(time.RFC3339),
		RedirectStatus: 302,
	}, got)

	stored, err := f.store.Get(context.Background(), "Ab3dE5g")
	require.NoError(t, err)
	assert.Equal(t, "p6r4ocs3d1", stored.Owner, "the owner is the API key's owner in the keys table")
	assert.Equal(t, link.StatusActive, stored.Status)
	assert.Equal(t, int64(1), stored.Version)
}

func TestCreateAlias(t *testing.T) {
	f := newFixture(t)
	resp, err := f.h.Handle(context.Background(), event(t, "create-alias.json"))
	require.NoError(t, err)
	require.Equal(t, 201, resp.StatusCode, resp.Body)
	got := apigwtest.Decode[linkapi.Link](t, resp)
	assert.Equal(t, "summer-sale", got.Code, "aliases are stored lower-cased")
	assert.Equal(t, "Summer-Sale", got.Alias, "and keep their display form")
	assert.Equal(t, "https://sho.rt/Summer-Sale", got.ShortURL)
	assert.Equal(t, 307, got.RedirectStatus)
	assert.Equal(t, now.Add(time.Hour).Format(time.RFC3339), got.ExpiresAt)
	assert.Zero(t, f.codes.calls.Load(), "an alias draws no code")

	again, err := f.h.Handle(context.Background(), apigwtest.WithBody(event(t, "create-alias.json"), `{"url":"https://other.example/","alias":"SUMMER-sale"}`))
	require.NoError(t, err)
	p := apigwtest.RequireProblem(t, again, 409, "")
	assert.Equal(t, `the alias "SUMMER-sale" is already taken`, p.Detail, "the problem names the alias as sent")
	assert.Equal(t, "/v1/links", p.Instance)
	stored, err := f.store.Get(context.Background(), "summer-sale")
	require.NoError(t, err)
	assert.Equal(t, "https://example.com/", stored.URL, "a taken alias is never overwritten")
}

func TestCreateBase64Body(t *testing.T) {
	f := newFixture(t, "b64code")
	resp, err := f.h.Handle(context.Background(), event(t, "create-base64.json"))
	require.NoError(t, err)
	require.Equal(t, 201, resp.StatusCode, resp.Body)
	assert.Equal(t, "https://example.com/b64", apigwtest.Decode[linkapi.Link](t, resp).URL)
}

func TestCreateRefusesBadRequests(t *testing.T) {
	tests := []struct {
		name        string
		event       string
		body        string
		contentType string
		status      int
		field       string
	}{
		{name: "no api key", event: "create-no-api-key.json", status: 401},
		{name: "not a url", body: `{"url":"example"}`, status: 400, field: "url"},
		{name: "ftp", body: `{"url":"ftp://example.com/f"}`, status: 400, field: "url"},
		{name: "url with a bidi override", body: `{"url":"https://example.com/\u202egnp.exe"}`, status: 400, field: "url"},
		{name: "user info", body: `{"url":"https://paypal.com@evil.example/"}`, status: 400, field: "url"},
		{name: "own domain", body: `{"url":"https://SHO.RT/abc"}`, status: 400, field: "url"},
		{name: "missing url", body: `{}`, status: 400, field: "url"},
		{name: "unknown field", body: `{"url":"https://e.com","labels":["x"]}`, status: 400, field: "labels"},
		{name: "wrong type", body: `{"url":"https://e.com","ttl_seconds":"60"}`, status: 400, field: "ttl_seconds"},
		{name: "reserved alias", body: `{"url":"https://e.com","alias":"Admin"}`, status: 400, field: "alias"},
		{name: "short alias", body: `{"url":"https://e.com","alias":"ab"}`, status: 400, field: "alias"},
		{name: "both expiries", body: `{"url":"https://e.com","ttl_seconds":60,"expires_at":"2030-01-01T00:00:00Z"}`, status: 400, field: "expires_at"},
		{name: "expiry in the past", body: `{"url":"https://e.com","expires_at":"2020-01-01T00:00:00Z"}`, status: 400, field: "expires_at"},
		{name: "expiry not rfc3339", body: `{"url":"https://e.com","expires_at":"tomorrow"}`, status: 400, field: "expires_at"},
		{name: "redirect 303", body: `{"url":"https://e.com","redirect_status":303}`, status: 400, field: "redirect_status"},
		{name: "status paused", body: `{"url":"https://e.com","status":"paused"}`, status: 400, field: "status"},
		{name: "status deleted", body: `{"url":"https://e.com","status":"deleted"}`, status: 400, field: "status"},
		{name: "not json", body: `url=https://e.com`, status: 400, field: "body"},
		{name: "trailing data", body: `{"url":"https://e.com"} {}`, status: 400, field: "body"},
		{name: "form content type", body: `{"url":"https://e.com"}`, contentType: "application/x-www-form-urlencoded", status: 415},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, "unused1")
			name := tt.event
			if name == "" {
				name = "create-request.json"
			}
			ev := event(t, name)
			if tt.body != "" {
				ev.Body = tt.body
			}
			if tt.contentType != "" {
				ev.Headers["Content-Type"] = tt.contentType
			}
			resp, err := f.h.Handle(context.Background(), ev)
			require.NoError(t, err)
			apigwtest.RequireProblem(t, resp, tt.status, tt.field)
			_, err = f.store.Get(context.Background(), "unused1")
			assert.ErrorIs(t, err, link.ErrNotFound, "a refused request writes nothing")
		})
	}
}

func TestCreateIdempotency(t *testing.T) {
	f := newFixture(t, "first01", "second2")
	ev := event(t, "create-idempotent.json")
	first, err := f.h.Handle(context.Background(), ev)
	require.NoError(t, err)
	require.Equal(t, 201, first.StatusCode, first.Body)

	t.Run("same key and body replays the first answer", func(t *testing.T) {
		// Same request, other spacing: still the same request.
		again, err := f.h.Handle(context.Background(), apigwtest.WithBody(ev, "{ \"url\" :\"https://example.com/landing?utm_source=newsletter\" }"))
		require.NoError(t, err)
		assert.Equal(t, 201, again.StatusCode)
		assert.Equal(t, first.Body, again.Body)
		assert.Equal(t, "true", again.Headers["Idempotent-Replayed"])
		assert.Equal(t, int32(1), f.codes.calls.Load(), "no second code drawn, so no second item")
	})
	t.Run("same key with another body is 422", func(t *testing.T) {
		other, err := f.h.Handle(context.Background(), apigwtest.WithBody(ev, `{"url":"https://example.com/other"}`))
		require.NoError(t, err)
		assert.Equal(t, 422, other.StatusCode)
		_, err = f.store.Get(context.Background(), "second2")
		assert.ErrorIs(t, err, link.ErrNotFound)
	})
	t.Run("same key with another status is 422, as with another URL", func(t *testing.T) {
		other, err := f.h.Handle(context.Background(), apigwtest.WithBody(ev, `{"url":"https://example.com/landing?utm_source=newsletter","status":"disabled"}`))
		require.NoError(t, err)
		assert.Equal(t, 422, other.StatusCode)
		stored, err := f.store.Get(context.Background(), "first01")
		require.NoError(t, err)
		assert.Equal(t, link.StatusActive, stored.Status, "the first link stands as created")
	})
	t.Run("another owner's same key is a new request", func(t *testing.T) {
		ev := ev
		ev.RequestContext.Identity.APIKey = "someone-elses-key"
		resp, err := f.h.Handle(context.Background(), ev)
		require.NoError(t, err)
		assert.Equal(t, 201, resp.StatusCode)
		assert.Equal(t, "second2", apigwtest.Decode[linkapi.Link](t, resp).Code)
	})
	t.Run("a malformed key is 400", func(t *testing.T) {
		ev := ev
		ev.Headers = map[string]string{"Idempotency-Key": "has space", "Content-Type": "application/json"}
		resp, err := f.h.Handle(context.Background(), ev)
		require.NoError(t, err)
		apigwtest.RequireProblem(t, resp, 400, "Idempotency-Key")
	})
}

func TestCreateRetriesCollisions(t *testing.T) {
	f := newFixture(t, "taken01", "taken02", "fresh03")
	for _, c := range []string{"taken01", "taken02"} {
		require.NoError(t, f.store.Create(context.Background(), link.Link{Code: c, Status: link.StatusActive}, nil))
	}
	resp, err := f.h.Handle(context.Background(), event(t, "create-request.json"))
	require.NoError(t, err)
	require.Equal(t, 201, resp.StatusCode, resp.Body)
	assert.Equal(t, "fresh03", apigwtest.Decode[linkapi.Link](t, resp).Code)

	recs := f.metrics.Lines(t)
	require.Len(t, recs, 1, "one metrics record a request")
	assert.Equal(t, 2.0, recs[0]["CodeCollisions"], "each collision is counted")
}

func TestCreateStopsWhenCollisionsPersist(t *testing.T) {
	codes := make([]string, DefaultMaxAttempts)
	f := newFixture(t)
	for i := range codes {
		codes[i] = fmt.Sprintf("taken%02d", i)
		require.NoError(t, f.store.Create(context.Background(), link.Link{Code: codes[i]}, nil))
	}
	f.codes.codes = append(codes, "neverused")
	resp, err := f.h.Handle(context.Background(), event(t, "create-request.json"))
	require.NoError(t, err)
	p := apigwtest.RequireProblem(t, resp, 500, "")
	assert.Empty(t, p.Detail, "internal errors are not explained to clients")
	assert.Equal(t, int32(DefaultMaxAttempts), f.codes.calls.Load())
}

func TestCreateUnavailableIsRetryable(t *testing.T) {
	f := newFixture(t, "code001", "code002")
	flaky := &flakyStore{Store: f.store, err: fmt.Errorf("put: %w", link.ErrUnavailable)}
	flaky.failCreates.Store(1)
	f.h.Store = flaky
	ev := event(t, "create-idempotent.json")

	resp, err := f.h.Handle(context.Background(), ev)
	require.NoError(t, err)
	assert.Equal(t, 503, resp.StatusCode)
	assert.Equal(t, "1", resp.Headers["Retry-After"])

	retry, err := f.h.Handle(context.Background(), ev)
	require.NoError(t, err)
	require.Equal(t, 201, retry.StatusCode, retry.Body)
	replay, err := f.h.Handle(context.Background(), ev)
	require.NoError(t, err)
	assert.Equal(t, retry.Body, replay.Body, "the retry and every later one name the same link")
}

// TestCreateNeverIssuesADeadLink: an expires_at a fraction of a second
// ahead is stored to the second; if that second is already here the
// request is refused, never answered 201 for a link that then redirects 410.
func TestCreateNeverIssuesADeadLink(t *testing.T) {
	clock := now.Add(700 * time.Millisecond)
	tests := []struct {
		name      string
		expiresAt string
		status    int
		stored    string
	}{
		{name: "stored in the past", expiresAt: "2026-11-30T12:00:00.9Z", status: 400},
		{name: "stored as the next second", expiresAt: "2026-11-30T12:00:01.2Z", status: 201, stored: "2026-11-30T12:00:01Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, "dead001")
			f.h.Now = func() time.Time { return clock }
			resp, err := f.h.Handle(context.Background(), apigwtest.WithBody(event(t, "create-request.json"),
				`{"url":"https://example.com/soon","expires_at":"`+tt.expiresAt+`"}`))
			require.NoError(t, err)
			require.Equal(t, tt.status, resp.StatusCode, resp.Body)
			l, err := f.store.Get(context.Background(), "dead001")
			if tt.status != 201 {
				apigwtest.RequireProblem(t, resp, tt.status, "expires_at")
				assert.ErrorIs(t, err, link.ErrNotFound)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, link.Redirect, l.Resolve(clock), "the new link redirects")
			assert.Equal(t, tt.stored, l.ExpiresAt.Format(time.RFC3339Nano))
			assert.Equal(t, tt.stored, apigwtest.Decode[map[string]any](t, resp)["expires_at"], "the answer shows what is stored")
		})
	}
}
