package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/logtest"
	"github.com/shortlink-dev/shortener/shared/edgespec"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// settingsCase is one environment a settings loader reads, and what it
// must make of it: want, or an error naming wantErr.
type settingsCase[S any] struct {
	name    string
	env     map[string]string
	want    S
	wantErr string
}

// runSettingsCases runs each case through load as a subtest.
func runSettingsCases[S any](t *testing.T, load func(func(string) string) (S, error), tests []settingsCase[S]) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := load(env(tt.env))
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestLoadSettings(t *testing.T) {
	tests := []settingsCase[settings]{
		{
			name: "defaults",
			want: settings{usagePlan: edgespec.DefaultUsagePlan, addr: "127.0.0.1:8080", apiKeys: map[string]string{"dev-key": "dev"}, dynamoPort: 8000, reclaimEvery: time.Minute,
				accessLog: accessLogOn, consoleDir: "build/console", invalidationTime: 5 * time.Second, kvsPropagation: 5 * time.Second},
		},
		{
			name: "everything set",
			env: map[string]string{
				"SHORTENER_ADDR": ":9090", "SHORTENER_API_KEYS": "a=x, b=y",
				"SHORTENER_DYNAMODB_ENDPOINT": "http://127.0.0.1:8001", "SHORTENER_DYNAMODB_PORT": "0",
				"SHORTENER_RECLAIM_INTERVAL": "5s", "SHORTENER_ACCESS_LOG": "errors", "SHORTENER_CONSOLE_DIR": "/srv/console", "SHORTENER_EDGE_INVALIDATION_TIME": "90s",
			},
			want: settings{usagePlan: edgespec.DefaultUsagePlan, addr: ":9090", apiKeys: map[string]string{"a": "x", "b": "y"}, dynamoEndpoint: "http://127.0.0.1:8001", dynamoPort: 0,
				reclaimEvery: 5 * time.Second, accessLog: accessLogErrors, consoleDir: "/srv/console", invalidationTime: 90 * time.Second, kvsPropagation: 5 * time.Second},
		},
		{
			name: "access log off",
			env:  map[string]string{"SHORTENER_ACCESS_LOG": "off"},
			want: settings{usagePlan: edgespec.DefaultUsagePlan, addr: "127.0.0.1:8080", apiKeys: map[string]string{"dev-key": "dev"}, dynamoPort: 8000, reclaimEvery: time.Minute,
				accessLog: accessLogOff, consoleDir: "build/console", invalidationTime: 5 * time.Second, kvsPropagation: 5 * time.Second},
		},
		{
			name: "access log on",
			env:  map[string]string{"SHORTENER_ACCESS_LOG": "on"},
			want: settings{usagePlan: edgespec.DefaultUsagePlan, addr: "127.0.0.1:8080", apiKeys: map[string]string{"dev-key": "dev"}, dynamoPort: 8000, reclaimEvery: time.Minute,
				accessLog: accessLogOn, consoleDir: "build/console", invalidationTime: 5 * time.Second, kvsPropagation: 5 * time.Second},
		},
		{
			name: "invalidations at once",
			env:  map[string]string{"SHORTENER_EDGE_INVALIDATION_TIME": "0s"},
			want: settings{usagePlan: edgespec.DefaultUsagePlan, addr: "127.0.0.1:8080", apiKeys: map[string]string{"dev-key": "dev"}, dynamoPort: 8000, reclaimEvery: time.Minute,
				accessLog: accessLogOn, consoleDir: "build/console", kvsPropagation: 5 * time.Second},
		},
		{
			name: "version keys, propagated at once",
			env:  map[string]string{"SHORTENER_EDGE_VERSION_KEYS": "true", "SHORTENER_EDGE_KVS_PROPAGATION": "0s"},
			want: settings{usagePlan: edgespec.DefaultUsagePlan, addr: "127.0.0.1:8080", apiKeys: map[string]string{"dev-key": "dev"}, dynamoPort: 8000, reclaimEvery: time.Minute,
				accessLog: accessLogOn, consoleDir: "build/console", invalidationTime: 5 * time.Second, versionKeys: true},
		},
		{name: "version keys yes", env: map[string]string{"SHORTENER_EDGE_VERSION_KEYS": "yes"}, wantErr: "SHORTENER_EDGE_VERSION_KEYS"},
		{name: "audit archive", env: map[string]string{"SHORTENER_AUDIT_ARCHIVE": "true"},
			want: settings{usagePlan: edgespec.DefaultUsagePlan, addr: "127.0.0.1:8080", apiKeys: map[string]string{"dev-key": "dev"}, dynamoPort: 8000, reclaimEvery: time.Minute,
				accessLog: accessLogOn, consoleDir: "build/console", invalidationTime: 5 * time.Second, kvsPropagation: 5 * time.Second, auditArchive: true}},
		{name: "audit archive yes", env: map[string]string{"SHORTENER_AUDIT_ARCHIVE": "yes"}, wantErr: "SHORTENER_AUDIT_ARCHIVE"},
		{name: "propagation negative", env: map[string]string{"SHORTENER_EDGE_KVS_PROPAGATION": "-1s"}, wantErr: "SHORTENER_EDGE_KVS_PROPAGATION"},
		{name: "invalidation time negative", env: map[string]string{"SHORTENER_EDGE_INVALIDATION_TIME": "-1s"}, wantErr: "SHORTENER_EDGE_INVALIDATION_TIME"},
		{name: "invalidation time bare number", env: map[string]string{"SHORTENER_EDGE_INVALIDATION_TIME": "5"}, wantErr: "SHORTENER_EDGE_INVALIDATION_TIME"},
		{name: "invalidation time an hour", env: map[string]string{"SHORTENER_EDGE_INVALIDATION_TIME": "1h"}, wantErr: "SHORTENER_EDGE_INVALIDATION_TIME"},
		{name: "bad keys", env: map[string]string{"SHORTENER_API_KEYS": "a=x,"}, wantErr: "SHORTENER_API_KEYS"},
		{name: "bad reclaim interval", env: map[string]string{"SHORTENER_RECLAIM_INTERVAL": "often"}, wantErr: "SHORTENER_RECLAIM_INTERVAL"},
		{name: "access log in capitals", env: map[string]string{"SHORTENER_ACCESS_LOG": "OFF"}, wantErr: "SHORTENER_ACCESS_LOG"},
		{name: "access log as a boolean", env: map[string]string{"SHORTENER_ACCESS_LOG": "false"}, wantErr: "SHORTENER_ACCESS_LOG"},
		{name: "access log level", env: map[string]string{"SHORTENER_ACCESS_LOG": "error"}, wantErr: "SHORTENER_ACCESS_LOG"},
		{name: "bad port", env: map[string]string{"SHORTENER_DYNAMODB_PORT": "eighty"}, wantErr: "SHORTENER_DYNAMODB_PORT"},
		{name: "port out of range", env: map[string]string{"SHORTENER_DYNAMODB_PORT": "70000"}, wantErr: "SHORTENER_DYNAMODB_PORT"},
		{
			name: "usage plan",
			env:  map[string]string{"SHORTENER_API_RATE_LIMIT": "5000", "SHORTENER_API_BURST_LIMIT": "6000", "SHORTENER_API_QUOTA_PER_DAY": "9"},
			want: settings{addr: "127.0.0.1:8080", apiKeys: map[string]string{"dev-key": "dev"}, dynamoPort: 8000, reclaimEvery: time.Minute,
				accessLog: accessLogOn, consoleDir: "build/console", invalidationTime: 5 * time.Second, kvsPropagation: 5 * time.Second,
				usagePlan: edgespec.UsagePlan{Description: edgespec.DefaultUsagePlan.Description,
					Throttle: edgespec.Throttle{RateLimit: 5000, BurstLimit: 6000}, Quota: 9, QuotaPeriod: edgespec.QuotaPerDay}},
		},
		{name: "rate limit zero", env: map[string]string{"SHORTENER_API_RATE_LIMIT": "0"}, wantErr: "SHORTENER_API_RATE_LIMIT"},
		{name: "burst limit a fraction", env: map[string]string{"SHORTENER_API_BURST_LIMIT": "1.5"}, wantErr: "SHORTENER_API_BURST_LIMIT"},
		{name: "quota negative", env: map[string]string{"SHORTENER_API_QUOTA_PER_DAY": "-1"}, wantErr: "SHORTENER_API_QUOTA_PER_DAY"},
	}
	runSettingsCases(t, loadSettings, tests)
}

