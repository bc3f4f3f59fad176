package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/linkapi"
)

func TestParseRule(t *testing.T) {
	tests := []struct {
		in   string
		want linkapi.Rule
	}{
		{"country=DE,AT;device=mobile;url=https://example.com/de",
			linkapi.Rule{URL: "https://example.com/de", Country: []string{"DE", "AT"}, Device: []string{"mobile"}}},
		{"url=https://example.com/?a=1,2;os=ios, android ;language=de",
			linkapi.Rule{URL: "https://example.com/?a=1,2", OS: []string{"ios", "android"}, Language: []string{"de"}}},
		{"Country=fr;URL=https://example.com/fr;", linkapi.Rule{URL: "https://example.com/fr", Country: []string{"fr"}}},
		{"country=DE;url=https://example.com/a;b=c;d", linkapi.Rule{URL: "https://example.com/a;b=c;d", Country: []string{"DE"}}},
		{"url=https://example.com/x", linkapi.Rule{URL: "https://example.com/x"}}, // the API says a condition is missing
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseRule(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			again, err := parseRule(formatRule(got))
			require.NoError(t, err)
			assert.Equal(t, got, again, "formatRule writes what parseRule reads")
		})
	}
	for _, bad := range []string{"", "country=DE", "countries=DE;url=https://x.example", "country=DE;country=AT;url=https://x.example", "DE;url=https://x.example"} {
		_, err := parseRule(bad)
		var usage *usageError
		assert.ErrorAs(t, err, &usage, "%q", bad)
	}
}

func TestParseTarget(t *testing.T) {
	got, err := parseTarget("https://example.com/?x=1=70")
	require.NoError(t, err)
	assert.Equal(t, linkapi.Target{URL: "https://example.com/?x=1", Weight: 70}, got)
	for _, bad := range []string{"https://example.com/", "https://example.com/=seventy", "=50"} {
		_, err := parseTarget(bad)
		var usage *usageError
		assert.ErrorAs(t, err, &usage, "%q", bad)
	}
}

// recordingAPI answers every request with one link and keeps the bodies.
type recordingAPI struct {
	mu     sync.Mutex
	bodies []map[string]any
}

func (r *recordingAPI) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	b, _ := io.ReadAll(req.Body)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	r.mu.Lock()
	r.bodies = append(r.bodies, m)
	r.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	status := http.StatusOK
	if req.Method == http.MethodPost {
		status = http.StatusCreated
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(linkapi.LinkDetail{Link: linkapi.Link{Code: "abc1234", ShortURL: "https://sho.rt/abc1234",
		URL: "https://example.com/", Features: linkapi.Features{Protected: true, MaxClicks: 9,
			Rules:   []linkapi.Rule{{URL: "https://example.com/de", Country: []string{"DE"}}},
			Targets: []linkapi.Target{{URL: "https://a.example/", Weight: 60}, {URL: "https://b.example/", Weight: 40}}}},
		Status: "active", Version: 2})
}

func runAgainst(t *testing.T, api http.Handler, stdin string, args ...string) (string, string, int) {
	t.Helper()
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	var out, errb bytes.Buffer
	env := map[string]string{"SHORTENER_ENDPOINT": srv.URL, "SHORTENER_API_KEY": "k"}
	a := newApp(strings.NewReader(stdin), &out, &errb, func(k string) string { return env[k] })
	code := a.run(t.Context(), args)
	return out.String(), errb.String(), code
}

func TestShortenSendsRedirectRules(t *testing.T) {
	api := &recordingAPI{}
	_, stderr, code := runAgainst(t, api, "from stdin pw\n", "shorten", "https://example.com/",
		"--password", "-", "--max-clicks", "9",
		"--rule", "country=DE,AT;url=https://example.com/de", "--rule", "device=mobile;os=ios;url=https://m.example.com/",
		"--target", "https://a.example/=60", "--target", "https://b.example/=40", "--expired-url", "https://example.com/over")
	require.Equal(t, exitOK, code, stderr)
	require.Len(t, api.bodies, 1)
	want := map[string]any{
		"url": "https://example.com/", "password": "from stdin pw", "max_clicks": float64(9),
		"rules": []any{
			map[string]any{"url": "https://example.com/de", "country": []any{"DE", "AT"}},
			map[string]any{"url": "https://m.example.com/", "device": []any{"mobile"}, "os": []any{"ios"}},
		},
		"targets":     []any{map[string]any{"url": "https://a.example/", "weight": float64(60)}, map[string]any{"url": "https://b.example/", "weight": float64(40)}},
		"expired_url": "https://example.com/over",
	}
	assert.Equal(t, want, api.bodies[0])
}

