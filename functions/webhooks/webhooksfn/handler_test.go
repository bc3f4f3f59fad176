package webhooksfn_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/webhooks/webhooksfn"
	"github.com/shortlink-dev/shortener/shared/apigw/apigwtest"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/webhook"
)

// resolver answers every host with one fixed address.
type resolver map[string]string

func (r resolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	return []net.IPAddr{{IP: net.ParseIP(r[host])}}, nil
}

// logBuffer collects the handler's log lines.
type logBuffer struct{ bytes.Buffer }

func newHandler(t *testing.T, store webhook.Store, logs io.Writer) *webhooksfn.Handler {
	t.Helper()
	return webhooksfn.New(webhooksfn.Options{
		Store:   store,
		Owners:  apikey.NewResolver(apikey.NewMemory(map[string]string{"key-a": "alice", "key-b": "bob"}), apikey.ResolverOptions{}),
		Guard:   webhook.Guard{Resolver: resolver{"hooks.example.com": "93.184.215.14", "internal.example.com": "10.0.0.7"}},
		Now:     func() time.Time { return time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC) },
		Log:     slog.New(slog.NewJSONHandler(logs, nil)),
		Metrics: metrics.New(io.Discard, "Shortener", "webhooks"),
	})
}

func request(method, resource, key, id, body string) events.APIGatewayProxyRequest {
	path := resource
	if id != "" {
		path = strings.Replace(resource, "{id}", id, 1)
	}
	req := events.APIGatewayProxyRequest{HTTPMethod: method, Resource: resource, Path: path, Body: body,
		Headers: map[string]string{"Content-Type": "application/json"}}
	req.RequestContext.Identity.APIKey = key
	if id != "" {
		req.PathParameters = map[string]string{"id": id}
	}
	return req
}

func TestCreate(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		status int
		field  string
	}{
		{name: "all events", status: 201, body: `{"url":"https://hooks.example.com/in","events":["link.clicked","link.created","link.updated","link.deleted","link.expired"],"human_only":true}`},
		{name: "one event", status: 201, body: `{"url":"https://hooks.example.com/in","events":["link.created"]}`},
		{name: "no url", status: 400, field: "url", body: `{"events":["link.created"]}`},
		{name: "no events", status: 400, field: "events", body: `{"url":"https://hooks.example.com/in","events":[]}`},
		{name: "unknown event", status: 400, field: "events", body: `{"url":"https://hooks.example.com/in","events":["link.viewed"]}`},
		{name: "twice", status: 400, field: "events", body: `{"url":"https://hooks.example.com/in","events":["link.created","link.created"]}`},
		{name: "http", status: 400, field: "url", body: `{"url":"http://hooks.example.com/in","events":["link.created"]}`},
		{name: "private after DNS", status: 400, field: "url", body: `{"url":"https://internal.example.com/in","events":["link.created"]}`},
		{name: "metadata", status: 400, field: "url", body: `{"url":"https://169.254.169.254/latest","events":["link.created"]}`},
		{name: "unknown field", status: 400, field: "secret", body: `{"url":"https://hooks.example.com/in","events":["link.created"],"secret":"mine"}`},
		{name: "not json", status: 400, field: "body", body: `nope`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := webhook.NewMemory()
			resp, err := newHandler(t, store, io.Discard).Handle(context.Background(), request("POST", webhooksfn.ResourceWebhooks, "key-a", "", tt.body))
			require.NoError(t, err)
			subs, _ := store.List(context.Background(), "alice")
			if tt.status != 201 {
				apigwtest.RequireProblem(t, resp, tt.status, tt.field)
				assert.Empty(t, subs, "nothing written")
				return
			}
			require.Equal(t, 201, resp.StatusCode, resp.Body)
			out := apigwtest.Decode[webhooksfn.Created](t, resp)
			assert.Regexp(t, `^wh_[a-z2-7]{26}$`, out.ID)
			assert.Regexp(t, `^whsec_[A-Za-z0-9+/]{43}=$`, out.Secret)
			require.Len(t, subs, 1)
			kept, err := store.Get(context.Background(), "alice", out.ID)
			require.NoError(t, err)
			assert.Equal(t, out.Secret, kept.Secret, "the secret is kept for signing")
			assert.Equal(t, out.Events, subs[0].Events)
		})
	}
}

func TestOwnerScoped(t *testing.T) {
	ctx := context.Background()
	store := webhook.NewMemory()
	var logs logBuffer
	h := newHandler(t, store, &logs)
	resp, err := h.Handle(ctx, request("POST", webhooksfn.ResourceWebhooks, "key-a", "", `{"url":"https://hooks.example.com/a","events":["link.created"]}`))
	require.NoError(t, err)
	require.Equal(t, 201, resp.StatusCode)
	created := apigwtest.Decode[webhooksfn.Subscription](t, resp)

	resp, _ = h.Handle(ctx, request("GET", webhooksfn.ResourceWebhooks, "key-b", "", ""))
	assert.JSONEq(t, `{"webhooks":[]}`, resp.Body)
	resp, _ = h.Handle(ctx, request("GET", webhooksfn.ResourceWebhooks, "key-a", "", ""))
	assert.Contains(t, resp.Body, created.ID)
	assert.NotContains(t, resp.Body, "whsec_", "the secret is shown once")

	resp, _ = h.Handle(ctx, request("GET", webhooksfn.ResourceDeliveries, "key-b", created.ID, ""))
	apigwtest.RequireProblem(t, resp, 404, "")
	resp, _ = h.Handle(ctx, request("DELETE", webhooksfn.ResourceWebhook, "key-b", created.ID, ""))
	apigwtest.RequireProblem(t, resp, 404, "")
	resp, _ = h.Handle(ctx, request("DELETE", webhooksfn.ResourceWebhook, "key-a", "../x", ""))
	apigwtest.RequireProblem(t, resp, 404, "")

	require.NoError(t, store.Record(ctx, "alice", webhook.Delivery{Subscription: created.ID, EventID: "msg_1", Event: webhook.LinkCreated,
		Attempt: 1, Status: webhook.StatusRetrying, ResponseCode: 500, At: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC),
		NextRetry: time.Date(2026, 12, 1, 10, 0, 5, 0, time.UTC)}))
	resp, _ = h.Handle(ctx, request("GET", webhooksfn.ResourceDeliveries, "key-a", created.ID, ""))
	assert.JSONEq(t, `{"deliveries":[{"event_id":"msg_1","event":"link.created","attempt":1,"status":"retrying","response_code":500,"at":"2026-12-01T10:00:00Z","next_retry":"2026-12-01T10:00:05Z"}]}`, resp.Body)

	resp, _ = h.Handle(ctx, request("DELETE", webhooksfn.ResourceWebhook, "key-a", created.ID, ""))
	assert.Equal(t, 204, resp.StatusCode)
	resp, _ = h.Handle(ctx, request("DELETE", webhooksfn.ResourceWebhook, "key-a", created.ID, ""))
	apigwtest.RequireProblem(t, resp, 404, "")

	resp, _ = h.Handle(ctx, request("GET", webhooksfn.ResourceWebhooks, "", "", ""))
	apigwtest.RequireProblem(t, resp, 401, "")
	assert.NotContains(t, logs.String(), "whsec_", "no secret in the logs")
}
