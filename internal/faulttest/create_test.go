package faulttest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/create/createfn"
	"github.com/shortlink-dev/shortener/internal/faults"
	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

func TestCreateUnderFaultsYieldsExactlyOneLink(t *testing.T) {
	const dbTimeout = 500 * time.Millisecond
	tests := []struct {
		name string
		rule faults.Rule
		// committed: the fault hits after the transaction took effect.
		committed bool
		// firstStatus is the first request's answer.
		firstStatus int
	}{
		{
			name: "throttled on every attempt",
			rule: faults.Rule{Op: "TransactWriteItems", Attempt: true, Err: faults.Throttled()}, firstStatus: 503,
		},
		{
			name: "stalled past the deadline",
			rule: faults.Rule{Op: "TransactWriteItems", Delay: time.Hour}, firstStatus: 503,
		},
		{
			// The nasty one: DynamoDB committed the link and its
			// idempotency record, and the answer never came back.
			name: "committed, answer lost",
			rule: faults.Rule{Op: "TransactWriteItems", After: true, Err: faults.ConnectionLost()}, committed: true, firstStatus: 503,
		},
		{
			name: "committed, answer later than the deadline",
			rule: faults.Rule{Op: "TransactWriteItems", After: true, Delay: time.Hour}, committed: true, firstStatus: 503,
		},
		{
			// The same inside the SDK: it sends the transaction again,
			// which now collides with its own first attempt; the handler
			// finds the idempotency record and answers with its link.
			name:      "committed, answer lost, retried by the SDK",
			rule:      faults.Rule{Op: "TransactWriteItems", Attempt: true, After: true, Times: 1, Err: faults.ConnectionLost()},
			committed: true, firstStatus: 201,
		},
		{
			// A retry under the same key while the first attempt's
			// transaction is in flight: DynamoDB cancels one of the two.
			name: "canceled by a concurrent transaction on the key",
			rule: faults.Rule{Op: "TransactWriteItems", Reply: faults.ReplyTransactionCanceled("None", "TransactionConflict")}, firstStatus: 503,
		},
		{
			name: "canceled by throttling",
			rule: faults.Rule{Op: "TransactWriteItems", Reply: faults.ReplyTransactionCanceled("ThrottlingError", "None")}, firstStatus: 503,
		},
		{
			name: "ThrottlingException on every attempt",
			rule: faults.Rule{Op: "TransactWriteItems", Reply: faults.ReplyThrottling()}, firstStatus: 503,
		},
		{
			name: "RequestLimitExceeded on every attempt",
			rule: faults.Rule{Op: "TransactWriteItems", Reply: faults.ReplyRequestLimitExceeded()}, firstStatus: 503,
		},
		{
			name: "ProvisionedThroughputExceeded on the wire on every attempt",
			rule: faults.Rule{Op: "TransactWriteItems", Reply: faults.ReplyThroughputExceeded()}, firstStatus: 503,
		},
		{
			name: "idempotency lookup throttled",
			rule: faults.Rule{Op: "GetItem", Reply: faults.ReplyThrottling()}, firstStatus: 503,
		},
		{
			name: "idempotency lookup failing",
			rule: faults.Rule{Op: "GetItem", Attempt: true, Err: faults.ServerError()}, firstStatus: 503,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			cfg := r.config(t, map[string]string{"SHORTENER_DB_TIMEOUT": dbTimeout.String()})
			var logs, emf syncBuffer
			// Built as functions/create/main.go builds it, over the faulty client.
			h, err := createfn.New(createfn.Options{
				Store: dynamo.NewLinkStore(r.faulty, dynamo.LinkConfig{
					LinksTable: cfg.LinksTable, IdempotencyTable: cfg.IdempotencyTable, Timeout: cfg.DBTimeout,
				}),
				Config:  cfg,
				Log:     jsonLogger(&logs),
				Metrics: metrics.New(&emf, "Shortener", "create"),
				// The keys table in memory: the faults here are the links
				// and idempotency tables'.
				Owners: apikey.NewResolver(apikey.NewMemory(map[string]string{"k3yV4lu3Examp1e": "p6r4ocs3d1"}), apikey.ResolverOptions{}),
			})
			require.NoError(t, err)
			// The real event, with its Idempotency-Key header.
			ev := event(t, "create", "create-idempotent.json", nil)
			send := func() (events.APIGatewayProxyResponse, time.Duration) {
				start := time.Now()
				resp, err := h.Handle(context.Background(), ev)
				require.NoError(t, err)
				return resp, time.Since(start)
			}

			f := r.inj.Add(tt.rule)
			first, took := send()
			require.Equal(t, tt.firstStatus, first.StatusCode, "%s", first.Body)
			assert.Positive(t, f.Fired())
			if first.StatusCode == 503 {
				assert.Equal(t, "application/problem+json", first.Headers["Content-Type"])
				assert.NotEmpty(t, first.Headers["Retry-After"], "the client is told to retry")
				assert.Contains(t, first.Body, "Idempotency-Key")
				// Bounded by the store's deadline, not by the fault.
				assert.Less(t, took, dbTimeout+margin)
			}
			want := 0
			if tt.committed {
				want = 1
			}
			assert.Len(t, r.items(t), want, "links after the first request")

			// The fault clears; the client retries with the same key, twice.
			f.Remove()
			retry, _ := send()
			require.Equal(t, 201, retry.StatusCode, "%s", retry.Body)
			again, _ := send()
			require.Equal(t, 201, again.StatusCode, "%s", again.Body)
			assert.Equal(t, "true", again.Headers["Idempotent-Replayed"])
			assert.JSONEq(t, retry.Body, again.Body)
			if first.StatusCode == 201 {
				assert.JSONEq(t, first.Body, retry.Body)
			}
			if tt.committed && first.StatusCode != 201 {
				assert.Equal(t, "true", retry.Headers["Idempotent-Replayed"],
					"the retry answers with the link the lost request made")
			}

			// Exactly one link, and it is the one every answer names.
			items := r.items(t)
			require.Len(t, items, 1)
			var body struct {
				Code string `json:"code"`
				URL  string `json:"url"`
			}
			require.NoError(t, json.Unmarshal([]byte(retry.Body), &body))
			item, ok := items[body.Code]
			require.True(t, ok, "the answered code %s is the stored link", body.Code)
			assert.Equal(t, body.URL, item[tableschema.AttrURL].(*types.AttributeValueMemberS).Value)
		})
	}
}