func TestEditSetsAndClearsRedirectRules(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want map[string]any
	}{
		{"set", []string{"--password", "new-password", "--max-clicks", "3", "--rule", "language=fr;url=https://example.com/fr"},
			map[string]any{"password": "new-password", "max_clicks": float64(3),
				"rules": []any{map[string]any{"url": "https://example.com/fr", "language": []any{"fr"}}}}},
		{"clear", []string{"--clear", "password,max-clicks", "--clear", "rules,targets,expired-url"},
			map[string]any{"password": nil, "max_clicks": nil, "rules": nil, "targets": nil, "expired_url": nil}},
		{"clear one, set another", []string{"--clear", "targets", "--target", "https://a.example/=50"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := &recordingAPI{}
			stdout, stderr, code := runAgainst(t, api, "", append([]string{"edit", "abc1234"}, tt.args...)...)
			if tt.want == nil {
				assert.Equal(t, exitUsage, code)
				assert.Empty(t, api.bodies)
				return
			}
			require.Equal(t, exitOK, code, stderr)
			require.Len(t, api.bodies, 1)
			assert.Equal(t, tt.want, api.bodies[0])
			assert.Contains(t, stdout, "protected")
			assert.Contains(t, stdout, "country=DE;url=https://example.com/de")
			assert.Contains(t, stdout, "https://a.example/=60")
		})
	}
	_, _, code := runAgainst(t, &recordingAPI{}, "", "edit", "abc1234", "--clear", "title")
	assert.Equal(t, exitUsage, code)
}

func TestImportCarriesRedirectRulesAndRefusesProtectedLinks(t *testing.T) {
	const ndLine = `{"code":"geo","alias":"Geo","short_url":"https://sho.rt/Geo","url":"https://example.com/","created_at":"x","expires_at":"2030-01-01T00:00:00Z","redirect_status":302,%s"max_clicks":4,"rules":[{"url":"https://example.com/de","country":["DE"]}],"targets":[{"url":"https://a.example/","weight":50},{"url":"https://b.example/","weight":50}],"expired_url":"https://example.com/over","status":"active","version":1,"updated_at":"x"}` + "\n"
	nd, err := readOwnNDJSON([]byte(fmt.Sprintf(ndLine, "") + fmt.Sprintf(ndLine, `"protected":true,`)))
	require.NoError(t, err)
	const csvLine = `https://example.com/,Geo,%s,4,"[{""url"":""https://example.com/de"",""country"":[""DE""]}]","[{""url"":""https://a.example/"",""weight"":50},{""url"":""https://b.example/"",""weight"":50}]",https://example.com/over` + "\n"
	csvRows, err := readOwnCSV([]byte("url,alias,protected,max_clicks,rules,targets,expired_url\n" +
		fmt.Sprintf(csvLine, "") + fmt.Sprintf(csvLine, "true") +
		`https://example.com/,Bad,,,"[{""url"":""https://example.com/de"",""countries"":[""DE""]}]",,` + "\n"))
	require.NoError(t, err)
	require.Len(t, nd, 2)
	require.Len(t, csvRows, 3)
	for name, row := range map[string]*importRow{"ndjson": nd[0], "csv": csvRows[0]} {
		require.Nil(t, row.Problem, name)
		assert.Equal(t, int64(4), *row.req.MaxClicks, name)
		assert.Equal(t, []linkapi.Rule{{URL: "https://example.com/de", Country: []string{"DE"}}}, row.req.Rules, name)
		assert.Len(t, row.req.Targets, 2, name)
		assert.Equal(t, "https://example.com/over", row.req.ExpiredURL, name)
		assert.Empty(t, row.NotKept, name)
	}
	for name, row := range map[string]*importRow{"ndjson": nd[1], "csv": csvRows[1]} {
		// The password cannot be exported; created without it, the link
		// would redirect anyone.
		require.NotNil(t, row.Problem, "%s: a protected link is not created open", name)
		assert.Equal(t, "protected", row.Problem.Field, name)
		assert.Equal(t, outcomeFailed, row.Outcome, name)
	}
	require.NotNil(t, csvRows[2].Problem)
	assert.Equal(t, "rules", csvRows[2].Problem.Field)
}
