package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/originauth/originauthfn"
	"github.com/shortlink-dev/shortener/shared/clickstore/packedclicks"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/edgecache"
)

// everySetting is the environment infra gives the functions, each setting
// a function may need present.
var everySetting = map[string]string{
	"LINKS_TABLE":        "links",
	"IDEMPOTENCY_TABLE":  "idempotency",
	"KEYS_TABLE":         "keys",
	"ANALYTICS_TABLE":    "analytics",
	"SHORTENER_BASE_URL": "https://sho.rt",
	"DISTRIBUTION_ID":    "E2EXAMPLE0DIST",
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
	{"create", func(c config.Config, cl Clients) (any, error) { return NewCreate(c, cl) },
		[]string{"LINKS_TABLE", "IDEMPOTENCY_TABLE", "KEYS_TABLE", "SHORTENER_BASE_URL", "DISTRIBUTION_ID"}},
	{"redirect", func(c config.Config, cl Clients) (any, error) { return NewRedirect(c, cl) }, []string{"LINKS_TABLE"}},
	{"manage", func(c config.Config, cl Clients) (any, error) { return NewManage(c, cl) },
		[]string{"LINKS_TABLE", "KEYS_TABLE", "SHORTENER_BASE_URL", "DISTRIBUTION_ID"}},
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
	cfg := load(t, "DISTRIBUTION_ID", "ORIGIN_SECRET_ID")
	c := lambdaClients()
	c.Edge = edgecache.NewRecorder(nil)
	c.OriginSecrets = originauthfn.Static{"s3cr3t"}

	_, err := NewManage(cfg, c)
	require.NoError(t, err)
	cr, err := NewCreate(cfg, c)
	require.NoError(t, err)
	assert.Same(t, c.Edge, cr.Edge, "the local edge takes the distribution's place")
	h, err := NewOriginAuth(cfg, c)
	require.NoError(t, err)
	assert.Equal(t, originauthfn.Static{"s3cr3t"}, h.Secrets)
}

// TestCreateInvalidatesTheDistribution: in Lambda, create purges a new
// alias's cached 404 from the distribution, so without one it refuses to
// start rather than let that 404 outlive the negative-cache TTL.
func TestCreateInvalidatesTheDistribution(t *testing.T) {
	_, err := NewCreate(load(t, "DISTRIBUTION_ID"), lambdaClients())
	require.ErrorContains(t, err, "DISTRIBUTION_ID")

	h, err := NewCreate(load(t), lambdaClients())
	require.NoError(t, err)
	assert.IsType(t, &edgecache.CloudFront{}, h.Edge)
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