// statusPath answers /s<status> with that status.
type statusPath struct{}

func (statusPath) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	status, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/s"))
	if err != nil {
		status = http.StatusTeapot
	}
	w.WriteHeader(status)
}

// TestAccessLogModes sends answers of each kind through the access log and
// the origin log under each mode and reads back their lines.
func TestAccessLogModes(t *testing.T) {
	tests := []struct {
		mode       accessLogMode
		wantStatus []int // statuses logged, in order, by each of the two logs
	}{
		{mode: accessLogOn, wantStatus: []int{200, 302, 404, 503}},
		{mode: accessLogErrors, wantStatus: []int{503}},
		{mode: accessLogOff},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode), func(t *testing.T) {
			next := &statusPath{}
			for _, wrap := range []func(*slog.Logger, accessLogMode, http.Handler) http.Handler{accessLog, originLog} {
				var buf bytes.Buffer
				h := wrap(slog.New(slog.NewJSONHandler(&buf, nil)), tt.mode, next)
				if tt.mode == accessLogOff {
					assert.Equal(t, http.Handler(next), h, "off adds nothing to a request")
				}
				for _, path := range []string{"/s200", "/s302", "/s404", "/s503"} {
					h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, path, nil))
				}
				var got []int
				dec := json.NewDecoder(&buf)
				for dec.More() {
					var l struct{ Status int }
					require.NoError(t, dec.Decode(&l))
					got = append(got, l.Status)
				}
				assert.Equal(t, tt.wantStatus, got)
			}
		})
	}
}