// TestCreateRetriedWhileTheFirstIsInFlight drives the race of the issue: a
// client retries with the same Idempotency-Key while its first request's
// transaction is still in flight. DynamoDB cancels the second transaction
// (reason TransactionConflict); that answer must be a retryable 503, and
// once the first commits, every retry names its one link.
func TestCreateRetriedWhileTheFirstIsInFlight(t *testing.T) {
	r := newRig(t)
	h := newAPIHandlers(t, r, 2*time.Second)
	ev := event(t, "create", "create-idempotent.json", nil)
	hold := make(chan struct{})
	first := r.inj.Add(faults.Rule{Op: "TransactWriteItems", Times: 1, Hold: hold})
	conflict := r.inj.Add(faults.Rule{Op: "TransactWriteItems", Skip: 1, Times: 1,
		Reply: faults.ReplyTransactionCanceled("None", "TransactionConflict")})

	firstDone := make(chan events.APIGatewayProxyResponse, 1)
	go func() {
		resp, err := h.create(context.Background(), ev)
		assert.NoError(t, err)
		firstDone <- resp
	}()
	eventually(t, "the first transaction is in flight", func() bool { return first.Fired() == 1 })

	second, err := h.create(context.Background(), ev)
	require.NoError(t, err)
	require.Equal(t, 1, conflict.Fired())
	require.Equal(t, 503, second.StatusCode, "%s", second.Body)
	assert.Equal(t, apigw.RetryAfter, second.Headers["Retry-After"])

	close(hold)
	firstResp := <-firstDone
	require.Equal(t, 201, firstResp.StatusCode, "%s", firstResp.Body)

	third, err := h.create(context.Background(), ev)
	require.NoError(t, err)
	require.Equal(t, 201, third.StatusCode, "%s", third.Body)
	assert.Equal(t, "true", third.Headers["Idempotent-Replayed"])
	assert.JSONEq(t, firstResp.Body, third.Body)
	assert.Len(t, r.items(t), 1, "exactly one link")
}
