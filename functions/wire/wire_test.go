package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/originauth/originauthfn"
	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/dynamo/packedclicks"
	"github.com/shortlink-dev/shortener/shared/edgecache"
	"github.com/shortlink-dev/shortener/shared/edgeinfo"
	"github.com/shortlink-dev/shortener/shared/edgemarks"
	"github.com/shortlink-dev/shortener/shared/linkapi"
	"github.com/shortlink-dev/shortener/shared/linkstore"
)

// everySetting is the environment infra gives the functions, each setting
// a function may need present.
var everySetting = map[string]string{
	"LINKS_TABLE":        "links",
	"IDEMPOTENCY_TABLE":  "idempotency",
	"KEYS_TABLE":         "keys",
	"ANALYTICS_TABLE":    "analytics",
	"SHORTENER_BASE_URL": "https://sho.rt",
	"EDGE_PARAMETER":     "/Shortener/edge",
	"ORIGIN_SECRET_ID":   "origin-secret",
	"PRIMARY_REGION":     "eu-west-1",
	"WEBHOOKS_TABLE":     "webhooks",
	"WEBHOOK_QUEUE_URL":  "https://sqs.eu-central-1.amazonaws.com/123456789012/deliveries",
	"WEBHOOK_DLQ_URL":    "https://sqs.eu-central-1.amazonaws.com/123456789012/dead-letters",
}

// load is the configuration of everySetting less the names in without.
func load(t *testing.T, without ...string) config.Config {
	t.Helper()
	cfg, err := config.Load(func(k string) string {
		for _, w := range without {
			if k == w {
				return ""
			}
		}
		return everySetting[k]
	})
	require.NoError(t, err)
	return cfg
}

// lambdaClients are Clients as Lambda has them: no I/O happens until a
// handler runs, so none is made here.
func lambdaClients() Clients {
	return Clients{AWS: aws.Config{Region: "eu-central-1"}, Log: slog.New(slog.DiscardHandler), Metrics: io.Discard}
}

// constructors are the eleven functions' constructors, by name, with the
// settings each cannot start without.
var constructors = []struct {
	name     string
	build    func(config.Config, Clients) (any, error)
	requires []string
}{
	// create invalidates nothing, but learns the distribution's own host
	// from the edge parameter (TestCreateNeedsTheEdgeParameterForTheHosts).
	{"create", func(c config.Config, cl Clients) (any, error) { return NewCreate(c, cl) },
		[]string{"LINKS_TABLE", "IDEMPOTENCY_TABLE", "KEYS_TABLE", "EDGE_PARAMETER"}},
	{"redirect", func(c config.Config, cl Clients) (any, error) { return NewRedirect(c, cl) }, []string{"LINKS_TABLE"}},
	{"manage", func(c config.Config, cl Clients) (any, error) { return NewManage(c, cl) },
		[]string{"LINKS_TABLE", "KEYS_TABLE", "EDGE_PARAMETER"}},
	{"stats", func(c config.Config, cl Clients) (any, error) { return NewStats(c, cl) },
		[]string{"LINKS_TABLE", "KEYS_TABLE", "ANALYTICS_TABLE"}},
	{"clicks", func(c config.Config, cl Clients) (any, error) { return NewClicks(c, cl) }, []string{"ANALYTICS_TABLE"}},
	{"ttlstream", func(c config.Config, cl Clients) (any, error) { return NewTTLStream(c, cl) }, []string{"LINKS_TABLE"}},
	{"reclaim", func(c config.Config, cl Clients) (any, error) { return NewReclaim(c, cl) }, []string{"LINKS_TABLE"}},
	{"originauth", func(c config.Config, cl Clients) (any, error) { return NewOriginAuth(c, cl) }, []string{"ORIGIN_SECRET_ID"}},
	{"webhooks", func(c config.Config, cl Clients) (any, error) { return NewWebhooks(c, cl) }, []string{"KEYS_TABLE", "WEBHOOKS_TABLE"}},
	{"webhookstream", func(c config.Config, cl Clients) (any, error) { return NewWebhookStream(c, cl) },
		[]string{"WEBHOOKS_TABLE", "WEBHOOK_QUEUE_URL"}},
	{"webhookdelivery", func(c config.Config, cl Clients) (any, error) { return NewWebhookDelivery(c, cl) },
		[]string{"WEBHOOKS_TABLE", "WEBHOOK_QUEUE_URL", "WEBHOOK_DLQ_URL"}},
}

