package faulttest

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/create/createfn"
	"github.com/shortlink-dev/shortener/functions/manage/managefn"
	"github.com/shortlink-dev/shortener/functions/stats/statsfn"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/faults"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// The owner and codes of the handlers' fixtures.
const (
	fixtureOwner     = "p6r4ocs3d1"
	fixtureCode      = "aB3dE5f" // functions/manage/managefn/testdata
	fixtureStatsCode = "Ab3dE5g" // functions/stats/statsfn/testdata
)

// apiHandlers are the three functions behind /v1, built as their main.go
// builds them, over the rig's faulty client.
type apiHandlers struct {
	create, manage, stats func(context.Context, events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error)
	analytics             string
}

func newAPIHandlers(t *testing.T, r *rig, dbTimeout time.Duration) apiHandlers {
	t.Helper()
	cfg := r.config(t, map[string]string{"SHORTENER_DB_TIMEOUT": dbTimeout.String()})
	var logs, emf syncBuffer
	// The keys table in memory, with the fixtures' key: the faults here are
	// the links, idempotency and analytics tables'.
	owners := apikey.NewResolver(apikey.NewMemory(map[string]string{"k3yV4lu3Examp1e": "p6r4ocs3d1"}), apikey.ResolverOptions{})
	c, err := createfn.New(createfn.Options{
		Store: dynamo.NewLinkStore(r.faulty, dynamo.LinkConfig{
			LinksTable: cfg.LinksTable, IdempotencyTable: cfg.IdempotencyTable, Timeout: cfg.DBTimeout,
		}),
		Config: cfg, Log: jsonLogger(&logs), Metrics: metrics.New(&emf, "Shortener", "create"), Owners: owners,
	})
	require.NoError(t, err)
	m := managefn.New(managefn.Options{
		Store: dynamo.NewLinkStore(r.faulty, dynamo.LinkConfig{
			LinksTable: cfg.LinksTable, Timeout: cfg.DBTimeout, ConsistentReads: true,
		}),
		Config: cfg, Log: jsonLogger(&logs), Metrics: metrics.New(&emf, "Shortener", "manage"), Owners: owners,
	})
	analytics := testenv.UniqueName(t, "analytics")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, localtable.Create(ctx, r.plain, analytics, tableschema.Analytics()))
	s := statsfn.New(statsfn.Options{
		Links:  dynamo.NewLinkStore(r.faulty, dynamo.LinkConfig{LinksTable: cfg.LinksTable, Timeout: cfg.DBTimeout}),
		Clicks: dynamo.NewClickStore(r.faulty, dynamo.ClickConfig{Table: analytics, Timeout: cfg.DBTimeout}),
		Now:    time.Now,
		Log:    jsonLogger(&logs), Metrics: metrics.New(&emf, "Shortener", "stats"),
		Owners: owners,
	})
	return apiHandlers{create: c.Handle, manage: m.Handle, stats: s.Handle, analytics: analytics}
}

// TestEveryAPIPathAnswersThrottlingAndConflictsWithRetryable503 injects,
// as DynamoDB sends them on the wire, each answer that means "busy, try
// again" into the DynamoDB call each /v1 path makes, and expects the
// retryable 503 with Retry-After (docs/problems.md#unavailable), never a
// 500.
func TestEveryAPIPathAnswersThrottlingAndConflictsWithRetryable503(t *testing.T) {
	const dbTimeout = 500 * time.Millisecond
	throttles := map[string]*faults.Reply{
		"ProvisionedThroughputExceededException": faults.ReplyThroughputExceeded(),
		"RequestLimitExceeded":                   faults.ReplyRequestLimitExceeded(),
		"ThrottlingException":                    faults.ReplyThrottling(),
	}
	// A single-item write meets an item a transaction is writing.
	writeConflicts := map[string]*faults.Reply{
		"TransactionConflictException": faults.ReplyTransactionConflict(),
	}
	// A transaction meets another on one of its items: for create, a retry
	// with the same Idempotency-Key while the first attempt is in flight.
	transactionConflicts := map[string]*faults.Reply{
		"TransactionCanceledException/TransactionConflict": faults.ReplyTransactionCanceled("None", "TransactionConflict"),
		"TransactionCanceledException/ThrottlingError":     faults.ReplyTransactionCanceled("ThrottlingError", "None"),
	}
	paths := []struct {
		name    string
		fn      string // the function whose fixture it is
		fixture string
		edit    func(*events.APIGatewayProxyRequest)
		op      string
		// analytics, idem: the faulted call is on the analytics or the
		// idempotency table, not the links table.
		analytics, idem bool
		replies         []map[string]*faults.Reply
		batch           bool
	}{
		{name: "POST /v1/links", fn: "create", fixture: "create-idempotent.json", op: "TransactWriteItems",
			replies: []map[string]*faults.Reply{throttles, transactionConflicts}},
		{name: "POST /v1/links/batch", fn: "create", fixture: "batch-request.json", op: "TransactWriteItems", batch: true,
			edit:    func(ev *events.APIGatewayProxyRequest) { ev.Headers["Idempotency-Key"] = "batch-under-fault" },
			replies: []map[string]*faults.Reply{throttles, transactionConflicts}},
		{name: "POST /v1/links/batch, its key's claim", fn: "create", fixture: "batch-request.json", op: "PutItem", idem: true,
			edit:    func(ev *events.APIGatewayProxyRequest) { ev.Headers["Idempotency-Key"] = "batch-claim-under-fault" },
			replies: []map[string]*faults.Reply{throttles, writeConflicts}},
		{name: "GET /v1/links/{code}", fn: "manage", fixture: "get-link.json", op: "GetItem",
			replies: []map[string]*faults.Reply{throttles}},
		{name: "PATCH /v1/links/{code}", fn: "manage", fixture: "patch-link.json", op: "PutItem",
			replies: []map[string]*faults.Reply{throttles, writeConflicts}},
		{name: "DELETE /v1/links/{code}", fn: "manage", fixture: "delete-link.json", op: "PutItem",
			replies: []map[string]*faults.Reply{throttles, writeConflicts}},
		{name: "GET /v1/links", fn: "manage", fixture: "list-links.json", op: "Query",
			replies: []map[string]*faults.Reply{throttles}},
		{name: "GET /v1/links/{code}/qr", fn: "manage", fixture: "qr-link.json", op: "GetItem",
			replies: []map[string]*faults.Reply{throttles}},
		{name: "GET /v1/links/{code}/stats", fn: "stats", fixture: "stats-default.json", op: "Query", analytics: true,
			replies: []map[string]*faults.Reply{throttles}},
	}
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			r := newRig(t)
			h := newAPIHandlers(t, r, dbTimeout)
			handle := map[string]func(context.Context, events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error){
				"create": h.create, "manage": h.manage, "stats": h.stats,
			}[p.fn]
			table := r.links
			switch {
			case p.analytics:
				table = h.analytics
			case p.idem:
				table = r.idem
			}
			for _, set := range p.replies {
				for name, reply := range set {
					t.Run(name, func(t *testing.T) {
						// A fresh link each time: a PATCH or DELETE that got
						// through would change it.
						r.putOwnedLink(t, fixtureCode)
						r.putOwnedLink(t, fixtureStatsCode)
						f := r.inj.Add(faults.Rule{Op: p.op, Table: table, Reply: reply})
						defer f.Remove()

						resp, err := handle(context.Background(), event(t, p.fn, p.fixture, p.edit))
						require.NoError(t, err)

						require.Positive(t, f.Fired(), "the fault was reached")
						assert.NotEmpty(t, resp.Headers["Retry-After"], "the client is told when to retry")
						if p.batch {
							assertBatchItemsUnavailable(t, resp)
							return
						}
						require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "%s", resp.Body)
						assert.Equal(t, apigw.ContentTypeProblem, resp.Headers["Content-Type"])
						var prob apigw.Problem
						require.NoError(t, json.Unmarshal([]byte(resp.Body), &prob))
						assert.Equal(t, apigw.ProblemUnavailable.Type, prob.Type)
					})
				}
			}
		})
	}
}

