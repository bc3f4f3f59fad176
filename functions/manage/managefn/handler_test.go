package managefn

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/eventtest"
	"github.com/shortlink-dev/shortener/internal/logtest"
	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/apigw/apigwtest"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/edgecache"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkapi"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/linkstore/storetest"
	"github.com/shortlink-dev/shortener/shared/metrics"
)

var start = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// The fixtures' API key belongs to ownerA; ownerB is a second owner.
const (
	ownerA = "p6r4ocs3d1"
	ownerB = "q7s5pdt4e2"
	code   = "aB3dE5f" // the fixtures' path parameter
	grace  = 72 * time.Hour
)

var _ edgecache.Invalidator = (*edgecache.Recorder)(nil)
var _ edgecache.Invalidator = (*edgecache.CloudFront)(nil)

type fixture struct {
	h       *Handler
	store   *linkstore.Memory
	clock   *storetest.Clock
	edge    *edgecache.Recorder
	metrics *logtest.Buffer
	logs    *bytes.Buffer
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	clock := storetest.NewClock(start)
	f := &fixture{
		store:   linkstore.NewMemory(clock.Now),
		clock:   clock,
		edge:    edgecache.NewRecorder(clock.Now),
		metrics: &logtest.Buffer{},
		logs:    &bytes.Buffer{},
	}
	f.h = New(Options{
		Store:   f.store,
		Edge:    f.edge,
		Config:  config.Config{BaseURL: "https://sho.rt", ShortDomains: []string{"sho.rt"}},
		Grace:   grace,
		Now:     clock.Now,
		Log:     slog.New(slog.NewJSONHandler(f.logs, nil)),
		Metrics: metrics.New(f.metrics, "Shortener", "manage"),
		// The keys table: the fixtures' key and keyOf(ownerA) belong to
		// ownerA, keyOf(ownerB) to ownerB.
		Owners: apikey.NewResolver(apikey.NewMemory(map[string]string{
			"k3yV4lu3Examp1e": ownerA, keyOf(ownerA): ownerA, keyOf(ownerB): ownerB,
		}), apikey.ResolverOptions{}),
	})
	return f
}

// seed stores an active link created now, as the create function would.
func (f *fixture) seed(t *testing.T, code, alias, owner string) link.Link {
	t.Helper()
	now := f.clock.Now().Truncate(time.Millisecond)
	l := link.Link{
		Code:           code,
		Alias:          alias,
		URL:            "https://example.com/landing?utm_source=newsletter",
		Owner:          owner,
		CreatedAt:      now,
		UpdatedAt:      now,
		ExpiresAt:      now.Add(link.DefaultTTL).Truncate(time.Second),
		Status:         link.StatusActive,
		Version:        1,
		RedirectStatus: 302,
	}
	require.NoError(t, f.store.Create(context.Background(), l, nil))
	return l
}

// stored reads a code the way the redirect does.
func (f *fixture) stored(t *testing.T, code string) link.Link {
	t.Helper()
	l, err := f.store.Get(context.Background(), code)
	require.NoError(t, err)
	return l
}

func (f *fixture) do(t *testing.T, ev events.APIGatewayProxyRequest) events.APIGatewayProxyResponse {
	t.Helper()
	resp, err := f.h.Handle(context.Background(), ev)
	require.NoError(t, err, "the handler answers every request itself")
	assert.Equal(t, "no-store", resp.Headers["Cache-Control"], "every management answer is uncacheable")
	return resp
}

func event(t *testing.T, name string) events.APIGatewayProxyRequest {
	t.Helper()
	return eventtest.Load[events.APIGatewayProxyRequest](t, filepath.Join("testdata", name))
}

// at points a /v1/links/{code} event at another code.
func at(ev events.APIGatewayProxyRequest, code string) events.APIGatewayProxyRequest {
	ev.PathParameters = map[string]string{"code": code}
	ev.Path = "/v1/links/" + code
	ev.RequestContext.Path = "/prod/v1/links/" + code
	return ev
}

// as sends the event with an API key of owner; with none for "".
func as(ev events.APIGatewayProxyRequest, owner string) events.APIGatewayProxyRequest {
	ev.RequestContext.Identity.APIKey = keyOf(owner)
	return ev
}

// keyOf is an API key of owner in the fixture's keys table.
func keyOf(owner string) string {
	if owner == "" {
		return ""
	}
	return "key-of-" + owner + "-0123456789"
}

func withIfMatch(ev events.APIGatewayProxyRequest, v string) events.APIGatewayProxyRequest {
	return apigwtest.WithHeader(ev, "If-Match", v)
}

