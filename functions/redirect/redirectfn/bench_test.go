package redirectfn

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/eventtest"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func benchEvent(b *testing.B, code string) events.APIGatewayProxyRequest {
	ev := eventtest.Load[events.APIGatewayProxyRequest](b, "testdata/redirect-get.json")
	ev.Path, ev.PathParameters = "/"+code, map[string]string{"code": code}
	return ev
}

func benchHandler(b *testing.B, store Getter) *Handler {
	cfg, err := config.Load(func(string) string { return "" })
	require.NoError(b, err)
	return New(Options{Store: store, Config: cfg,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: metrics.New(io.Discard, "Shortener", "redirect")})
}

func activeLink(code string) link.Link {
	now := time.Now().UTC().Truncate(time.Millisecond)
	return link.Link{Code: code, URL: "https://example.com/landing/" + code, Owner: "bench",
		CreatedAt: now.Add(-time.Hour), UpdatedAt: now.Add(-time.Hour), ExpiresAt: now.Add(link.DefaultTTL).Truncate(time.Second),
		Status: link.StatusActive, Version: 1, RedirectStatus: 302}
}

// BenchmarkRedirectWarmHit is the redirect Lambda's hot path: event in,
// 302 out, the link already in the in-process cache.
func BenchmarkRedirectWarmHit(b *testing.B) {
	store := linkstore.NewMemory(nil)
	require.NoError(b, store.Create(context.Background(), activeLink("Ab3dE5g"), nil))
	h := benchHandler(b, store)
	ev := benchEvent(b, "Ab3dE5g")
	ctx := context.Background()
	resp, _ := h.Handle(ctx, ev)
	require.Equal(b, 302, resp.StatusCode)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		h.Handle(ctx, ev)
	}
}

// BenchmarkRedirectMissDynamoDB compares a cache miss through the whole
// handler with the bare SDK GetItem it is built on, in the same run,
// against the same DynamoDB Local table.
func BenchmarkRedirectMissDynamoDB(b *testing.B) {
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(b))
	cfg := dynamo.LinkConfig{LinksTable: testenv.UniqueName(b, "bench-links"), IdempotencyTable: testenv.UniqueName(b, "bench-idem")}
	ctx := context.Background()
	require.NoError(b, localtable.Links(ctx, db, cfg.LinksTable, cfg.IdempotencyTable))
	store := dynamo.NewLinkStore(db, cfg)
	require.NoError(b, store.Create(ctx, activeLink("Ab3dE5g"), nil))

	in := &dynamodb.GetItemInput{TableName: &cfg.LinksTable,
		Key: map[string]types.AttributeValue{tableschema.AttrCode: &types.AttributeValueMemberS{Value: "Ab3dE5g"}}}
	// DynamoDB Local is a JVM: warm it up first, or whichever runs first
	// pays for its JIT and the comparison says nothing.
	for range 500 {
		if _, err := db.GetItem(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("raw-GetItem", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := db.GetItem(ctx, in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("handler-miss", func(b *testing.B) {
		h := benchHandler(b, store)
		ev := benchEvent(b, "Ab3dE5g")
		b.ReportAllocs()
		for b.Loop() {
			h.Cache.Invalidate("Ab3dE5g")
			if resp, _ := h.Handle(ctx, ev); resp.StatusCode != 302 {
				b.Fatal(fmt.Sprint(resp.StatusCode, resp.Body))
			}
		}
	})
	b.Run("raw-GetItem-again", func(b *testing.B) {
		// Run the baseline twice, before and after, to show the drift of
		// a shared machine within one run.
		for b.Loop() {
			if _, err := db.GetItem(ctx, in); err != nil {
				b.Fatal(err)
			}
		}
	})
}