// assertBatchItemsUnavailable checks a batch answered under a write fault:
// the batch is processed (200) and each valid item says 503, retryable
// with the batch.
func assertBatchItemsUnavailable(t *testing.T, resp events.APIGatewayProxyResponse) {
	t.Helper()
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", resp.Body)
	var body struct {
		Results []struct {
			Status  int            `json:"status"`
			Problem *apigw.Problem `json:"problem"`
		} `json:"results"`
	}
	require.NoError(t, json.Unmarshal([]byte(resp.Body), &body))
	require.Len(t, body.Results, 3)
	for i, want := range []int{503, 503, 400} { // the third item's URL is ftp://
		assert.Equal(t, want, body.Results[i].Status, "item %d", i)
	}
	require.NotNil(t, body.Results[0].Problem)
	assert.Equal(t, apigw.ProblemUnavailable.Type, body.Results[0].Problem.Type)
}

// TestBatchRetriedAfterAConflictCreatesEachLinkOnce: one item of a keyed
// batch meets a concurrent transaction (cancelled, TransactionConflict);
// the batch answers it 503 with Retry-After, and the retry of the same
// batch creates it while replaying the other, one link each.
func TestBatchRetriedAfterAConflictCreatesEachLinkOnce(t *testing.T) {
	r := newRig(t)
	h := newAPIHandlers(t, r, 2*time.Second)
	ev := event(t, "create", "batch-request.json", func(ev *events.APIGatewayProxyRequest) {
		ev.Headers["Idempotency-Key"] = "batch-conflict"
	})
	f := r.inj.Add(faults.Rule{Op: "TransactWriteItems", Times: 1, Reply: faults.ReplyTransactionCanceled("None", "TransactionConflict")})

	first, err := h.create(context.Background(), ev)
	require.NoError(t, err)
	require.Equal(t, 1, f.Fired())
	require.Equal(t, http.StatusOK, first.StatusCode, "%s", first.Body)
	assert.Equal(t, apigw.RetryAfter, first.Headers["Retry-After"])
	got := batchStatuses(t, first)
	assert.ElementsMatch(t, []int{201, 503, 400}, got, "one valid item created, one cancelled, the ftp:// one refused")
	assert.Len(t, r.items(t), 1)

	retry, err := h.create(context.Background(), ev)
	require.NoError(t, err)
	assert.Equal(t, []int{201, 201, 400}, batchStatuses(t, retry))
	assert.Equal(t, "true", retry.Headers["Idempotent-Replayed"])
	assert.Empty(t, retry.Headers["Retry-After"])
	assert.Len(t, r.items(t), 2, "each valid item is one link")
}

func batchStatuses(t *testing.T, resp events.APIGatewayProxyResponse) []int {
	t.Helper()
	var body struct {
		Results []struct {
			Status int `json:"status"`
		} `json:"results"`
	}
	require.NoError(t, json.Unmarshal([]byte(resp.Body), &body))
	out := make([]int, len(body.Results))
	for i, r := range body.Results {
		out[i] = r.Status
	}
	return out
}
