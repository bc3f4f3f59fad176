package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadRegionSettings(t *testing.T) {
	def := regionSettings{healthInterval: 10 * time.Second, healthThreshold: 3, replicationDelay: time.Second}
	tests := []settingsCase[regionSettings]{
		{name: "one Region by default", want: def},
		{name: "one Region named", env: map[string]string{"SHORTENER_LOCAL_REGIONS": "eu-west-1"}, want: def},
		{
			name: "three US Regions, fast checks",
			env: map[string]string{"SHORTENER_LOCAL_REGIONS": "us-east-1, us-east-2,us-west-2",
				"SHORTENER_LOCAL_HEALTH_INTERVAL": "100ms", "SHORTENER_LOCAL_HEALTH_THRESHOLD": "1", "SHORTENER_LOCAL_REPLICATION_DELAY": "0s"},
			want: regionSettings{names: []string{"us-east-1", "us-east-2", "us-west-2"}, healthInterval: 100 * time.Millisecond, healthThreshold: 1},
		},
		{
			name: "two EU Regions",
			env:  map[string]string{"SHORTENER_LOCAL_REGIONS": "eu-central-1,eu-west-3"},
			want: regionSettings{names: []string{"eu-central-1", "eu-west-3"}, healthInterval: 10 * time.Second, healthThreshold: 3, replicationDelay: time.Second},
		},
		{name: "sets mixed", env: map[string]string{"SHORTENER_LOCAL_REGIONS": "us-east-1,eu-west-1"}, wantErr: "not in the MRSC set"},
		{name: "outside every set", env: map[string]string{"SHORTENER_LOCAL_REGIONS": "sa-east-1,us-east-1"}, wantErr: "no MRSC Region set"},
		{name: "four", env: map[string]string{"SHORTENER_LOCAL_REGIONS": "eu-west-1,eu-west-2,eu-west-3,eu-central-1"}, wantErr: "at most three"},
		{name: "twice", env: map[string]string{"SHORTENER_LOCAL_REGIONS": "us-east-1,us-east-1"}, wantErr: "twice"},
		{name: "empty name", env: map[string]string{"SHORTENER_LOCAL_REGIONS": "us-east-1,"}, wantErr: "SHORTENER_LOCAL_REGIONS"},
		{name: "interval zero", env: map[string]string{"SHORTENER_LOCAL_HEALTH_INTERVAL": "0s"}, wantErr: "SHORTENER_LOCAL_HEALTH_INTERVAL"},
		{name: "interval bare number", env: map[string]string{"SHORTENER_LOCAL_HEALTH_INTERVAL": "10"}, wantErr: "SHORTENER_LOCAL_HEALTH_INTERVAL"},
		{name: "threshold eleven", env: map[string]string{"SHORTENER_LOCAL_HEALTH_THRESHOLD": "11"}, wantErr: "SHORTENER_LOCAL_HEALTH_THRESHOLD"},
		{name: "replication delay negative", env: map[string]string{"SHORTENER_LOCAL_REPLICATION_DELAY": "-1s"}, wantErr: "SHORTENER_LOCAL_REPLICATION_DELAY"},
		{name: "replication delay an hour", env: map[string]string{"SHORTENER_LOCAL_REPLICATION_DELAY": "1h"}, wantErr: "SHORTENER_LOCAL_REPLICATION_DELAY"},
		{name: "threshold zero", env: map[string]string{"SHORTENER_LOCAL_HEALTH_THRESHOLD": "0"}, wantErr: "SHORTENER_LOCAL_HEALTH_THRESHOLD"},
	}
	runSettingsCases(t, loadRegionSettings, tests)
}

// threeRegions are the Regions of the multi-Region tests, the nearest
// first: one MRSC set.
var threeRegions = []string{"us-east-1", "us-east-2", "us-west-2"}

