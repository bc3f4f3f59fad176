// Package fntest is what the tests of the functions' builds
// (functions/<fn>/<fn>fn, build_test.go) share: the settings a deployed
// stack gives the functions, Clients as Lambda has them with no I/O until
// a handler runs, and a check that a build names each setting its
// function cannot start without.
package fntest

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/edgeinfo"
	"github.com/shortlink-dev/shortener/shared/fnclients"
)

// EverySetting is the environment infra gives the functions, each setting
// a function may need present.
var EverySetting = map[string]string{
	"LINKS_TABLE":          "links",
	"IDEMPOTENCY_TABLE":    "idempotency",
	"KEYS_TABLE":           "keys",
	"ANALYTICS_TABLE":      "analytics",
	"SHORTENER_BASE_URL":   "https://sho.rt",
	"EDGE_PARAMETER":       "/Shortener/edge",
	"ORIGIN_SECRET_ID":     "origin-secret",
	"PRIMARY_REGION":       "eu-west-1",
	"WEBHOOKS_TABLE":       "webhooks",
	"AUDIT_TABLE":          "audit",
	"AUDIT_ARCHIVE_BUCKET": "shortener-audit-archive",
	"WEBHOOK_QUEUE_URL":    "https://sqs.eu-central-1.amazonaws.com/123456789012/deliveries",
	"WEBHOOK_DLQ_URL":      "https://sqs.eu-central-1.amazonaws.com/123456789012/dead-letters",
}

// Load is the configuration of EverySetting less the names in without.
func Load(t *testing.T, without ...string) config.Config {
	t.Helper()
	cfg, err := config.Load(func(k string) string {
		for _, w := range without {
			if k == w {
				return ""
			}
		}
		return EverySetting[k]
	})
	require.NoError(t, err)
	return cfg
}

// Lambda are Clients as Lambda has them, in eu-central-1: no I/O happens
// until a handler runs, so none is made here.
func Lambda() fnclients.Clients {
	return fnclients.Clients{AWS: aws.Config{Region: "eu-central-1"}, Log: slog.New(slog.DiscardHandler), Metrics: io.Discard}
}

// Requires checks build as a deployed stack runs it: it builds from
// EverySetting, and without each of names it refuses to, naming it.
func Requires[H any](t *testing.T, build func(config.Config, fnclients.Clients) (H, error), names ...string) {
	t.Helper()
	t.Run("builds from Lambda's settings", func(t *testing.T) {
		h, err := build(Load(t), Lambda())
		require.NoError(t, err)
		assert.NotNil(t, h)
	})
	for _, name := range names {
		t.Run("without "+name, func(t *testing.T) {
			_, err := build(Load(t, name), Lambda())
			require.Error(t, err)
			assert.Contains(t, err.Error(), name+" is not set")
		})
	}
}

// HostRecorder answers every request with an error after noting its host:
// which Region's endpoint a client calls, with no network.
type HostRecorder struct {
	mu    sync.Mutex // edge marks are read from every Region at once
	hosts []string
}

// Do notes req's host and fails.
func (r *HostRecorder) Do(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hosts = append(r.hosts, req.URL.Host)
	return nil, errors.New("no network in this test")
}

// Hosts are the hosts called since the last Hosts, in order.
func (r *HostRecorder) Hosts() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.hosts
	r.hosts = nil
	return h
}

// Regional are Lambda's Clients whose requests only reach rec.
func Regional(rec *HostRecorder) fnclients.Clients {
	c := Lambda()
	c.AWS.Credentials = credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", "")
	c.AWS.HTTPClient = rec
	c.AWS.RetryMaxAttempts = 1
	return c
}

// CountingSource is the edge parameter, counting its reads.
type CountingSource struct {
	Edge  edgeinfo.Info
	Reads int
}

// Info counts a read and answers Edge.
func (s *CountingSource) Info(context.Context) (edgeinfo.Info, error) {
	s.Reads++
	return s.Edge, nil
}