func TestFunctionEnv(t *testing.T) {
	get := functionEnv(env(map[string]string{"LINKS_TABLE": "mine", "SHORTENER_CODE_LENGTH": "9"}), "http://127.0.0.1:8080")
	assert.Equal(t, "mine", get("LINKS_TABLE"))
	assert.Equal(t, "shortener-idempotency", get("IDEMPOTENCY_TABLE"))
	assert.Equal(t, "shortener-analytics", get("ANALYTICS_TABLE"))
	assert.Equal(t, "mine-misses", get("MISSES_TABLE"), "the redirect counts misses by default, beside a run's own links table")
	assert.Equal(t, "mine-reservations", get("RESERVATION_TABLE"), "a run's own links table has its own reservations")
	plain := functionEnv(env(nil), "")
	assert.Equal(t, "shortener-misses", plain("MISSES_TABLE"))
	assert.Equal(t, "shortener-reservations", plain("RESERVATION_TABLE"))
	// The management API reads the marks the redirect writes.
	assert.Equal(t, "mine-edge-marks", get("EDGE_MARKS_TABLE"))
	assert.Equal(t, "arn:aws:dynamodb:us-east-1:000000000000:table/mine-edge-marks", get("EDGE_MARKS_TABLES"))
	assert.Equal(t, "shortener-edge-marks", plain("EDGE_MARKS_TABLE"))
	assert.Equal(t, "mine-audit", get("AUDIT_TABLE"))
	assert.Equal(t, "shortener-audit", plain("AUDIT_TABLE"))
	assert.Equal(t, "arn:aws:dynamodb:us-east-1:000000000000:table/shortener-edge-marks", plain("EDGE_MARKS_TABLES"))
	assert.Equal(t, "arn:aws:dynamodb:eu-west-1:000000000000:table/theirs",
		functionEnv(env(map[string]string{"EDGE_MARKS_TABLE": "theirs", "AWS_REGION": "eu-west-1"}), "")("EDGE_MARKS_TABLES"))
	// The click pipeline's table is the functions' setting (clicks and
	// stats read it through shared/config), with the local run's default.
	assert.Equal(t, "analytics", functionEnv(env(map[string]string{"ANALYTICS_TABLE": "analytics"}), "")("ANALYTICS_TABLE"))
	assert.Equal(t, "http://127.0.0.1:8080", get("SHORTENER_BASE_URL"))
	assert.Equal(t, "9", get("SHORTENER_CODE_LENGTH"))
	assert.Empty(t, get("SHORTENER_CACHE_TTL"))
	// Sign-in is the local OpenID provider's, beside the edge.
	assert.Equal(t, "http://127.0.0.1:8080/_local/oidc", get("AUTH_ISSUER"))
	assert.Equal(t, "local-console", get("AUTH_CLIENT_ID"))
}