func TestGet(t *testing.T) {
	tests := []struct {
		name   string
		code   string
		keyID  string
		status int
		want   string // the code of the link answered
	}{
		{name: "own generated code", code: code, keyID: ownerA, status: 200, want: code},
		{name: "own alias by its key", code: "summer-sale", keyID: ownerA, status: 200, want: "summer-sale"},
		{name: "own alias in its display form", code: "Summer-Sale", keyID: ownerA, status: 200, want: "summer-sale"},
		{name: "someone else's link", code: code, keyID: ownerB, status: 404},
		{name: "someone else's alias in display form", code: "Summer-Sale", keyID: ownerB, status: 404},
		{name: "absent", code: "zZ9yY8x", keyID: ownerA, status: 404},
		{name: "tombstone", code: "gone001", keyID: ownerA, status: 404},
		{name: "not a code", code: "a.b", keyID: ownerA, status: 404},
		{name: "too short", code: "ab", keyID: ownerA, status: 404},
		{name: "reserved", code: "admin", keyID: ownerA, status: 404},
		{name: "no api key", code: code, keyID: "", status: 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.seed(t, code, "", ownerA)
			f.seed(t, "summer-sale", "Summer-Sale", ownerA)
			f.seed(t, "gone001", "", ownerA)
			require.NoError(t, f.store.Delete(context.Background(), ownerA, "gone001", 0, link.Tombstone{
				TombstonedAt: start, ReclaimAfter: start.Add(grace), Reason: link.ReasonDeleted}))

			resp := f.do(t, as(at(event(t, "get-link.json"), tt.code), tt.keyID))

			if tt.status != 200 {
				p := apigwtest.RequireProblem(t, resp, tt.status, "")
				assert.NotContains(t, resp.Headers, "ETag")
				if tt.status == 404 {
					// The same answer whatever the reason, so it tells nothing.
					assert.Equal(t, apigw.ProblemNotFound.Type, p.Type)
					assert.Empty(t, p.Detail)
				}
				return
			}
			require.Equal(t, 200, resp.StatusCode, resp.Body)
			l := f.stored(t, tt.want)
			assert.Equal(t, `"1"`, resp.Headers["ETag"])
			assert.Equal(t, "application/json", resp.Headers["Content-Type"])
			assert.Equal(t, f.h.Present.Detail(l), apigwtest.Decode[linkapi.LinkDetail](t, resp))
		})
	}
}

func TestGetBody(t *testing.T) {
	f := newFixture(t)
	f.seed(t, code, "", ownerA)

	resp := f.do(t, event(t, "get-link.json"))

	require.Equal(t, 200, resp.StatusCode, resp.Body)
	assert.JSONEq(t, `{
		"code": "aB3dE5f",
		"short_url": "https://sho.rt/aB3dE5f",
		"url": "https://example.com/landing?utm_source=newsletter",
		"created_at": "2026-11-30T12:00:00Z",
		"expires_at": "2031-11-29T12:00:00Z",
		"redirect_status": 302,
		"status": "active",
		"version": 1,
		"updated_at": "2026-11-30T12:00:00Z"
	}`, resp.Body)
}

func TestStoreFailureIsRetryable(t *testing.T) {
	f := newFixture(t)
	f.h.Store = failingStore{Store: f.store, err: fmt.Errorf("get: %w", link.ErrUnavailable)}

	resp := f.do(t, event(t, "get-link.json"))

	apigwtest.RequireProblem(t, resp, 503, "")
	assert.Equal(t, "1", resp.Headers["Retry-After"])
}

// failingStore fails every read with err.
type failingStore struct {
	Store
	err error
}

func (s failingStore) Get(context.Context, string) (link.Link, error) { return link.Link{}, s.err }

func TestListPagesNewestFirst(t *testing.T) {
	f := newFixture(t)
	var want []string
	for i := range 5 {
		l := f.seed(t, fmt.Sprintf("own%04d", i), "", ownerA)
		want = append([]string{l.Code}, want...) // newest first
		f.seed(t, fmt.Sprintf("oth%04d", i), "", ownerB)
		f.clock.Add(time.Second)
	}
	f.seed(t, "dead001", "", ownerA)
	require.NoError(t, f.store.Delete(context.Background(), ownerA, "dead001", 0, link.Tombstone{
		TombstonedAt: start, ReclaimAfter: start.Add(grace), Reason: link.ReasonDeleted}))

	var got [][]string
	cursor := ""
	for page := 0; ; page++ {
		require.Less(t, page, 5, "the cursor never ran out")
		ev := event(t, "list-links.json") // limit=2
		if cursor != "" {
			ev = apigwtest.WithQuery(ev, "limit", "2", "cursor", cursor)
		}
		resp := f.do(t, ev)
		require.Equal(t, 200, resp.StatusCode, resp.Body)
		body := apigwtest.Decode[linkapi.LinkPage](t, resp)
		var codes []string
		for _, l := range body.Links {
			codes = append(codes, l.Code)
			assert.Equal(t, f.h.Present.Detail(f.stored(t, l.Code)), l)
		}
		got = append(got, codes)
		if body.NextCursor == "" {
			assert.NotContains(t, resp.Body, "next_cursor", "the last page has no cursor")
			break
		}
		cursor = body.NextCursor
	}
	assert.Equal(t, [][]string{want[0:2], want[2:4], want[4:5]}, got, "three pages, newest first, only the caller's live links")
}

func TestListPageSize(t *testing.T) {
	tests := []struct {
		name      string
		query     []string
		wantLen   int
		wantMore  bool
		wantField string
	}{
		{name: "default 20", query: nil, wantLen: 20, wantMore: true},
		{name: "empty means default", query: []string{"limit", ""}, wantLen: 20, wantMore: true},
		{name: "1", query: []string{"limit", "1"}, wantLen: 1, wantMore: true},
		{name: "100, the maximum", query: []string{"limit", "100"}, wantLen: 25},
		{name: "0", query: []string{"limit", "0"}, wantField: "limit"},
		{name: "101", query: []string{"limit", "101"}, wantField: "limit"},
		{name: "negative", query: []string{"limit", "-1"}, wantField: "limit"},
		{name: "not a number", query: []string{"limit", "ten"}, wantField: "limit"},
		{name: "fraction", query: []string{"limit", "2.5"}, wantField: "limit"},
		{name: "garbage cursor", query: []string{"cursor", "!!!"}, wantField: "cursor"},
		{name: "cursor of an empty object", query: []string{"cursor", "e30"}, wantField: "cursor"},
	}
	f := newFixture(t)
	for i := range 25 {
		f.seed(t, fmt.Sprintf("pg%05d", i), "", ownerA)
		f.clock.Add(time.Millisecond)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := f.do(t, apigwtest.WithQuery(event(t, "list-links.json"), tt.query...))

			if tt.wantField != "" {
				apigwtest.RequireProblem(t, resp, 400, tt.wantField)
				return
			}
			require.Equal(t, 200, resp.StatusCode, resp.Body)
			page := apigwtest.Decode[linkapi.LinkPage](t, resp)
			assert.Len(t, page.Links, tt.wantLen)
			assert.Equal(t, tt.wantMore, page.NextCursor != "")
		})
	}
}