func TestEveryFunctionBuildsFromLambdasSettings(t *testing.T) {
	for _, tt := range constructors {
		t.Run(tt.name, func(t *testing.T) {
			h, err := tt.build(load(t), lambdaClients())
			require.NoError(t, err)
			assert.NotNil(t, h)
		})
	}
}

func TestEveryFunctionNamesEachMissingSetting(t *testing.T) {
	for _, tt := range constructors {
		for _, name := range tt.requires {
			t.Run(tt.name+" without "+name, func(t *testing.T) {
				_, err := tt.build(load(t, name), lambdaClients())
				require.Error(t, err)
				assert.Contains(t, err.Error(), name+" is not set")
			})
		}
	}
}

func TestLocalClientsStandInForSettings(t *testing.T) {
	// The local run has no distribution and no Secrets Manager: the local
	// edge and the run's own secret take their place.
	cfg := load(t, "EDGE_PARAMETER", "ORIGIN_SECRET_ID")
	c := lambdaClients()
	c.Edge = edgecache.NewRecorder(nil)
	c.OriginSecrets = originauthfn.Static{"s3cr3t"}

	mg, err := NewManage(cfg, c)
	require.NoError(t, err)
	assert.Same(t, c.Edge, mg.Edge, "the local edge takes the distribution's place")
	_, err = NewCreate(cfg, c)
	require.NoError(t, err)
	h, err := NewOriginAuth(cfg, c)
	require.NoError(t, err)
	assert.Equal(t, originauthfn.Static{"s3cr3t"}, h.Secrets)
}

// TestCreateNeedsTheEdgeParameterForTheHosts: create invalidates nothing
// (docs/lifecycle.md, "How fast a change shows"), but in Lambda it learns
// the distribution's own host from the edge parameter: the short links'
// host without a custom domain, and beside one (SHORTENER_BASE_URL) a host
// it must refuse links to. So it refuses to start without the parameter
// either way; the local run's own edge answers on the base URL alone.
func TestCreateNeedsTheEdgeParameterForTheHosts(t *testing.T) {
	h, err := NewCreate(load(t), lambdaClients())
	require.NoError(t, err)
	assert.Nil(t, h.BaseURL, "SHORTENER_BASE_URL is the host")
	assert.NotNil(t, h.EdgeHosts, "the distribution's own host is refused beside it")

	for _, without := range [][]string{{"EDGE_PARAMETER"}, {"EDGE_PARAMETER", "SHORTENER_BASE_URL"}} {
		_, err = NewCreate(load(t, without...), lambdaClients())
		require.ErrorContains(t, err, "EDGE_PARAMETER is not set", "without %v", without)
	}
}

// countingSource is the edge parameter, counting its reads.
type countingSource struct {
	info  edgeinfo.Info
	reads int
}

func (s *countingSource) Info(context.Context) (edgeinfo.Info, error) {
	s.reads++
	return s.info, nil
}

// TestTheDistributionIsLearntWhenFirstNeeded: create and manage start
// without reading the edge parameter (no start-up cost, and the edge stack
// may not have deployed yet), and learn from it, when a request needs
// them, the short links' host without a custom domain and (manage only)
// the distribution's ID.
func TestTheDistributionIsLearntWhenFirstNeeded(t *testing.T) {
	for _, tt := range []struct {
		name  string
		build func(config.Config, Clients) (edgecache.Invalidator, linkapi.BaseURLFunc, error)
	}{
		{"create", func(cfg config.Config, c Clients) (edgecache.Invalidator, linkapi.BaseURLFunc, error) {
			h, err := NewCreate(cfg, c)
			if err != nil {
				return nil, nil, err
			}
			return nil, h.BaseURL, nil
		}},
		{"manage", func(cfg config.Config, c Clients) (edgecache.Invalidator, linkapi.BaseURLFunc, error) {
			h, err := NewManage(cfg, c)
			if err != nil {
				return nil, nil, err
			}
			return h.Edge, h.BaseURL, nil
		}},
	} {
		t.Run(tt.name+" without a custom domain", func(t *testing.T) {
			src := &countingSource{info: edgeinfo.Info{DistributionID: "E2EXAMPLE12345", DomainName: "d111111abcdef8.cloudfront.net"}}
			c := lambdaClients()
			c.EdgeInfo = src
			edge, baseURL, err := tt.build(load(t, "SHORTENER_BASE_URL"), c)
			require.NoError(t, err)
			assert.Zero(t, src.reads, "nothing is read at start-up")

			require.NotNil(t, baseURL, "the short links' host is the distribution's")
			base, err := baseURL(context.Background())
			require.NoError(t, err)
			assert.Equal(t, "https://d111111abcdef8.cloudfront.net", base)
			if tt.name == "create" {
				assert.Nil(t, edge, "create invalidates nothing")
				return
			}
			require.IsType(t, &edgecache.Deferred{}, edge)
			id, err := edge.(*edgecache.Deferred).ID(context.Background())
			require.NoError(t, err)
			assert.Equal(t, "E2EXAMPLE12345", id)
		})
		t.Run(tt.name+" with a custom domain", func(t *testing.T) {
			c := lambdaClients()
			c.EdgeInfo = &countingSource{}
			_, baseURL, err := tt.build(load(t), c)
			require.NoError(t, err)
			assert.Nil(t, baseURL, "SHORTENER_BASE_URL is the short links' host: no lookup per request")
		})
	}
}

