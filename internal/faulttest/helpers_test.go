package faulttest

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/eventtest"
	"github.com/shortlink-dev/shortener/internal/faults"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/internal/logtest"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// rig is one test's DynamoDB: fresh tables, a plain client for setup and
// checks, and a client with a fault injector for the code under test.
type rig struct {
	inj    *faults.Injector
	faulty *dynamodb.Client
	plain  *dynamodb.Client
	links  string
	idem   string
}

func newRig(t *testing.T) *rig {
	t.Helper()
	ep := testenv.DynamoDBEndpoint(t)
	r := &rig{
		inj:   faults.New(),
		plain: emulator.NewDynamoDBClient(ep),
		links: testenv.UniqueName(t, "links"),
		idem:  testenv.UniqueName(t, "idem"),
	}
	r.faulty = emulator.NewDynamoDBClient(ep, r.inj.DynamoDB)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, localtable.Links(ctx, r.plain, r.links, r.idem))
	return r
}

// config loads the functions' configuration as Lambda would read it from
// the environment, with the rig's tables and the given settings.
func (r *rig) config(t *testing.T, settings map[string]string) config.Config {
	t.Helper()
	env := map[string]string{
		"LINKS_TABLE":        r.links,
		"IDEMPOTENCY_TABLE":  r.idem,
		"SHORTENER_BASE_URL": "https://sho.rt",
	}
	for k, v := range settings {
		env[k] = v
	}
	cfg, err := config.Load(func(k string) string { return env[k] })
	require.NoError(t, err)
	return cfg
}

// store is a link store over the plain client, for setup and checks. Its
// links may be removed by TTL at their expiry (PurgeDelay -1), so the
// stream tests exercise the backstop path.
func (r *rig) store() *dynamo.LinkStore {
	return dynamo.NewLinkStore(r.plain, dynamo.LinkConfig{LinksTable: r.links, IdempotencyTable: r.idem, PurgeDelay: -1})
}

// putLink writes an active link directly.
func (r *rig) putLink(t *testing.T, code, url string, expires time.Time) {
	t.Helper()
	now := time.Now().UTC().Add(-time.Hour).Truncate(time.Millisecond)
	require.NoError(t, r.store().Create(context.Background(), link.Link{
		Code: code, Owner: "fault-owner", URL: url, CreatedAt: now, UpdatedAt: now,
		ExpiresAt: expires.Truncate(time.Second), Status: link.StatusActive, Version: 1, RedirectStatus: 302,
	}, nil))
}

// items returns every item of the links table, by code.
func (r *rig) items(t *testing.T) map[string]map[string]types.AttributeValue {
	t.Helper()
	got := map[string]map[string]types.AttributeValue{}
	p := dynamodb.NewScanPaginator(r.plain, &dynamodb.ScanInput{TableName: &r.links, ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		require.NoError(t, err)
		for _, it := range out.Items {
			got[it[tableschema.AttrCode].(*types.AttributeValueMemberS).Value] = it
		}
	}
	return got
}

// event reads an API Gateway fixture of a handler.
func event(t *testing.T, fn, name string, edit func(*events.APIGatewayProxyRequest)) events.APIGatewayProxyRequest {
	t.Helper()
	ev := eventtest.Load[events.APIGatewayProxyRequest](t, filepath.Join("../../functions", fn, fn+"fn", "testdata", name))
	if edit != nil {
		edit(&ev)
	}
	return ev
}

// syncBuffer takes the handlers' logs and metrics, written from the
// pollers' goroutines.
type syncBuffer struct{ logtest.Buffer }

// metric sums one metric over the EMF records written so far.
func (s *syncBuffer) metric(t *testing.T, name string) float64 {
	t.Helper()
	var sum float64
	for _, m := range s.Lines(t) {
		if v, ok := m[name].(float64); ok {
			sum += v
		}
	}
	return sum
}

func jsonLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewJSONHandler(w, nil)) }

// eventually polls cond until it holds or a minute passes. The minute is a
// bound on the test, not a figure it asserts.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within a minute: %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// putOwnedLink writes (or writes again) an active link of the handlers'
// fixture owner, version 1, created an hour ago.
func (r *rig) putOwnedLink(t *testing.T, code string) {
	t.Helper()
	ctx := context.Background()
	_, err := r.plain.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &r.links,
		Key: map[string]types.AttributeValue{tableschema.AttrCode: &types.AttributeValueMemberS{Value: code}}})
	require.NoError(t, err)
	now := time.Now().UTC().Add(-time.Hour).Truncate(time.Millisecond)
	require.NoError(t, r.store().Create(ctx, link.Link{
		Code: code, Owner: fixtureOwner, URL: "https://example.com/" + code, CreatedAt: now, UpdatedAt: now,
		ExpiresAt: now.Add(48 * time.Hour).Truncate(time.Second), Status: link.StatusActive, Version: 1, RedirectStatus: 302,
	}, nil))
}