// TestListSearch: q finds the caller's links by code, alias or URL,
// case folded, and never another owner's; a q too long is a 400 naming it.
func TestListSearch(t *testing.T) {
	f := newFixture(t)
	f.seed(t, "abcdefg", "", ownerA)
	f.clock.Add(time.Second)
	f.seed(t, "summer-sale", "Summer-Sale", ownerA)
	f.clock.Add(time.Second)
	f.seed(t, "zzzzzzz", "", ownerB) // the same URL, another owner
	f.clock.Add(time.Second)
	require.NoError(t, f.store.Create(context.Background(), link.Link{
		Code: "hijklmn", URL: "https://shop.example/Autumn", Owner: ownerA, CreatedAt: f.clock.Now(), UpdatedAt: f.clock.Now(),
		ExpiresAt: f.clock.Now().Add(link.DefaultTTL), Status: link.StatusActive, Version: 1, RedirectStatus: 302,
	}, nil))

	tests := []struct {
		name, q   string
		want      []string
		wantField string
	}{
		{name: "by code", q: "BCDE", want: []string{"abcdefg"}},
		{name: "by alias", q: "sale", want: []string{"summer-sale"}},
		{name: "by URL, case folded", q: "autumn", want: []string{"hijklmn"}},
		{name: "by URL, every match newest first, only mine", q: "example.com/landing", want: []string{"summer-sale", "abcdefg"}},
		{name: "another owner's code", q: "zzzz", want: nil},
		{name: "empty is the plain list", q: "", want: []string{"hijklmn", "summer-sale", "abcdefg"}},
		{name: "too long", q: strings.Repeat("x", linkstore.MaxQueryLen+1), wantField: "q"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := f.do(t, apigwtest.WithQuery(event(t, "list-links.json"), "q", tt.q))

			if tt.wantField != "" {
				apigwtest.RequireProblem(t, resp, 400, tt.wantField)
				return
			}
			require.Equal(t, 200, resp.StatusCode, resp.Body)
			page := apigwtest.Decode[linkapi.LinkPage](t, resp)
			var got []string
			for _, l := range page.Links {
				got = append(got, l.Code)
			}
			assert.Equal(t, tt.want, got)
			assert.Empty(t, page.NextCursor)
		})
	}
}

func TestOwnerIsolation(t *testing.T) {
	f := newFixture(t)
	mine := f.seed(t, code, "", ownerA)
	alias := f.seed(t, "summer-sale", "Summer-Sale", ownerA)

	t.Run("read", func(t *testing.T) {
		theirs := f.do(t, as(event(t, "get-link.json"), ownerB))
		absent := f.do(t, as(at(event(t, "get-link.json"), "zZ9yY8x"), ownerB))
		apigwtest.RequireProblem(t, theirs, 404, "")
		apigwtest.RequireProblem(t, absent, 404, "")
		assert.Equal(t, strings.Replace(absent.Body, "zZ9yY8x", code, 1), theirs.Body,
			"someone else's link reads exactly like an absent one")
	})
	t.Run("list", func(t *testing.T) {
		resp := f.do(t, as(event(t, "list-links.json"), ownerB))
		require.Equal(t, 200, resp.StatusCode)
		assert.JSONEq(t, `{"links":[]}`, resp.Body)
	})
	t.Run("change", func(t *testing.T) {
		// Even with the right version: a 412 would tell the link exists.
		resp := f.do(t, as(withIfMatch(event(t, "patch-link.json"), `"1"`), ownerB))
		apigwtest.RequireProblem(t, resp, 404, "")
		resp = f.do(t, as(at(apigwtest.WithBody(event(t, "patch-link.json"), `{"status":"disabled"}`), "Summer-Sale"), ownerB))
		apigwtest.RequireProblem(t, resp, 404, "")
	})
	t.Run("delete", func(t *testing.T) {
		resp := f.do(t, as(event(t, "delete-link.json"), ownerB))
		apigwtest.RequireProblem(t, resp, 404, "")
		resp = f.do(t, as(withIfMatch(at(event(t, "delete-link.json"), "summer-sale"), "*"), ownerB))
		apigwtest.RequireProblem(t, resp, 404, "")
	})
	assert.Equal(t, mine, f.stored(t, code), "the first key's link is untouched")
	assert.Equal(t, alias, f.stored(t, "summer-sale"))
	assert.Empty(t, f.edge.Invalidations(), "nothing changed, nothing invalidated")
}

