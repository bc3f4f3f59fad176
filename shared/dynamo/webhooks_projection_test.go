package dynamo_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// recorder is a dynamo.API that keeps the reads it is asked for and
// answers them with a stored subscription item, secret included, as
// DynamoDB would when no projection is asked.
type recorder struct {
	dynamo.API
	queries []*dynamodb.QueryInput
	gets    []*dynamodb.GetItemInput
}

func (r *recorder) item() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"owner_id": &types.AttributeValueMemberS{Value: "alice"}, "sk": &types.AttributeValueMemberS{Value: "sub#wh_1"},
		"url":    &types.AttributeValueMemberS{Value: "https://hooks.example.com/"},
		"events": &types.AttributeValueMemberSS{Value: []string{"link.created"}}, "secret": &types.AttributeValueMemberS{Value: "whsec_c2VjcmV0"},
		"v": &types.AttributeValueMemberN{Value: "3"},
	}
}

func (r *recorder) Query(_ context.Context, in *dynamodb.QueryInput, _ ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	r.queries = append(r.queries, in)
	return &dynamodb.QueryOutput{Items: []map[string]types.AttributeValue{r.item()}}, nil
}

func (r *recorder) GetItem(_ context.Context, in *dynamodb.GetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	r.gets = append(r.gets, in)
	return &dynamodb.GetItemOutput{Item: r.item()}, nil
}

// projected returns the attribute names a projection expression asks for,
// placeholders resolved.
func projected(t *testing.T, expr *string, names map[string]string) []string {
	t.Helper()
	require.NotNil(t, expr, "a projection: without one DynamoDB returns every attribute, the secret too")
	var out []string
	for _, p := range strings.Split(*expr, ",") {
		p = strings.TrimSpace(p)
		if n, ok := names[p]; ok {
			p = n
		}
		out = append(out, p)
	}
	return out
}

// TestListAndVersionProjectTheSecretOut: the reads the fan-out makes
// (webhookstream and clicks list an owner's subscriptions and read the
// version) name their attributes, never the secret, and ask for
// SPECIFIC_ATTRIBUTES: what the IAM condition on those functions' roles
// (infra/webhooks) lets through.
func TestListAndVersionProjectTheSecretOut(t *testing.T) {
	db := &recorder{}
	st := dynamo.NewWebhookStore(db, dynamo.Config{Table: "hooks", Timeout: time.Second})

	subs, err := st.List(context.Background(), "alice")
	require.NoError(t, err)
	require.Len(t, db.queries, 1)
	q := db.queries[0]
	assert.Equal(t, types.SelectSpecificAttributes, q.Select)
	names := projected(t, q.ProjectionExpression, q.ExpressionAttributeNames)
	assert.NotContains(t, names, "secret")
	for _, n := range q.ExpressionAttributeNames {
		assert.True(t, slices.Contains(tableschema.WebhookReadableAttributes, n), "%s is readable", n)
	}
	for _, n := range names {
		assert.True(t, slices.Contains(tableschema.WebhookReadableAttributes, n), "%s is readable", n)
	}
	require.Len(t, subs, 1)
	assert.Empty(t, subs[0].Secret, "a secret the table answered anyway is not passed on")
	assert.Equal(t, "https://hooks.example.com/", subs[0].URL)

	_, err = st.Version(context.Background())
	require.NoError(t, err)
	require.Len(t, db.gets, 1)
	g := db.gets[0]
	assert.Equal(t, []string{"v"}, projected(t, g.ProjectionExpression, g.ExpressionAttributeNames))
	assert.NotContains(t, tableschema.WebhookReadableAttributes, "secret")
}