func TestOrigin(t *testing.T) {
	tests := []struct {
		addr string
		want string
	}{
		{"127.0.0.1:8080", "http://127.0.0.1:8080"},
		{"0.0.0.0:8080", "http://localhost:8080"},
		{"[::]:8080", "http://localhost:8080"},
		{"[::1]:8080", "http://[::1]:8080"},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			addr, err := net.ResolveTCPAddr("tcp", tt.addr)
			require.NoError(t, err)
			assert.Equal(t, tt.want, origin(addr))
		})
	}
}

// TestRun starts the command against the shared DynamoDB Local, creates a
// link through the gateway and follows it, then stops the command.
func TestRun(t *testing.T) {
	e := map[string]string{
		"SHORTENER_ADDR":              "127.0.0.1:0",
		"SHORTENER_API_KEYS":          "test-key=tester",
		"SHORTENER_DYNAMODB_ENDPOINT": testenv.DynamoDBEndpoint(t),
		"LINKS_TABLE":                 testenv.UniqueName(t, "links"),
		"IDEMPOTENCY_TABLE":           testenv.UniqueName(t, "idem"),
		"SHORTENER_KINESIS_ENDPOINT":  testenv.KinesisEndpoint(t),
		"CLICKS_STREAM":               testenv.UniqueName(t, "clicks"),
		"ANALYTICS_TABLE":             testenv.UniqueName(t, "analytics"),
		"MISSES_TABLE":                testenv.UniqueName(t, "misses"),
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr, stdout logtest.Buffer
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- run(ctx, env(e), &stdout, &stderr, func(o string) { ready <- o }) }()

	var base string
	select {
	case base = <-ready:
	case err := <-done:
		t.Fatalf("run ended before it was ready: %v\n%s", err, stderr.String())
	case <-time.After(2 * time.Minute):
		t.Fatalf("not ready after 2 minutes\n%s", stderr.String())
	}

	resp, err := http.Get(base + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	// The local OpenID provider answers beside the edge, its issuer the
	// one the functions are given.
	resp, err = http.Get(base + "/_local/oidc/.well-known/openid-configuration")
	require.NoError(t, err)
	var disc struct {
		Issuer string `json:"issuer"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&disc))
	resp.Body.Close()
	assert.Equal(t, base+"/_local/oidc", disc.Issuer)

	req, err := http.NewRequest(http.MethodPost, base+"/v1/links", strings.NewReader(`{"url":"https://example.com/run"}`))
	require.NoError(t, err)
	req.Header.Set("x-api-key", "test-key")
	req.Header.Set("content-type", "application/json")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusCreated, resp.StatusCode, string(body))
	var created struct {
		Code     string `json:"code"`
		ShortURL string `json:"short_url"`
	}
	require.NoError(t, json.Unmarshal(body, &created))
	assert.Equal(t, base+"/"+created.Code, created.ShortURL)

	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err = client.Get(created.ShortURL)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusFound, resp.StatusCode)
	assert.Equal(t, "https://example.com/run", resp.Header.Get("Location"))

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("run did not stop")
	}
	logs := stderr.String()
	assert.Contains(t, logs, `"msg":"request","method":"POST","path":"/v1/links","status":201`)
	assert.Contains(t, logs, "curl -s -XPOST -H 'x-api-key: test-key'")
	assert.Contains(t, logs, `"msg":"stopped"`)
	_, err = http.Get(base + "/healthz")
	assert.Error(t, err, "the server should be down")
}
