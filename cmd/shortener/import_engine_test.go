package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkapi"
)

// fakeImportAPI plays the parts of the API an import uses: the caller's
// links (listed), other owners' aliases (409 on create, 404 on GET), and
// links the list does not show yet (as just after an interrupted run).
type fakeImportAPI struct {
	mu       sync.Mutex
	listed   []linkapi.LinkDetail          // what GET /v1/links shows
	unlisted map[string]linkapi.LinkDetail // the caller's, by code, not yet listed
	others   map[string]bool               // aliases of other owners, lower-cased
	calls    []string
	keys     []string
}

func (f *fakeImportAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, r.Method+" "+r.URL.Path)
	w.Header().Set("Content-Type", "application/json")
	detail := func(code string) (linkapi.LinkDetail, bool) {
		for _, l := range f.listed {
			if l.Code == code {
				return l, true
			}
		}
		l, ok := f.unlisted[code]
		return l, ok
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/links":
		_ = json.NewEncoder(w).Encode(linkapi.LinkPage{Links: f.listed})
	case r.Method == http.MethodPost && r.URL.Path == "/v1/links/batch":
		f.keys = append(f.keys, r.Header.Get("Idempotency-Key"))
		var req struct{ Links []linkapi.CreateRequest }
		_ = json.NewDecoder(r.Body).Decode(&req)
		var out linkapi.BatchResponse
		for i, c := range req.Links {
			code := strings.ToLower(c.Alias)
			if code == "" {
				code = fmt.Sprintf("gen%04d", len(f.unlisted))
			}
			if _, taken := detail(code); taken || f.others[code] {
				out.Results = append(out.Results, linkapi.BatchResult{Index: i, Status: 409, Problem: json.RawMessage(`{"status":409,"title":"Already taken","detail":"the alias is already taken"}`)})
				continue
			}
			l := linkapi.LinkDetail{Link: linkapi.Link{Code: code, Alias: c.Alias, ShortURL: "https://sho.rt/" + code, URL: c.URL, RedirectStatus: 302}, Status: "active", Version: 1}
			if c.Status != nil {
				l.Status = link.Status(*c.Status)
			}
			f.unlisted[code] = l
			link := l.Link
			out.Results = append(out.Results, linkapi.BatchResult{Index: i, Status: 201, Link: &link})
		}
		_ = json.NewEncoder(w).Encode(out)
	case strings.HasPrefix(r.URL.Path, "/v1/links/"):
		code := strings.ToLower(strings.TrimPrefix(r.URL.Path, "/v1/links/"))
		l, ok := detail(code)
		if !ok {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(404)
			fmt.Fprint(w, `{"status":404,"title":"Not found"}`)
			return
		}
		if r.Method == http.MethodPatch {
			l.Status, l.Version = "disabled", l.Version+1
			f.unlisted[code] = l
		}
		_ = json.NewEncoder(w).Encode(l)
	default:
		w.WriteHeader(http.StatusTeapot)
	}
}

func (f *fakeImportAPI) writes() []string {
	var out []string
	for _, c := range f.calls {
		if !strings.HasPrefix(c, "GET ") {
			out = append(out, c)
		}
	}
	return out
}

