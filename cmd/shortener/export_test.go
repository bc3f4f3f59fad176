package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/linkapi"
	"github.com/shortlink-dev/shortener/shared/statsapi"
)

// fakeLinks serves GET /v1/links over n links, 100 a page, answering the
// statuses in fail (in order) before each page's real answer.
type fakeLinks struct {
	mu       sync.Mutex
	n        int
	fail     map[string][]int // by cursor ("" for the first page)
	requests int
	// details counts the GETs of one link (for its imported total), apart
	// from requests; links with an index in imported have one.
	details  int
	imported map[int]int64
}

func (f *fakeLinks) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if code, ok := strings.CutPrefix(r.URL.Path, "/v1/links/"); ok && r.Header.Get("x-api-key") == "k" {
		f.details++
		i, _ := strconv.Atoi(strings.TrimPrefix(code, "c"))
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(linkapi.LinkDetail{Link: linkapi.Link{Code: code, ImportedClicks: f.imported[i]}})
		return
	}
	f.requests++
	if r.URL.Path != "/v1/links" || r.Header.Get("x-api-key") != "k" {
		http.Error(w, "unexpected", http.StatusTeapot)
		return
	}
	cursor := r.URL.Query().Get("cursor")
	if st := f.fail[cursor]; len(st) > 0 {
		f.fail[cursor] = st[1:]
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(st[0])
		fmt.Fprintf(w, `{"status": %d, "title": "try later"}`, st[0])
		return
	}
	start, _ := strconv.Atoi(cursor)
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	page := linkapi.LinkPage{}
	for i := start; i < min(start+limit, f.n); i++ {
		page.Links = append(page.Links, linkapi.LinkDetail{
			Link: linkapi.Link{Code: fmt.Sprintf("c%06d", i), ShortURL: fmt.Sprintf("https://sho.rt/c%06d", i),
				URL: fmt.Sprintf("https://example.com/%d?a=1,b=2", i), CreatedAt: "2026-11-30T00:00:00Z", ExpiresAt: "2031-11-29T00:00:00Z", RedirectStatus: 302},
			Status: "active", Version: 1, UpdatedAt: "2026-11-30T00:00:00Z",
		})
	}
	if start+limit < f.n {
		page.NextCursor = strconv.Itoa(start + limit)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(page)
}

func runFake(t *testing.T, h http.Handler, args ...string) result {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	var out, errb bytes.Buffer
	env := map[string]string{"SHORTENER_ENDPOINT": srv.URL, "SHORTENER_API_KEY": "k", "HOME": t.TempDir()}
	a := newApp(strings.NewReader(""), &out, &errb, func(k string) string { return env[k] })
	a.isTerminal = func(io.Writer) bool { return false }
	code := a.run(context.Background(), args)
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

func TestExportPagesAndRetries(t *testing.T) {
	saved := pageBackoff
	pageBackoff = []time.Duration{time.Millisecond, time.Millisecond, time.Millisecond}
	t.Cleanup(func() { pageBackoff = saved })

	tests := []struct {
		name     string
		fail     map[string][]int
		wantCode int
		wantRows int
		wantReqs int
	}{
		{name: "three pages", wantCode: exitOK, wantRows: 250, wantReqs: 3},
		{name: "a 429 and a 503 are retried", fail: map[string][]int{"100": {429, 503}}, wantCode: exitOK, wantRows: 250, wantReqs: 5},
		{name: "a page that keeps failing stops the export", fail: map[string][]int{"200": {502, 502, 502, 502}}, wantCode: exitUnavailable, wantReqs: 6},
		{name: "a 4xx is not retried", fail: map[string][]int{"": {403}}, wantCode: exitFailed, wantReqs: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeLinks{n: 250, fail: tt.fail}
			file := filepath.Join(t.TempDir(), "links.csv")
			r := runFake(t, f, "export", "-o", file)
			assert.Equal(t, tt.wantCode, r.code, r.stderr)
			assert.Equal(t, tt.wantReqs, f.requests)
			b, err := os.ReadFile(file)
			if tt.wantCode != exitOK {
				assert.True(t, os.IsNotExist(err), "no file from a failed export")
				entries, _ := os.ReadDir(filepath.Dir(file))
				assert.Empty(t, entries, "no temporary file left behind")
				return
			}
			require.NoError(t, err)
			rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
			require.NoError(t, err)
			require.Len(t, rows, 1+tt.wantRows)
			assert.Equal(t, exportColumns, rows[0])
			assert.Equal(t, []string{"c000000", "", "https://example.com/0?a=1,b=2", "https://sho.rt/c000000", "active", "302", "2026-11-30T00:00:00Z", "2026-11-30T00:00:00Z", "2031-11-29T00:00:00Z", "1",
				"", "", "", "", "", ""}, rows[1], "a link without redirect rules leaves their cells empty")
			assert.Equal(t, "c000249", rows[250][0], "every page, in order")
		})
	}
}

// TestExportImportedClicks: the export reads each link for the imported
// total a listing leaves out, unless told not to.
func TestExportImportedClicks(t *testing.T) {
	f := &fakeLinks{n: 150, imported: map[int]int64{1: 48213, 120: 7}}
	r := runFake(t, f, "export")
	require.Equal(t, exitOK, r.code, r.stderr)
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	require.NoError(t, err)
	col := len(exportColumns) - 1
	require.Equal(t, "imported_clicks", rows[0][col])
	assert.Equal(t, "", rows[1][col], "none: an empty cell")
	assert.Equal(t, "48213", rows[2][col])
	assert.Equal(t, "7", rows[121][col])
	assert.Equal(t, 150, f.details, "one read a link")
	assert.Equal(t, 2, f.requests, "and the listing's pages as before")

	f = &fakeLinks{n: 150, imported: map[int]int64{1: 48213}}
	r = runFake(t, f, "export", "--imported-clicks=false")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Zero(t, f.details)
	assert.NotContains(t, r.stdout, "48213")
}

func TestExportNDJSON(t *testing.T) {
	r := runFake(t, &fakeLinks{n: 3}, "export", "--format", "ndjson")
	require.Equal(t, exitOK, r.code, r.stderr)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	require.Len(t, lines, 3)
	var l linkapi.LinkDetail
	require.NoError(t, json.Unmarshal([]byte(lines[2]), &l))
	assert.Equal(t, "c000002", l.Code)
	assert.Equal(t, "https://example.com/2?a=1,b=2", l.URL)
}

func TestWriteClicksCSV(t *testing.T) {
	var st statsapi.Stats
	require.NoError(t, json.Unmarshal([]byte(`{"code": "summer-sale", "from": "2026-11-30T00:00:00Z", "to": "2026-12-01T00:00:00Z",
		"granularity": "day", "totals": {"total": 7, "human": 5, "bot": 2},
		"series": [{"start": "2026-11-30T00:00:00Z", "total": 7, "human": 5, "bot": 2}],
		"countries": [{"country": "DE", "total": 4, "human": 4, "bot": 0}, {"country": "FR", "total": 1, "human": 1, "bot": 0}],
		"referrers": [{"host": "news.example.com", "total": 3, "human": 3, "bot": 0}], "partial": false}`), &st))
	var b bytes.Buffer
	require.NoError(t, writeClicksCSV(&b, st))
	assert.Equal(t, "code,dimension,value,total,human,bot\n"+
		"summer-sale,time,2026-11-30T00:00:00Z,7,5,2\n"+
		"summer-sale,country,DE,4,4,0\n"+
		"summer-sale,country,FR,1,1,0\n"+
		"summer-sale,referrer,news.example.com,3,3,0\n", b.String())
}