func TestLifecycleWritesGoToThePrimaryRegion(t *testing.T) {
	tests := []struct {
		name    string
		primary string
		want    string
	}{
		{name: "PRIMARY_REGION set", primary: "eu-west-1", want: "eu-west-1"},
		{name: "unset: this Region", primary: "", want: "eu-central-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := lambdaClients()
			assert.Equal(t, tt.want, c.primaryDynamoDB(config.Config{PrimaryRegion: tt.primary}).Options().Region)
			assert.Equal(t, "eu-central-1", c.dynamoDB().Options().Region, "the rest reads this Region's replica")
		})
	}
	local := dynamodb.New(dynamodb.Options{Region: "us-east-1"})
	c := Clients{DynamoDB: local}
	assert.Same(t, local, c.primaryDynamoDB(config.Config{PrimaryRegion: "eu-west-1"}), "DynamoDB Local serves every Region")
}

func TestFunctionsLogUnderTheirNames(t *testing.T) {
	var logs bytes.Buffer
	c := Clients{Log: slog.New(slog.NewJSONHandler(&logs, nil)), OriginSecrets: originauthfn.Static{"s3cr3t"}}
	h, err := NewOriginAuth(config.Config{}, c)
	require.NoError(t, err)

	res, err := h.Handle(context.Background(), events.APIGatewayV2CustomAuthorizerV2Request{
		Headers: map[string]string{strings.ToLower(originauthfn.HeaderName): "guess"},
	})
	require.NoError(t, err)
	require.False(t, res.IsAuthorized)

	var line map[string]any
	require.NoError(t, json.Unmarshal(logs.Bytes(), &line), "%s", logs.String())
	assert.Equal(t, "originauth", line["function"])
}

// TestReservationTableGoesInFront: with RESERVATION_TABLE, create, manage
// and reclaim write through the reservation table; without it, the links
// store alone answers, as in a deployment with one write Region.
func TestReservationTableGoesInFront(t *testing.T) {
	with := load(t)
	with.ReservationTable = "reservations"
	cr, err := NewCreate(with, lambdaClients())
	require.NoError(t, err)
	assert.IsType(t, &linkstore.Reserved{}, cr.Store)
	mg, err := NewManage(with, lambdaClients())
	require.NoError(t, err)
	assert.IsType(t, &linkstore.Reserved{}, mg.Store)
	rc, err := NewReclaim(with, lambdaClients())
	require.NoError(t, err)
	assert.IsType(t, &linkstore.Reserved{}, rc.Store)

	cr, err = NewCreate(load(t), lambdaClients())
	require.NoError(t, err)
	assert.IsType(t, &dynamo.LinkStore{}, cr.Store)
}

// hostRecorder answers every request with an error after noting its host:
// which Region's endpoint a client calls, with no network.
type hostRecorder struct {
	mu    sync.Mutex // edge marks are read from every Region at once
	hosts []string
}

func (r *hostRecorder) Do(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hosts = append(r.hosts, req.URL.Host)
	return nil, errors.New("no network in this test")
}

// regionalClients are lambdaClients in eu-central-1 whose requests only
// reach rec.
func regionalClients(rec *hostRecorder) Clients {
	c := lambdaClients()
	c.AWS.Credentials = credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", "")
	c.AWS.HTTPClient = rec
	c.AWS.RetryMaxAttempts = 1
	return c
}