// startRegions starts the local run with three Regions behind its edge,
// health checked every 50 ms with a threshold of 2, with the settings of
// extra over those, and waits until every Region's health check has
// passed.
func startRegions(t *testing.T, extra map[string]string) *localRun {
	t.Helper()
	e := map[string]string{
		"SHORTENER_LOCAL_REGIONS":          strings.Join(threeRegions, ","),
		"SHORTENER_LOCAL_HEALTH_INTERVAL":  "50ms",
		"SHORTENER_LOCAL_HEALTH_THRESHOLD": "2",
		"SHORTENER_EDGE_INVALIDATION_TIME": "0s",
		// Shorter than MREC's usual second, so the tests wait less; never
		// zero, so what lags on AWS lags here.
		"SHORTENER_LOCAL_REPLICATION_DELAY": "200ms",
	}
	maps.Copy(e, extra)
	r := startLocal(t, e)
	r.waitRegions(t, func(s regionsState) bool {
		for _, rg := range s.Regions {
			if rg.Passes < 1 {
				return false
			}
		}
		return true
	})
	return r
}

// regions reads GET /_local/regions.
func (r *localRun) regions(t testing.TB) regionsState {
	t.Helper()
	status, _, body := r.do(t, "GET", regionsPath, "", "")
	require.Equal(t, http.StatusOK, status, string(body))
	var s regionsState
	require.NoError(t, json.Unmarshal(body, &s))
	return s
}

