package dynamo_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/audit"
	"github.com/shortlink-dev/shortener/shared/audit/audittest"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/tableschema"
	"github.com/shortlink-dev/shortener/shared/webhook"
)

func newAuditStore(t *testing.T, db *dynamodb.Client, cfg dynamo.AuditConfig) *dynamo.AuditStore {
	t.Helper()
	cfg.Table = testenv.UniqueName(t, "audit")
	require.NoError(t, localtable.Create(context.Background(), db, cfg.Table, tableschema.Audit()))
	return dynamo.NewAuditStore(db, cfg)
}

func TestAuditStoreOnDynamoDBLocal(t *testing.T) {
	audittest.Run(t, func(t *testing.T) audittest.Log {
		return newAuditStore(t, emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t)), dynamo.AuditConfig{})
	})
}

func TestAuditRetentionSetsPurgeAt(t *testing.T) {
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name      string
		retention time.Duration
		want      *int64
	}{
		{"kept by default", 0, nil},
		{"a year", 365 * 24 * time.Hour, aws.Int64(at.Add(365 * 24 * time.Hour).Unix())},
	} {
		t.Run(tt.name, func(t *testing.T) {
			log := newAuditStore(t, db, dynamo.AuditConfig{Retention: tt.retention})
			require.NoError(t, log.Record(context.Background(), audit.Entry{Workspace: "w", At: at, Target: audit.TargetLink, TargetID: "x", Actor: audit.Actor{ID: "key:1"}}))
			out, err := db.Scan(context.Background(), &dynamodb.ScanInput{TableName: tableName(log)})
			require.NoError(t, err)
			require.Len(t, out.Items, 1)
			n, ok := dynamo.OptionalN(out.Items[0], tableschema.AttrPurgeAt)
			if tt.want == nil {
				assert.False(t, ok)
				return
			}
			assert.Equal(t, *tt.want, n)
		})
	}
}

// tableName is the table log writes.
func tableName(log *dynamo.AuditStore) *string { return aws.String(dynamo.AuditTableOf(log)) }

// TestCreateWritesItsEntryInItsTransaction: under an Idempotency-Key the
// link, its record and its entry commit together; a refused create writes
// no entry, and leaves it to be written with the create that succeeds.
func TestCreateWritesItsEntryInItsTransaction(t *testing.T) {
	ctx := context.Background()
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
	log := newAuditStore(t, db, dynamo.AuditConfig{})
	cfg := dynamo.LinkConfig{LinksTable: testenv.UniqueName(t, "links"), IdempotencyTable: testenv.UniqueName(t, "idem"), Audit: log}
	require.NoError(t, localtable.Links(ctx, db, cfg.LinksTable, cfg.IdempotencyTable))
	store := dynamo.NewLinkStore(db, cfg)
	now := time.Now().UTC().Truncate(time.Millisecond)
	l := link.Link{Code: "abc1234", URL: "https://example.com/", Owner: "o1", CreatedAt: now, UpdatedAt: now,
		ExpiresAt: now.Add(time.Hour).Truncate(time.Second), Status: link.StatusActive, Version: 1, RedirectStatus: 302}
	idem := func(key string) *linkstore.Idempotency {
		return &linkstore.Idempotency{Owner: "o1", Key: key, RequestHash: "h", Code: l.Code, Response: []byte("{}"), ExpiresAt: now.Add(time.Hour)}
	}
	entry := audit.Entry{Workspace: "o1", At: now, Action: audit.ActionCreate, Target: audit.TargetLink, TargetID: l.Code,
		Actor: audit.Actor{ID: "key:1a2b3c4d"}, After: audit.Link(l)}

	actx, pending := audit.WithPending(ctx, entry)
	require.NoError(t, store.Create(actx, l, idem("k1")))
	page, err := log.Query(ctx, "o1", audit.Filter{Limit: 10})
	require.NoError(t, err)
	require.Len(t, page.Entries, 1, "written in the create's transaction")
	require.NoError(t, pending.Flush(ctx, log))
	page, err = log.Query(ctx, "o1", audit.Filter{Limit: 10})
	require.NoError(t, err)
	assert.Len(t, page.Entries, 1, "Flush writes nothing the transaction wrote")

	// The same code again: the transaction is cancelled, with its entry.
	entry.At = now.Add(time.Second)
	actx, _ = audit.WithPending(ctx, entry)
	var taken *linkstore.ConflictError
	require.ErrorAs(t, store.Create(actx, l, idem("k2")), &taken)
	page, err = log.Query(ctx, "o1", audit.Filter{Limit: 10})
	require.NoError(t, err)
	assert.Len(t, page.Entries, 1, "no entry without its change")
	_, _, again := audit.Take(actx)
	assert.True(t, again, "the entry is given back for the next attempt")

	// Without a key, one PutItem: the entry is left to the handler.
	other := l
	other.Code = "xyz9876"
	actx, pending = audit.WithPending(ctx, audit.Entry{Workspace: "o1", At: now.Add(2 * time.Second), Target: audit.TargetLink, TargetID: other.Code, Actor: audit.Actor{ID: "key:1"}})
	require.NoError(t, store.Create(actx, other, nil))
	page, err = log.Query(ctx, "o1", audit.Filter{Limit: 10})
	require.NoError(t, err)
	assert.Len(t, page.Entries, 1)
	require.NoError(t, pending.Flush(ctx, log))
	page, err = log.Query(ctx, "o1", audit.Filter{Limit: 10})
	require.NoError(t, err)
	assert.Len(t, page.Entries, 2)
}