func TestPatchEachField(t *testing.T) {
	later := start.Add(time.Minute)
	tests := []struct {
		name   string
		body   string
		change func(l *link.Link)
	}{
		{name: "url, normalised", body: `{"url":"HTTPS://Example.COM/Spring"}`,
			change: func(l *link.Link) { l.URL = "https://example.com/Spring" }},
		{name: "expires_at", body: `{"expires_at":"2027-06-01T08:30:00+02:00"}`,
			change: func(l *link.Link) { l.ExpiresAt = time.Date(2027, 6, 1, 6, 30, 0, 0, time.UTC) }},
		{name: "expires_at to the TTL's second", body: `{"expires_at":"2027-06-01T06:30:00.75Z"}`,
			change: func(l *link.Link) { l.ExpiresAt = time.Date(2027, 6, 1, 6, 30, 0, 0, time.UTC) }},
		{name: "ttl_seconds", body: `{"ttl_seconds":3600}`,
			change: func(l *link.Link) { l.ExpiresAt = later.Add(time.Hour) }},
		{name: "redirect_status", body: `{"redirect_status":308}`,
			change: func(l *link.Link) { l.RedirectStatus = 308 }},
		{name: "status disabled", body: `{"status":"disabled"}`,
			change: func(l *link.Link) { l.Status = link.StatusDisabled }},
		{name: "several at once", body: `{"url":"https://example.org/","ttl_seconds":60,"redirect_status":301,"status":"disabled"}`,
			change: func(l *link.Link) {
				l.URL, l.ExpiresAt, l.RedirectStatus, l.Status = "https://example.org/", later.Add(time.Minute), 301, link.StatusDisabled
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			want := f.seed(t, code, "", ownerA)
			f.clock.Set(later)
			tt.change(&want)
			want.Version, want.UpdatedAt = 2, later

			resp := f.do(t, apigwtest.WithBody(event(t, "patch-link.json"), tt.body))

			require.Equal(t, 200, resp.StatusCode, resp.Body)
			assert.Equal(t, `"2"`, resp.Headers["ETag"])
			assert.Equal(t, f.h.Present.Detail(want), apigwtest.Decode[linkapi.LinkDetail](t, resp))
			assert.Equal(t, want, f.stored(t, code))
			assert.Equal(t, []edgecache.Invalidation{{At: later, Paths: []string{"/" + code}}}, f.edge.Invalidations())
			assert.Equal(t, 1.0, f.metrics.Sums(t)[edgecache.MetricPaths])
		})
	}
}

func TestPatchURLServesTheNewTarget(t *testing.T) {
	f := newFixture(t)
	f.seed(t, code, "", ownerA)

	resp := f.do(t, event(t, "patch-link.json")) // If-Match "1", a new url

	require.Equal(t, 200, resp.StatusCode, resp.Body)
	l := f.stored(t, code)
	assert.Equal(t, "https://example.com/spring?utm_source=newsletter", l.URL)
	assert.Equal(t, link.Redirect, l.Resolve(f.clock.Now()))
	assert.Equal(t, []string{"/" + code}, f.edge.Paths())
}

func TestPatchRefusesBadRequests(t *testing.T) {
	tests := []struct {
		name        string
		body        string
		ifMatch     string
		contentType string
		status      int
		field       string
	}{
		{name: "url not http", body: `{"url":"ftp://example.com/f"}`, status: 400, field: "url"},
		{name: "url empty", body: `{"url":""}`, status: 400, field: "url"},
		{name: "url with a bidi override", body: `{"url":"https://example.com/\u202egnp.exe"}`, status: 400, field: "url"},
		{name: "url to the short domain", body: `{"url":"https://SHO.RT/x"}`, status: 400, field: "url"},
		{name: "url a number", body: `{"url":5}`, status: 400, field: "url"},
		{name: "expires_at in the past", body: `{"expires_at":"2020-01-01T00:00:00Z"}`, status: 400, field: "expires_at"},
		{name: "expires_at not RFC 3339", body: `{"expires_at":"next week"}`, status: 400, field: "expires_at"},
		{name: "expires_at beyond 10 years", body: `{"expires_at":"2040-01-01T00:00:00Z"}`, status: 400, field: "expires_at"},
		{name: "both expiries", body: `{"expires_at":"2027-01-01T00:00:00Z","ttl_seconds":60}`, status: 400, field: "expires_at"},
		{name: "ttl zero", body: `{"ttl_seconds":0}`, status: 400, field: "ttl_seconds"},
		{name: "ttl a string", body: `{"ttl_seconds":"60"}`, status: 400, field: "ttl_seconds"},
		{name: "redirect 303", body: `{"redirect_status":303}`, status: 400, field: "redirect_status"},
		{name: "status deleted", body: `{"status":"deleted"}`, status: 400, field: "status"},
		{name: "status tombstone", body: `{"status":"tombstone"}`, status: 400, field: "status"},
		{name: "status upper-case", body: `{"status":"ACTIVE"}`, status: 400, field: "status"},
		{name: "status empty", body: `{"status":""}`, status: 400, field: "status"},
		{name: "alias cannot change", body: `{"alias":"new-name"}`, status: 400, field: "alias"},
		{name: "code cannot change", body: `{"code":"other01"}`, status: 400, field: "code"},
		// An import's click total is set with the link, never after.
		{name: "imported clicks cannot change", body: `{"imported_clicks":5}`, status: 400, field: "imported_clicks"},
		{name: "imported clicks beside a change", body: `{"url":"https://example.com/","imported_clicks":null}`, status: 400, field: "imported_clicks"},
		{name: "unknown field", body: `{"url":"https://example.com/","title":"x"}`, status: 400, field: "title"},
		{name: "empty patch", body: `{}`, status: 400, field: "body"},
		{name: "only nulls", body: `{"url":null,"status":null}`, status: 400, field: "body"},
		{name: "null", body: `null`, status: 400, field: "body"},
		{name: "no body", body: ``, status: 400, field: "body"},
		{name: "array", body: `[]`, status: 400, field: "body"},
		{name: "trailing data", body: `{"status":"disabled"} {}`, status: 400, field: "body"},
		{name: "If-Match without a tag", body: `{"status":"disabled"}`, ifMatch: " , ", status: 400, field: "If-Match"},
		{name: "form body", body: `{"status":"disabled"}`, contentType: "application/x-www-form-urlencoded", status: 415},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			before := f.seed(t, code, "", ownerA)
			ev := apigwtest.WithBody(event(t, "patch-link.json"), tt.body)
			if tt.ifMatch != "" {
				ev = withIfMatch(ev, tt.ifMatch)
			}
			if tt.contentType != "" {
				ev.Headers["Content-Type"] = tt.contentType
			}

			resp := f.do(t, ev)

			apigwtest.RequireProblem(t, resp, tt.status, tt.field)
			assert.Equal(t, before, f.stored(t, code), "a refused patch writes nothing")
			assert.Empty(t, f.edge.Invalidations())
		})
	}
}

