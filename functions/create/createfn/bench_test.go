package createfn

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/metrics"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// BenchmarkCreateDynamoDB compares the whole create handler with the bare
// conditional PutItem it is built on, in the same run, on the same
// DynamoDB Local.
func BenchmarkCreateDynamoDB(b *testing.B) {
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(b))
	cfg := dynamo.LinkConfig{LinksTable: testenv.UniqueName(b, "bench-links"), IdempotencyTable: testenv.UniqueName(b, "bench-idem")}
	ctx := context.Background()
	require.NoError(b, localtable.Links(ctx, db, cfg.LinksTable, cfg.IdempotencyTable))

	now := time.Now()
	i := 0
	put := func() error {
		i++
		item := map[string]types.AttributeValue{
			"code":       &types.AttributeValueMemberS{Value: fmt.Sprintf("raw%08d", i)},
			"url":        &types.AttributeValueMemberS{Value: "https://example.com/landing?utm_source=newsletter"},
			"owner_id":   &types.AttributeValueMemberS{Value: "bench"},
			"created_at": &types.AttributeValueMemberN{Value: strconv.FormatInt(now.UnixMilli(), 10)},
			"expires_at": &types.AttributeValueMemberN{Value: strconv.FormatInt(now.Add(link.DefaultTTL).Unix(), 10)},
		}
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &cfg.LinksTable, Item: item,
			ConditionExpression: aws.String("attribute_not_exists(code)")})
		return err
	}
	rawPut := func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := put(); err != nil {
				b.Fatal(err)
			}
		}
	}
	// DynamoDB Local is a JVM: warm it up first, or whichever runs first
	// pays for its JIT and the comparison says nothing.
	for range 500 {
		require.NoError(b, put())
	}
	b.Run("raw-conditional-PutItem", rawPut)
	b.Run("handler", func(b *testing.B) {
		h := newHandler(b, Options{
			Store:   dynamo.NewLinkStore(db, cfg),
			Now:     time.Now,
			Metrics: metrics.New(io.Discard, "Shortener", "create"),
		})
		ev := event(b, "create-request.json")
		b.ReportAllocs()
		for b.Loop() {
			if resp, _ := h.Handle(ctx, ev); resp.StatusCode != 201 {
				b.Fatal(resp.StatusCode, resp.Body)
			}
		}
	})
	b.Run("raw-conditional-PutItem-again", rawPut)
}
