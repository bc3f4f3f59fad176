package rie_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localsqs"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/tableschema"
	"github.com/shortlink-dev/shortener/shared/webhook"
)

// webhookEnv creates a webhooks table and returns the functions'
// environment for it. The queue URLs point where nothing listens: a case
// that sends to the queue points AWS_ENDPOINT_URL_SQS at the local queues,
// and one that did not would fail.
func webhookEnv(t testing.TB, tb tables) (map[string]string, *dynamo.WebhookStore) {
	t.Helper()
	table := testenv.UniqueName(t, "webhooks")
	require.NoError(t, localtable.Create(context.Background(), testenv.DynamoDBClient(t), table, tableschema.Webhooks()))
	e := tb.env()
	e["WEBHOOKS_TABLE"] = table
	e["WEBHOOK_QUEUE_URL"] = "http://127.0.0.1:1/000000000000/deliveries"
	e["WEBHOOK_DLQ_URL"] = "http://127.0.0.1:1/000000000000/dead-letters"
	return e, dynamo.NewWebhookStore(testenv.DynamoDBClient(t), dynamo.Config{Table: table})
}

func testWebhooks(t *testing.T, tb tables, _ *shared) {
	e, store := webhookEnv(t, tb)
	f := start(t, "webhooks", env(t, "webhooks", e))

	resp := apiResponse(t, invoke(t, f, fixture(t, "webhooks", "create-request.json", nil)))
	require.Equal(t, 201, resp.StatusCode, "%s", resp.Body)
	var out struct{ ID, Secret string }
	require.NoError(t, json.Unmarshal([]byte(resp.Body), &out))
	subs, err := store.List(context.Background(), owner)
	require.NoError(t, err)
	require.Len(t, subs, 1)
	assert.Equal(t, out.ID, subs[0].ID)
	assert.Empty(t, subs[0].Secret, "listing reads no secret")
	kept, err := store.Get(context.Background(), owner, out.ID)
	require.NoError(t, err)
	assert.Equal(t, out.Secret, kept.Secret)

	// As deployed, a loopback receiver is refused.
	resp = apiResponse(t, invoke(t, f, fixture(t, "webhooks", "create-request.json", func(ev map[string]any) {
		ev["body"] = `{"url":"https://127.0.0.1/hook","events":["link.created"]}`
	})))
	assert.Equal(t, 400, resp.StatusCode, "%s", resp.Body)
	assert.NotContains(t, f.Output(), out.Secret, "the secret is never logged")
}

func testWebhookStream(t *testing.T, tb tables, _ *shared) {
	e, store := webhookEnv(t, tb)
	f := start(t, "webhookstream", env(t, "webhookstream", e))
	// The fixture's owner has no subscription: nothing is queued.
	res := invoke(t, f, fixture(t, "webhookstream", "insert.json", nil))
	var resp events.DynamoDBEventResponse
	require.NoError(t, json.Unmarshal(res.Body, &resp), "%s", res.Body)
	assert.Empty(t, resp.BatchItemFailures)

	// With a subscription, the event is sent to the queue: the bootstrap's
	// signed SendMessage (sqssend), at the SQS endpoint the SDK's variable
	// names, reaches the local queues as the JSON protocol.
	queue := localsqs.New(localsqs.Options{Name: "deliveries"})
	sqs := httptest.NewServer(localsqs.Queues{e["WEBHOOK_QUEUE_URL"]: queue})
	defer sqs.Close()
	require.NoError(t, store.Create(context.Background(), webhook.Subscription{ID: "wh_rie_stream", Owner: owner,
		URL: "https://hooks.example.com/in", Events: []string{webhook.LinkCreated},
		Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", CreatedAt: time.Now()}))
	e["AWS_ENDPOINT_URL_SQS"] = sqs.URL
	f = start(t, "webhookstream", env(t, "webhookstream", e))
	res = invoke(t, f, fixture(t, "webhookstream", "insert.json", nil))
	resp = events.DynamoDBEventResponse{}
	require.NoError(t, json.Unmarshal(res.Body, &resp), "%s", res.Body)
	assert.Empty(t, resp.BatchItemFailures, "%s", f.Output())
	bodies := queue.Bodies()
	require.Len(t, bodies, 1, "%s", f.Output())
	var m webhook.Message
	require.NoError(t, json.Unmarshal([]byte(bodies[0]), &m))
	assert.Equal(t, "wh_rie_stream", m.Subscription)
	assert.Equal(t, webhook.LinkCreated, m.Event.Type)
	assert.Equal(t, 1, m.Attempt)
}

func testWebhookDelivery(t *testing.T, tb tables, _ *shared) {
	e, store := webhookEnv(t, tb)
	var calls atomic.Int32
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		w.WriteHeader(204)
	}))
	defer receiver.Close()
	// A receiver that reaches loopback (as a name re-pointed after
	// creation would): the deployed function refuses it at dial time.
	require.NoError(t, store.Create(context.Background(), webhook.Subscription{ID: "wh_rie", Owner: owner, URL: receiver.URL,
		Events: []string{webhook.LinkCreated}, Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", CreatedAt: time.Now()}))
	f := start(t, "webhookdelivery", env(t, "webhookdelivery", e))
	msg, err := json.Marshal(webhook.Message{Subscription: "wh_rie", Attempt: 1, Event: webhook.Event{
		ID: "msg_rie", Owner: owner, Type: webhook.LinkCreated, Timestamp: time.Now(), Data: json.RawMessage(`{"code":"Ab3dE5g"}`)}})
	require.NoError(t, err)
	res := invoke(t, f, fixture(t, "webhookdelivery", "sqs-delivery.json", func(ev map[string]any) {
		ev["Records"].([]any)[0].(map[string]any)["body"] = string(msg)
	}))
	var resp events.SQSEventResponse
	require.NoError(t, json.Unmarshal(res.Body, &resp), "%s", res.Body)
	assert.Empty(t, resp.BatchItemFailures)
	assert.Zero(t, calls.Load(), "no request reached the loopback receiver")
	ds, err := store.Deliveries(context.Background(), owner, "wh_rie", 10)
	require.NoError(t, err)
	require.Len(t, ds, 1)
	assert.Equal(t, webhook.StatusRefused, ds[0].Status)
}