func TestPatchIfMatch(t *testing.T) {
	tests := []struct {
		ifMatch string
		status  int
	}{
		{ifMatch: "", status: 200},
		{ifMatch: `"1"`, status: 200},
		{ifMatch: `W/"1"`, status: 200},
		{ifMatch: `1`, status: 200},
		{ifMatch: `*`, status: 200},
		{ifMatch: `"7", "1"`, status: 200},
		{ifMatch: `"2"`, status: 412},
		{ifMatch: `W/"0"`, status: 412},
		{ifMatch: `"abc"`, status: 412},
		{ifMatch: `"1`, status: 412},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.ifMatch), func(t *testing.T) {
			f := newFixture(t)
			before := f.seed(t, code, "", ownerA)

			resp := f.do(t, withIfMatch(event(t, "patch-link.json"), tt.ifMatch))

			if tt.status == 412 {
				p := apigwtest.RequireProblem(t, resp, 412, "")
				assert.Contains(t, p.Detail, `"1"`, "the 412 names the current version")
				assert.Equal(t, before, f.stored(t, code), "a failed precondition writes nothing")
				assert.Empty(t, f.edge.Invalidations())
				return
			}
			require.Equal(t, 200, resp.StatusCode, resp.Body)
			assert.Equal(t, `"2"`, resp.Headers["ETag"])
			assert.Equal(t, int64(2), f.stored(t, code).Version)
		})
	}
}

func TestPatchVersionsIncrementAndETagFollows(t *testing.T) {
	f := newFixture(t)
	f.seed(t, code, "", ownerA)
	etag := `"1"`
	for i, body := range []string{`{"redirect_status":301}`, `{"url":"https://example.com/v3"}`, `{"status":"disabled"}`} {
		resp := f.do(t, withIfMatch(apigwtest.WithBody(event(t, "patch-link.json"), body), etag))
		require.Equal(t, 200, resp.StatusCode, resp.Body)
		etag = resp.Headers["ETag"]
		assert.Equal(t, fmt.Sprintf(`"%d"`, i+2), etag)
		assert.Equal(t, int64(i+2), apigwtest.Decode[linkapi.LinkDetail](t, resp).Version)
	}
	get := f.do(t, event(t, "get-link.json"))
	assert.Equal(t, `"4"`, get.Headers["ETag"])
	assert.Len(t, f.edge.Invalidations(), 3)
}

func TestPatchThatChangesNothingWritesNothing(t *testing.T) {
	f := newFixture(t)
	before := f.seed(t, code, "", ownerA)
	f.clock.Add(time.Minute)

	resp := f.do(t, apigwtest.WithBody(event(t, "patch-link.json"), `{"status":"active","redirect_status":302}`))

	require.Equal(t, 200, resp.StatusCode, resp.Body)
	assert.Equal(t, `"1"`, resp.Headers["ETag"])
	assert.Equal(t, before, f.stored(t, code))
	assert.Empty(t, f.edge.Invalidations())
}

func TestPatchOfAnExpiredLinkIsGone(t *testing.T) {
	f := newFixture(t)
	f.seed(t, code, "", ownerA)
	l := f.stored(t, code)
	l.ExpiresAt = start.Add(time.Hour)
	l.Version = 2
	require.NoError(t, f.store.Update(context.Background(), l, 1))
	f.clock.Add(2 * time.Hour) // expired; TTL has not removed it yet

	resp := f.do(t, apigwtest.WithBody(withIfMatch(event(t, "patch-link.json"), `"2"`), `{"ttl_seconds":86400}`))

	apigwtest.RequireProblem(t, resp, 410, "")
	assert.Equal(t, l, f.stored(t, code), "an expired link is not revived")
	get := f.do(t, event(t, "get-link.json"))
	assert.Equal(t, 200, get.StatusCode, "its owner still sees it until it is tombstoned")
	del := f.do(t, event(t, "delete-link.json"))
	assert.Equal(t, 204, del.StatusCode, "and may delete it")
}