// waitRegions polls the Regions' state until ok holds (a minute at most:
// a state, not a speed, is what the tests check).
func (r *localRun) waitRegions(t testing.TB, ok func(regionsState) bool) regionsState {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		s := r.regions(t)
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Regions never reached the state waited for: %+v", s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// eventually repeats a GET of path with the run's key until ok holds (a
// minute at most: a state, not a speed, is checked) and returns the last
// answer's headers and body.
func (r *localRun) eventually(t testing.TB, path string, ok func(int, http.Header, []byte) bool) (http.Header, []byte) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		status, h, body := r.do(t, "GET", path, r.key, "")
		if ok(status, h, body) {
			return h, body
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s%s never gave the answer waited for; the last: %d %s", r.base, path, status, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRegionsStateAndAdmin: the run reports its three Regions, nearest
// first, /v1 at the nearest; a stop and a start are POSTs naming a Region.
func TestRegionsStateAndAdmin(t *testing.T) {
	r := startRegions(t, nil)
	s := r.regions(t)
	assert.Equal(t, "us-east-1", s.V1)
	var names []string
	for _, rg := range s.Regions {
		names = append(names, rg.Region)
		assert.True(t, rg.Serving && rg.Healthy, rg.Region)
	}
	assert.Equal(t, threeRegions, names)

	// The endpoint the health checks ask, through the edge, with no key.
	status, h, body := r.do(t, "GET", healthPath, "", "")
	assert.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `{"status":"ok"}`, string(body))
	assert.Equal(t, "no-store", h.Get("Cache-Control"))

	status, _, _ = r.do(t, "GET", regionsPath+"/us-east-2/stop", "", "")
	assert.Equal(t, http.StatusMethodNotAllowed, status)
	status, _, _ = r.do(t, "POST", regionsPath+"/eu-west-1/stop", "", "")
	assert.Equal(t, http.StatusNotFound, status)
	status, _, _ = r.do(t, "POST", regionsPath+"/us-east-2/pause", "", "")
	assert.Equal(t, http.StatusNotFound, status)

	status, _, _ = r.do(t, "POST", regionsPath+"/us-east-2/stop", "", "")
	require.Equal(t, http.StatusNoContent, status)
	s = r.waitRegions(t, func(s regionsState) bool { return !s.Regions[1].Healthy })
	assert.False(t, s.Regions[1].Serving)
	_, err := http.Get(s.Regions[1].Target + "/healthz")
	assert.Error(t, err, "nothing listens at a stopped Region's API")
	assert.Equal(t, "us-east-1", s.V1, "the nearest stays where it is")
	status, _, _ = r.do(t, "POST", regionsPath+"/us-east-2/start", "", "")
	require.Equal(t, http.StatusNoContent, status)
	r.waitRegions(t, func(s regionsState) bool { return s.Regions[1].Healthy })
}

// TestRegionDownThroughTheEdge: with the nearest Region's origin stopped,
// the local Route 53 sends /v1 to the next Region once its health checks
// fail, and creates, edits and redirects through the edge keep
// succeeding; started again, it takes /v1 back.
func TestRegionDownThroughTheEdge(t *testing.T) {
	r := startRegions(t, nil)
	status, _, body := r.do(t, "POST", "/v1/links", r.key, `{"url":"https://example.com/before","alias":"Before"}`)
	require.Equal(t, http.StatusCreated, status, string(body))

	status, _, body = r.do(t, "POST", regionsPath+"/us-east-1/stop", "", "")
	require.Equal(t, http.StatusNoContent, status, string(body))
	s := r.waitRegions(t, func(s regionsState) bool { return s.V1 == "us-east-2" })
	assert.False(t, s.Regions[0].Healthy)
	assert.False(t, s.Regions[0].Serving)

	// Creates, generated and aliased, and their redirects: each first
	// redirect misses the edge's cache and fails over to us-east-2.
	for i := range 5 {
		status, _, body := r.do(t, "POST", "/v1/links", r.key, fmt.Sprintf(`{"url":"https://example.com/during/%d"}`, i))
		require.Equal(t, http.StatusCreated, status, string(body))
		var c created
		require.NoError(t, json.Unmarshal(body, &c))
		status, h, _ := r.do(t, "GET", "/"+c.Code, "", "")
		assert.Equal(t, http.StatusFound, status)
		assert.Equal(t, fmt.Sprintf("https://example.com/during/%d", i), h.Get("Location"))
		assert.Equal(t, "Miss from cloudfront", h.Get("X-Cache"))
	}
	status, _, body = r.do(t, "POST", "/v1/links", r.key, `{"url":"https://example.com/during","alias":"During"}`)
	require.Equal(t, http.StatusCreated, status, string(body))
	status, h, _ := r.do(t, "GET", "/during", "", "")
	assert.Equal(t, http.StatusFound, status)
	assert.Equal(t, "https://example.com/during", h.Get("Location"))

	// An edit of a link made before the outage, and its redirect. It was
	// written in us-east-1 and is edited in us-east-2 once replicated.
	h, _ = r.eventually(t, "/v1/links/before", func(status int, _ http.Header, _ []byte) bool { return status == http.StatusOK })
	status, _, body = r.do(t, "PATCH", "/v1/links/before", r.key, `{"url":"https://example.com/edited"}`, "If-Match", h.Get("ETag"))
	require.Equal(t, http.StatusOK, status, string(body))
	status, h, _ = r.do(t, "GET", "/before", "", "")
	assert.Equal(t, http.StatusFound, status)
	assert.Equal(t, "https://example.com/edited", h.Get("Location"))

	status, _, _ = r.do(t, "POST", regionsPath+"/us-east-1/start", "", "")
	require.Equal(t, http.StatusNoContent, status)
	r.waitRegions(t, func(s regionsState) bool { return s.V1 == "us-east-1" })
	status, _, body = r.do(t, "POST", "/v1/links", r.key, `{"url":"https://example.com/after"}`)
	assert.Equal(t, http.StatusCreated, status, string(body))
}

// TestHealthWithoutDynamoDB: until DynamoDB Local runs the health endpoint
// answers 503; other requests go to the gateway.
func TestHealthWithoutDynamoDB(t *testing.T) {
	var db atomic.Pointer[dynamodb.Client]
	h := withHealth(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) }), &db, "links", time.Second)
	tests := []struct {
		method, path string
		want         int
	}{
		{http.MethodGet, healthPath, http.StatusServiceUnavailable},
		{http.MethodPost, healthPath, http.StatusTeapot},
		{http.MethodGet, "/v1/links", http.StatusTeapot},
		{http.MethodGet, "/healthz", http.StatusTeapot},
	}
	for _, tt := range tests {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
		assert.Equal(t, tt.want, rec.Code, tt.method+" "+tt.path)
	}
}