func TestImportDecidesEachRow(t *testing.T) {
	saved := importBackoff
	importBackoff = []time.Duration{time.Millisecond}
	t.Cleanup(func() { importBackoff = saved })

	mine := func(code, alias, url string) linkapi.LinkDetail {
		return linkapi.LinkDetail{Link: linkapi.Link{Code: code, Alias: alias, URL: url, ShortURL: "https://sho.rt/" + code, RedirectStatus: 302, ExpiresAt: "2031-01-01T00:00:00Z"}, Status: "active", Version: 1}
	}
	newAPI := func() *fakeImportAPI {
		return &fakeImportAPI{
			listed: []linkapi.LinkDetail{
				mine("spring", "Spring", "https://example.com/spring"),
				mine("summer", "Summer", "https://example.com/summer"),
				mine("Ab3dE5g", "", "https://example.com/plain"),
			},
			unlisted: map[string]linkapi.LinkDetail{"fresh": mine("fresh", "Fresh", "https://example.com/fresh")},
			others:   map[string]bool{"carol": true},
		}
	}
	file := filepath.Join(t.TempDir(), "links.csv")
	require.NoError(t, os.WriteFile(file, []byte("url,alias,status\n"+
		"https://example.com/spring,SPRING,\n"+ // line 2: mine, same URL
		"https://example.com/elsewhere,summer,\n"+ // line 3: mine, another URL
		"https://example.com/plain,,\n"+ // line 4: a link of mine without alias has it
		"https://example.com/plain,,\n"+ // line 5: ... but only one
		"https://example.com/fresh,Fresh,\n"+ // line 6: mine, not listed yet
		"https://example.com/c,Carol,\n"+ // line 7: another owner's
		"https://example.com/off,Off,disabled\n"), 0o644)) // line 8: created disabled

	t.Run("dry run", func(t *testing.T) {
		api := newAPI()
		r := runFake(t, api, "--json", "import", "--dry-run", file)
		assert.Equal(t, exitFailed, r.code, r.stderr)
		var rep importReport
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
		var outcomes []string
		for _, row := range rep.Rows {
			outcomes = append(outcomes, row.Outcome)
		}
		assert.Equal(t, []string{"exists", "failed", "exists", "would_create", "would_create", "would_create", "would_create"}, outcomes)
		assert.Contains(t, rep.Rows[1].Problem.Detail, `"summer" is already yours, for https://example.com/summer`)
		assert.Empty(t, api.writes(), "a dry run writes nothing")
	})

	t.Run("real run", func(t *testing.T) {
		api := newAPI()
		r := runFake(t, api, "--json", "import", file)
		assert.Equal(t, exitFailed, r.code, r.stderr)
		var rep importReport
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
		var outcomes []string
		for _, row := range rep.Rows {
			outcomes = append(outcomes, fmt.Sprintf("%s %d", row.Outcome, row.Status))
		}
		assert.Equal(t, []string{"exists 200", "failed 409", "exists 200", "created 201", "exists 200", "failed 409", "created 201"}, outcomes)
		assert.Equal(t, []string{"POST /v1/links/batch"}, api.writes(), "one batch, the disabled link created disabled: never live, so no PATCH")
		assert.Equal(t, "disabled", string(api.unlisted["off"].Status))
		require.Len(t, api.keys, 1)
		assert.Regexp(t, `^import-[0-9a-f]{24}-[0-9a-f]{24}$`, api.keys[0])
	})
}

// TestImportDisablesWhatAnInterruptedRunLeftLive: a run stopped between a
// create and its disable leaves an active link for a row exported as
// disabled. The next run finds it among the caller's links and disables it
// rather than calling it done.
func TestImportDisablesWhatAnInterruptedRunLeftLive(t *testing.T) {
	live := func(code, alias, url string) linkapi.LinkDetail {
		return linkapi.LinkDetail{Link: linkapi.Link{Code: code, Alias: alias, URL: url, ShortURL: "https://sho.rt/" + code, RedirectStatus: 302}, Status: "active", Version: 1}
	}
	api := &fakeImportAPI{
		listed: []linkapi.LinkDetail{
			live("off", "Off", "https://example.com/off"),
			live("plain01", "", "https://example.com/plain-off"),
			live("stay-on", "Stay-On", "https://example.com/on"),
		},
		unlisted: map[string]linkapi.LinkDetail{},
	}
	file := filepath.Join(t.TempDir(), "links.csv")
	require.NoError(t, os.WriteFile(file, []byte("url,alias,status\n"+
		"https://example.com/off,Off,disabled\n"+
		"https://example.com/plain-off,,disabled\n"+
		"https://example.com/on,Stay-On,active\n"), 0o644))

	t.Run("dry run", func(t *testing.T) {
		r := runFake(t, api, "--json", "import", "--dry-run", file)
		assert.Equal(t, exitOK, r.code, r.stdout)
		assert.Empty(t, api.writes(), "a dry run writes nothing")
	})
	t.Run("real run", func(t *testing.T) {
		r := runFake(t, api, "--json", "import", file)
		assert.Equal(t, exitOK, r.code, r.stderr)
		var rep importReport
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
		assert.Equal(t, 3, rep.Exists)
		assert.Equal(t, []string{"PATCH /v1/links/off", "PATCH /v1/links/plain01"}, api.writes())
		assert.Equal(t, "disabled", string(api.unlisted["off"].Status))
		assert.Equal(t, "disabled", string(api.unlisted["plain01"].Status))
	})
}