func TestLostUpdateSequential(t *testing.T) {
	f := newFixture(t)
	f.seed(t, code, "", ownerA)
	first := apigwtest.WithBody(event(t, "patch-link.json"), `{"url":"https://example.com/first"}`)   // If-Match "1"
	second := apigwtest.WithBody(event(t, "patch-link.json"), `{"url":"https://example.com/second"}`) // If-Match "1"

	r1 := f.do(t, first)
	r2 := f.do(t, second)

	require.Equal(t, 200, r1.StatusCode, r1.Body)
	apigwtest.RequireProblem(t, r2, 412, "")
	l := f.stored(t, code)
	assert.Equal(t, "https://example.com/first", l.URL, "the second writer did not overwrite the first")
	assert.Equal(t, int64(2), l.Version)
	assert.Len(t, f.edge.Invalidations(), 1)
}

// barrierStore holds every Get until n have been made, so concurrent
// requests all read before any writes: the interleaving that loses updates
// unless the write is conditional.
type barrierStore struct {
	*linkstore.Memory
	reads   sync.WaitGroup
	allRead chan struct{}
}

func newBarrierStore(m *linkstore.Memory, n int) *barrierStore {
	s := &barrierStore{Memory: m, allRead: make(chan struct{})}
	s.reads.Add(n)
	go func() { s.reads.Wait(); close(s.allRead) }()
	return s
}

func (s *barrierStore) Get(ctx context.Context, code string) (link.Link, error) {
	l, err := s.Memory.Get(ctx, code)
	s.reads.Done()
	select {
	case <-s.allRead:
		return l, err
	case <-time.After(5 * time.Second):
		return link.Link{}, errors.New("barrier: the other request never read")
	}
}

func TestLostUpdateInterleaved(t *testing.T) {
	for _, ifMatch := range []string{`"1"`, ""} {
		t.Run(fmt.Sprintf("If-Match %q", ifMatch), func(t *testing.T) {
			f := newFixture(t)
			f.seed(t, code, "", ownerA)
			f.h.Store = newBarrierStore(f.store, 2)
			urls := []string{"https://example.com/a", "https://example.com/b"}

			resps := make([]events.APIGatewayProxyResponse, len(urls))
			var wg sync.WaitGroup
			for i, u := range urls {
				ev := withIfMatch(apigwtest.WithBody(event(t, "patch-link.json"), `{"url":"`+u+`"}`), ifMatch)
				wg.Go(func() {
					resp, err := f.h.Handle(context.Background(), ev)
					assert.NoError(t, err)
					resps[i] = resp
				})
			}
			wg.Wait()

			var winner = -1
			for i, r := range resps {
				switch r.StatusCode {
				case 200:
					require.Equal(t, -1, winner, "both writers won")
					winner = i
				case 412:
					p := apigwtest.RequireProblem(t, r, 412, "")
					assert.Contains(t, p.Detail, "changed since it was read", "the conditional write caught it, not the If-Match check")
				default:
					t.Fatalf("response %d: %d %s", i, r.StatusCode, r.Body)
				}
			}
			require.NotEqual(t, -1, winner, "one writer wins")
			l := f.stored(t, code)
			assert.Equal(t, urls[winner], l.URL)
			assert.Equal(t, int64(2), l.Version)
			assert.Len(t, f.edge.Invalidations(), 1, "only the saved change is invalidated")
		})
	}
}

func TestDelete(t *testing.T) {
	f := newFixture(t)
	f.seed(t, code, "", ownerA)
	f.clock.Add(time.Minute)
	now := f.clock.Now()

	resp := f.do(t, event(t, "delete-link.json"))

	require.Equal(t, 204, resp.StatusCode, resp.Body)
	assert.Empty(t, resp.Body)
	apigwtest.RequireProblem(t, f.do(t, event(t, "get-link.json")), 404, "")

	seen := f.stored(t, code) // what the redirect reads
	assert.Equal(t, link.StatusTombstone, seen.Status)
	assert.Equal(t, link.Gone, seen.Resolve(now))
	tomb, err := f.store.GetTombstone(context.Background(), code)
	require.NoError(t, err)
	assert.Equal(t, link.Tombstone{Code: code, PrevOwner: ownerA, TombstonedAt: now,
		ReclaimAfter: now.Add(grace), Reason: link.ReasonDeleted}, tomb)
	assert.Equal(t, []edgecache.Invalidation{{At: now, Paths: []string{"/" + code}}}, f.edge.Invalidations())

	list := f.do(t, event(t, "list-links.json"))
	assert.JSONEq(t, `{"links":[]}`, list.Body)
	apigwtest.RequireProblem(t, f.do(t, event(t, "delete-link.json")), 404, "")
	apigwtest.RequireProblem(t, f.do(t, event(t, "patch-link.json")), 410, "") // cannot be revived (TestPatchDeletedIsGone)
	assert.Len(t, f.edge.Invalidations(), 1)
}

func TestDeleteIfMatch(t *testing.T) {
	tests := []struct {
		ifMatch string
		status  int
	}{
		{ifMatch: `"3"`, status: 412},
		{ifMatch: `"1"`, status: 204},
		{ifMatch: `W/"1"`, status: 204},
		{ifMatch: `*`, status: 204},
	}
	for _, tt := range tests {
		t.Run(tt.ifMatch, func(t *testing.T) {
			f := newFixture(t)
			before := f.seed(t, code, "", ownerA)

			resp := f.do(t, withIfMatch(event(t, "delete-link.json"), tt.ifMatch))

			if tt.status == 412 {
				apigwtest.RequireProblem(t, resp, 412, "")
				assert.Equal(t, before, f.stored(t, code))
				assert.Empty(t, f.edge.Invalidations())
				return
			}
			require.Equal(t, 204, resp.StatusCode, resp.Body)
			assert.Equal(t, link.StatusTombstone, f.stored(t, code).Status)
		})
	}
}