func TestWebhookChangesWriteTheirEntriesInTheirTransactions(t *testing.T) {
	ctx := context.Background()
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
	log := newAuditStore(t, db, dynamo.AuditConfig{})
	table := testenv.UniqueName(t, "webhooks")
	require.NoError(t, localtable.Create(ctx, db, table, tableschema.Webhooks()))
	store := dynamo.NewWebhookStore(db, dynamo.Config{Table: table}).Audited(log)
	sub := webhook.Subscription{ID: "wh_1", Owner: "o1", URL: "https://hooks.example/", Events: []string{"link.created"},
		Secret: "whsec_c2VjcmV0", CreatedAt: time.Now().UTC().Truncate(time.Millisecond)}
	entries := func() []audit.Entry {
		p, err := log.Query(ctx, "o1", audit.Filter{Limit: 10})
		require.NoError(t, err)
		return p.Entries
	}

	actx, _ := audit.WithPending(ctx, audit.Entry{Workspace: "o1", At: time.Now(), Action: audit.ActionCreate, Target: audit.TargetWebhook, TargetID: sub.ID,
		Actor: audit.Actor{ID: "key:1"}, After: audit.Snapshot(map[string]any{"id": sub.ID, "secret": sub.Secret})})
	require.NoError(t, store.Create(actx, sub))
	got := entries()
	require.Len(t, got, 1)
	assert.NotContains(t, string(got[0].After), "whsec_", "the signing secret never reaches the log")

	actx, _ = audit.WithPending(ctx, audit.Entry{Workspace: "o1", At: time.Now(), Action: audit.ActionDelete, Target: audit.TargetWebhook, TargetID: "wh_none", Actor: audit.Actor{ID: "key:1"}})
	require.ErrorIs(t, store.Delete(actx, "o1", "wh_none"), link.ErrNotFound)
	assert.Len(t, entries(), 1, "a delete of nothing writes no entry")

	actx, _ = audit.WithPending(ctx, audit.Entry{Workspace: "o1", At: time.Now(), Action: audit.ActionDelete, Target: audit.TargetWebhook, TargetID: sub.ID, Actor: audit.Actor{ID: "key:1"}})
	require.NoError(t, store.Delete(actx, "o1", sub.ID))
	assert.Len(t, entries(), 2)
}