// TestV1FunctionsReadPrimaryOnlyTablesInThePrimary: the /v1 functions run
// in every Region, but the analytics and webhooks tables are in the
// primary Region only: stats reads its link from this Region's replica and
// its counts from the primary (PRIMARY_REGION, eu-west-1), and the
// subscriptions API reads and writes the primary's webhooks table.
func TestV1FunctionsReadPrimaryOnlyTablesInThePrimary(t *testing.T) {
	ctx := context.Background()
	rec := &hostRecorder{}
	st, err := NewStats(load(t), regionalClients(rec))
	require.NoError(t, err)
	_, _ = st.Links.Get(ctx, "abc1234")
	_, _ = st.Clicks.Series(ctx, "abc1234", clickstore.Hour, time.Now().Add(-time.Hour), time.Now())
	assert.Equal(t, []string{"dynamodb.eu-central-1.amazonaws.com", "dynamodb.eu-west-1.amazonaws.com"}, rec.hosts)

	rec.hosts = nil
	_, _ = subscriptions(load(t), regionalClients(rec)).List(ctx, "team-a")
	assert.Equal(t, []string{"dynamodb.eu-west-1.amazonaws.com"}, rec.hosts)
}

// TestManageReadsEveryOriginRegionsMarks: with EDGE_MARKS_TABLES, manage
// reads each origin Region's marks table in that Region, and without it
// has no marks (it invalidates every change); the redirect writes its
// Region's table (EDGE_MARKS_TABLE), or none.
func TestManageReadsEveryOriginRegionsMarks(t *testing.T) {
	with := load(t)
	with.EdgeMarksTables = []edgemarks.Table{{Region: "eu-west-1", Name: "app-edge-marks"}, {Region: "eu-central-1", Name: "app-edge-marks"}}
	rec := &hostRecorder{}
	mg, err := NewManage(with, regionalClients(rec))
	require.NoError(t, err)
	require.NotNil(t, mg.Marks)
	held, err := mg.Marks.Held(context.Background(), "abc1234", time.Now())
	require.Error(t, err, "no network here")
	assert.True(t, held, "a failed read counts as held")
	assert.ElementsMatch(t, []string{"dynamodb.eu-west-1.amazonaws.com", "dynamodb.eu-central-1.amazonaws.com"}, rec.hosts)

	mg, err = NewManage(load(t), lambdaClients())
	require.NoError(t, err)
	assert.Nil(t, mg.Marks)

	cfg := load(t)
	rd, err := NewRedirect(cfg, lambdaClients())
	require.NoError(t, err)
	assert.Nil(t, rd.Marks)
	cfg.EdgeMarksTable = "app-edge-marks"
	rd, err = NewRedirect(cfg, lambdaClients())
	require.NoError(t, err)
	assert.NotNil(t, rd.Marks)
}

// TestCreateNeedsNoIdempotencyTableWithReservations: with the reservation
// table, Idempotency-Key claims live there, so the stack gives create no
// idempotency table; without it, create still refuses to start lacking one.
func TestCreateNeedsNoIdempotencyTableWithReservations(t *testing.T) {
	with := load(t, "IDEMPOTENCY_TABLE")
	with.ReservationTable = "reservations"
	cr, err := NewCreate(with, lambdaClients())
	require.NoError(t, err)
	assert.IsType(t, &linkstore.Reserved{}, cr.Store)

	_, err = NewCreate(load(t, "IDEMPOTENCY_TABLE"), lambdaClients())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "IDEMPOTENCY_TABLE is not set")
}

func TestClickStoreLayout(t *testing.T) {
	for _, tt := range []struct {
		layout      string
		wantPacked  bool
		wantCompact bool
	}{
		{layout: config.ClickStoreItems},
		{layout: config.ClickStorePacked, wantPacked: true, wantCompact: true},
	} {
		t.Run(tt.layout, func(t *testing.T) {
			cfg := config.Config{AnalyticsTable: "analytics", LinksTable: "links", KeysTable: "keys", ClickStore: tt.layout}

			h, err := NewClicks(cfg, lambdaClients())
			require.NoError(t, err)
			s, err := NewStats(cfg, lambdaClients())
			require.NoError(t, err)

			_, packed := h.Store.(*packedclicks.Store)
			assert.Equal(t, tt.wantPacked, packed)
			assert.Equal(t, tt.wantCompact, h.Compactor != nil)
			_, packed = s.Clicks.(*packedclicks.Store)
			assert.Equal(t, tt.wantPacked, packed, "stats reads the layout clicks writes")
		})
	}
}