func TestDeleteUsesTheDefaultGrace(t *testing.T) {
	f := newFixture(t)
	f.h.Grace = 0
	f.seed(t, code, "", ownerA)

	require.Equal(t, 204, f.do(t, event(t, "delete-link.json")).StatusCode)

	tomb, err := f.store.GetTombstone(context.Background(), code)
	require.NoError(t, err)
	assert.Equal(t, start.Add(link.DefaultTombstoneGrace), tomb.ReclaimAfter)
}

func TestAliasChangesInvalidateBothSpellings(t *testing.T) {
	f := newFixture(t)
	f.seed(t, "summer-sale", "Summer-Sale", ownerA)

	patch := f.do(t, at(apigwtest.WithBody(event(t, "patch-link.json"), `{"status":"disabled"}`), "Summer-Sale"))
	require.Equal(t, 200, patch.StatusCode, patch.Body)
	del := f.do(t, at(event(t, "delete-link.json"), "summer-sale"))
	require.Equal(t, 204, del.StatusCode, del.Body)

	invs := f.edge.Invalidations()
	require.Len(t, invs, 2)
	for _, inv := range invs {
		assert.Equal(t, []string{"/summer-sale", "/Summer-Sale"}, inv.Paths)
	}
	assert.Equal(t, 4.0, f.metrics.Sums(t)[edgecache.MetricPaths])
}

func TestEdgePaths(t *testing.T) {
	tests := []struct {
		name string
		l    link.Link
		want []string
	}{
		{name: "generated code", l: link.Link{Code: "aB3dE5f"}, want: []string{"/aB3dE5f"}},
		{name: "lower-case alias", l: link.Link{Code: "my-link", Alias: "my-link"}, want: []string{"/my-link"}},
		{name: "alias shown in its display form", l: link.Link{Code: "summer-sale", Alias: "Summer-Sale"}, want: []string{"/summer-sale", "/Summer-Sale"}},
		// Shown as its key (it could be a generated code of some allowed
		// length); an older version may have cached the spelling its
		// owner typed.
		{name: "alias shown as its key", l: link.Link{Code: "promo25", Alias: "Promo25"}, want: []string{"/promo25", "/Promo25"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.l.EdgePaths())
		})
	}
}

func TestDisableThenEnable(t *testing.T) {
	f := newFixture(t)
	f.seed(t, code, "", ownerA)

	resp := f.do(t, apigwtest.WithBody(event(t, "patch-link.json"), `{"status":"disabled"}`))
	require.Equal(t, 200, resp.StatusCode, resp.Body)
	assert.Equal(t, link.StatusDisabled, apigwtest.Decode[linkapi.LinkDetail](t, resp).Status)
	assert.Equal(t, link.Gone, f.stored(t, code).Resolve(f.clock.Now()), "a disabled link answers 410")

	f.clock.Add(time.Second)
	resp = f.do(t, withIfMatch(apigwtest.WithBody(event(t, "patch-link.json"), `{"status":"active"}`), resp.Headers["ETag"]))
	require.Equal(t, 200, resp.StatusCode, resp.Body)
	l := f.stored(t, code)
	assert.Equal(t, link.StatusActive, l.Status)
	assert.Equal(t, int64(3), l.Version)
	assert.Equal(t, link.Redirect, l.Resolve(f.clock.Now()), "and redirects again once enabled")
	assert.Equal(t, []string{"/" + code, "/" + code}, f.edge.Paths())
}

// brokenEdge fails or hangs every invalidation.
type brokenEdge struct {
	hang  bool
	calls int
	mu    sync.Mutex
}

func (b *brokenEdge) Invalidate(ctx context.Context, _ ...string) error {
	b.mu.Lock()
	b.calls++
	b.mu.Unlock()
	if b.hang {
		<-ctx.Done()
		return ctx.Err()
	}
	return errors.New("TooManyInvalidationsInProgress")
}

func TestInvalidationFailureDoesNotFailTheChange(t *testing.T) {
	for _, hang := range []bool{false, true} {
		t.Run(fmt.Sprintf("hang=%v", hang), func(t *testing.T) {
			f := newFixture(t)
			edge := &brokenEdge{hang: hang}
			f.h.Edge = edge
			f.h.EdgeTimeout = 20 * time.Millisecond
			f.seed(t, code, "", ownerA)

			patch := f.do(t, event(t, "patch-link.json"))
			del := f.do(t, withIfMatch(event(t, "delete-link.json"), patch.Headers["ETag"]))

			require.Equal(t, 200, patch.StatusCode, patch.Body)
			require.Equal(t, 204, del.StatusCode, del.Body)
			assert.Equal(t, link.StatusTombstone, f.stored(t, code).Status, "both changes were saved")
			assert.Equal(t, 2, edge.calls)
			assert.Equal(t, 2.0, f.metrics.Sums(t)[edgecache.MetricFailures], "each failure is counted")
			assert.Contains(t, f.logs.String(), "edge invalidation failed")
			assert.Contains(t, f.logs.String(), "5b1f3c2e-8d4a-4f6b-9c7e-1a2b3c4d5e03", "the log names the request")
		})
	}
}

func TestInvalidationOutlivesACanceledRequest(t *testing.T) {
	f := newFixture(t)
	f.seed(t, code, "", ownerA)
	ctx, cancel := context.WithCancel(context.Background())
	f.h.Store = cancelAfterUpdate{Memory: f.store, cancel: cancel}

	resp, err := f.h.Handle(ctx, event(t, "patch-link.json"))

	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode, resp.Body)
	assert.Equal(t, []string{"/" + code}, f.edge.Paths(), "a saved change is invalidated even if the caller went away")
}

// cancelAfterUpdate cancels the request's context once the write is done,
// as a client hanging up would.
type cancelAfterUpdate struct {
	*linkstore.Memory
	cancel context.CancelFunc
}

func (s cancelAfterUpdate) Update(ctx context.Context, l link.Link, expect int64) error {
	defer s.cancel()
	return s.Memory.Update(ctx, l, expect)
}

func TestRouting(t *testing.T) {
	tests := []struct {
		name   string
		ev     func(t *testing.T) events.APIGatewayProxyRequest
		status int
		allow  string
	}{
		{name: "POST on a link", status: 405, allow: "GET, PATCH, DELETE", ev: func(t *testing.T) events.APIGatewayProxyRequest {
			ev := event(t, "get-link.json")
			ev.HTTPMethod = "POST"
			return ev
		}},
		{name: "PUT on a link", status: 405, allow: "GET, PATCH, DELETE", ev: func(t *testing.T) events.APIGatewayProxyRequest {
			ev := event(t, "patch-link.json")
			ev.HTTPMethod = "PUT"
			return ev
		}},
		{name: "DELETE on the collection", status: 405, allow: "GET, POST", ev: func(t *testing.T) events.APIGatewayProxyRequest {
			ev := event(t, "list-links.json")
			ev.HTTPMethod = "DELETE"
			return ev
		}},
		{name: "unknown resource", status: 404, ev: func(t *testing.T) events.APIGatewayProxyRequest {
			ev := event(t, "get-link.json")
			ev.Resource = "/v1/things/{code}"
			return ev
		}},
		{name: "no api key", status: 401, ev: func(t *testing.T) events.APIGatewayProxyRequest {
			return as(event(t, "list-links.json"), "")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.seed(t, code, "", ownerA)

			resp := f.do(t, tt.ev(t))

			apigwtest.RequireProblem(t, resp, tt.status, "")
			assert.Equal(t, tt.allow, resp.Headers["Allow"])
			assert.Equal(t, int64(1), f.stored(t, code).Version)
		})
	}
}

func TestParseIfMatch(t *testing.T) {
	tests := []struct {
		header  string
		want    *precondition
		wantErr bool
	}{
		{header: "", want: nil},
		{header: "   ", want: nil},
		{header: `"3"`, want: &precondition{versions: []int64{3}}},
		{header: `W/"3"`, want: &precondition{versions: []int64{3}}},
		{header: `3`, want: &precondition{versions: []int64{3}}},
		{header: `*`, want: &precondition{any: true}},
		{header: ` "1" , W/"2",3 `, want: &precondition{versions: []int64{1, 2, 3}}},
		{header: `"abc"`, want: &precondition{}},
		{header: `"-1"`, want: &precondition{}},
		{header: `,`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.header, func(t *testing.T) {
			got, err := parseIfMatch(tt.header)
			if tt.wantErr {
				var fe *link.FieldError
				require.ErrorAs(t, err, &fe)
				assert.Equal(t, "If-Match", fe.Field)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestNewBuildsFromTheConfiguration(t *testing.T) {
	cfg, err := config.Load(func(name string) string {
		return map[string]string{"SHORTENER_BASE_URL": "https://sho.rt", "SHORTENER_CODE_LENGTH": "8"}[name]
	})
	require.NoError(t, err)
	clock := storetest.NewClock(start)
	store := linkstore.NewMemory(clock.Now)
	edge := edgecache.NewRecorder(clock.Now)
	owners := apikey.NewResolver(apikey.NewMemory(map[string]string{"k3yV4lu3Examp1e": ownerA}), apikey.ResolverOptions{})
	var settled []time.Duration
	h := New(Options{Store: store, Edge: edge, Config: cfg, Grace: grace, Log: slog.New(slog.DiscardHandler), Now: clock.Now, Owners: owners,
		Sleep: func(d time.Duration) { settled = append(settled, d); clock.Add(d) }})

	assert.Equal(t, linkapi.Presenter{BaseURL: "https://sho.rt"}, h.Present)
	assert.Same(t, owners, h.Owners)
	assert.Equal(t, grace, h.Grace)
	require.NoError(t, store.Create(context.Background(), link.Link{Code: "aB3dE5fG", Owner: ownerA, URL: "https://example.com/",
		CreatedAt: start, UpdatedAt: start, ExpiresAt: start.Add(time.Hour), Status: link.StatusActive, Version: 1, RedirectStatus: 302}, nil))

	resp, err := h.Handle(context.Background(), at(apigwtest.WithBody(event(t, "patch-link.json"), `{"url":"https://sho.rt/loop"}`), "aB3dE5fG"))
	require.NoError(t, err)
	apigwtest.RequireProblem(t, resp, 400, "url") // the short domain comes from the base URL
	resp, err = h.Handle(context.Background(), at(event(t, "patch-link.json"), "aB3dE5fG"))
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode, resp.Body)
	assert.Equal(t, "https://sho.rt/aB3dE5fG", apigwtest.Decode[linkapi.LinkDetail](t, resp).ShortURL)
	assert.Equal(t, []string{"/aB3dE5fG"}, edge.Paths())
	assert.Equal(t, []time.Duration{config.DefaultInvalidationSettle}, settled, "the invalidation waits out the settle time")
	assert.Equal(t, start.Add(config.DefaultInvalidationSettle), edge.Invalidations()[0].At)
}
