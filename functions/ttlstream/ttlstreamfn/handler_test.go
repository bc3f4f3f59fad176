package ttlstreamfn

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/eventtest"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/internal/logtest"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore/storetest"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

func TestMain(m *testing.M) { testenv.Main(m) }

var now = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// recordingStore records every tombstone it is asked to write and fails
// the codes in fail.
type recordingStore struct {
	mu    sync.Mutex
	got   []link.Tombstone
	fail  map[string]error
	exist map[string]bool // codes whose tombstone is "already" there
}

func (s *recordingStore) Tombstone(_ context.Context, t link.Tombstone) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.fail[t.Code]; err != nil {
		return false, err
	}
	s.got = append(s.got, t)
	return !s.exist[t.Code], nil
}

func (s *recordingStore) codes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var c []string
	for _, t := range s.got {
		c = append(c, t.Code)
	}
	return c
}

func event(t *testing.T, name string) events.DynamoDBEvent {
	t.Helper()
	ev := eventtest.Load[events.DynamoDBEvent](t, filepath.Join("testdata", name))
	require.NotEmpty(t, ev.Records, name)
	return ev
}

func newHandler(store Tombstoner, grace time.Duration, metricsOut, logOut io.Writer) *Handler {
	return New(Options{
		Store:   store,
		Grace:   grace,
		Now:     func() time.Time { return now },
		Log:     slog.New(slog.NewJSONHandler(logOut, nil)),
		Metrics: metrics.New(metricsOut, "Shortener", "ttlstream"),
	})
}

func failures(resp events.DynamoDBEventResponse) []string {
	var ids []string
	for _, f := range resp.BatchItemFailures {
		ids = append(ids, f.ItemIdentifier)
	}
	return ids
}

func TestOnlyTTLDeletionsMakeTombstones(t *testing.T) {
	tests := []struct {
		fixture  string
		codes    []string
		failed   []string
		counters map[string]float64
	}{
		{fixture: "ttl-remove.json", codes: []string{"Xk3pQ9a"},
			counters: map[string]float64{MetricWritten: 1}},
		{fixture: "user-remove.json", counters: map[string]float64{MetricIgnored: 1}},
		{fixture: "insert.json", counters: map[string]float64{MetricIgnored: 1}},
		{fixture: "modify.json", counters: map[string]float64{MetricIgnored: 1}},
		{
			// INSERT, MODIFY, a TTL deletion, a user delete, a TTL deletion
			// replicated from another Region (a plain REMOVE), a TTL
			// deletion of an alias.
			fixture: "mixed-batch.json", codes: []string{"Xk3pQ9a", "promo-2025"},
			counters: map[string]float64{MetricWritten: 2, MetricIgnored: 4},
		},
		{
			// Two TTL deletions around two whose OldImage has no string code.
			fixture: "poison.json", codes: []string{"Good001", "Good002"},
			failed:   []string{"4421585000000000017450450002", "4421585000000000017450450003"},
			counters: map[string]float64{MetricWritten: 2, MetricPoison: 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			store := &recordingStore{}
			var out, logs logtest.Buffer
			resp, err := newHandler(store, 0, &out, &logs).Handle(context.Background(), event(t, tt.fixture))
			require.NoError(t, err)
			assert.Equal(t, tt.codes, store.codes())
			assert.Equal(t, tt.failed, failures(resp))
			got := out.Sums(t)
			for _, name := range []string{MetricWritten, MetricAlready, MetricIgnored, MetricFailed, MetricPoison} {
				assert.Equal(t, tt.counters[name], got[name], name)
			}
			if len(tt.failed) > 0 {
				assert.Contains(t, logs.String(), "poison stream record")
			}
		})
	}
}

func TestTombstoneFields(t *testing.T) {
	tests := []struct {
		name  string
		grace time.Duration
		want  time.Duration
	}{
		{name: "default grace", grace: 0, want: link.DefaultTombstoneGrace},
		{name: "configured grace", grace: 5 * time.Second, want: 5 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := &recordingStore{}
			_, err := newHandler(store, tt.grace, io.Discard, io.Discard).Handle(context.Background(), event(t, "ttl-remove.json"))
			require.NoError(t, err)
			require.Len(t, store.got, 1)
			assert.Equal(t, link.Tombstone{
				Code:         "Xk3pQ9a",
				PrevOwner:    "p6r4ocs3d1",
				TombstonedAt: now,
				ReclaimAfter: now.Add(tt.want),
				Reason:       link.ReasonExpired,
			}, store.got[0])
		})
	}
}

// TestTombstoneKeepsTheExpiredURL: the deleted item's after-expiry URL,
// from the record's OldImage, lives on in its tombstone.
func TestTombstoneKeepsTheExpiredURL(t *testing.T) {
	ev := event(t, "ttl-remove.json")
	ev.Records[0].Change.OldImage[tableschema.AttrExpiredURL] = events.NewStringAttribute("https://example.com/after")
	store := &recordingStore{}
	_, err := newHandler(store, 0, io.Discard, io.Discard).Handle(context.Background(), ev)
	require.NoError(t, err)
	require.Len(t, store.got, 1)
	assert.Equal(t, "https://example.com/after", store.got[0].ExpiredURL)
}

func TestStoreFailureReportsOnlyThatRecord(t *testing.T) {
	tests := []struct {
		name   string
		fail   []string
		failed []string
		codes  []string
	}{
		{name: "the first TTL deletion fails", fail: []string{"Xk3pQ9a"},
			failed: []string{"4421584500000000017450439091"}, codes: []string{"promo-2025"}},
		{name: "the last TTL deletion fails", fail: []string{"promo-2025"},
			failed: []string{"4421584800000000017450442310"}, codes: []string{"Xk3pQ9a"}},
		{name: "both fail, both reported", fail: []string{"Xk3pQ9a", "promo-2025"},
			failed: []string{"4421584500000000017450439091", "4421584800000000017450442310"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := &recordingStore{fail: map[string]error{}}
			for _, c := range tt.fail {
				store.fail[c] = link.ErrUnavailable
			}
			var out, logs logtest.Buffer
			resp, err := newHandler(store, 0, &out, &logs).Handle(context.Background(), event(t, "mixed-batch.json"))
			require.NoError(t, err, "one bad record never fails the batch")
			assert.Equal(t, tt.failed, failures(resp))
			assert.Equal(t, tt.codes, store.codes(), "records after a failure are still handled")
			assert.Equal(t, float64(len(tt.fail)), out.Sums(t)[MetricFailed])
			assert.Equal(t, len(tt.fail), strings.Count(logs.String(), `"msg":"write tombstone"`))
		})
	}
}

func TestAlreadyTombstonedIsCountedNotFailed(t *testing.T) {
	store := &recordingStore{exist: map[string]bool{"promo-2025": true}}
	var out logtest.Buffer
	resp, err := newHandler(store, 0, &out, io.Discard).Handle(context.Background(), event(t, "mixed-batch.json"))
	require.NoError(t, err)
	assert.Empty(t, resp.BatchItemFailures)
	got := out.Sums(t)
	assert.Equal(t, 1.0, got[MetricWritten])
	assert.Equal(t, 1.0, got[MetricAlready])
}

// TestRedeliveryAgainstDynamoDBLocal runs the real store: the same batch
// handled twice leaves one tombstone per TTL deletion, unchanged by the
// second delivery, and a code re-created since keeps its live link.
func TestRedeliveryAgainstDynamoDBLocal(t *testing.T) {
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
	clock := storetest.NewClock(now)
	cfg := dynamo.LinkConfig{
		LinksTable:       testenv.UniqueName(t, "links"),
		IdempotencyTable: testenv.UniqueName(t, "idem"),
		Now:              clock.Now,
	}
	ctx := context.Background()
	require.NoError(t, localtable.Links(ctx, db, cfg.LinksTable, cfg.IdempotencyTable))
	store := dynamo.NewLinkStore(db, cfg)

	// "Xk3pQ9a" was re-created after TTL removed it, before the record
	// arrived; its tombstone must not cover the live link.
	live := link.Link{Code: "Xk3pQ9a", URL: "https://example.com/new", Owner: "someone-else",
		CreatedAt: now.Add(-time.Minute), UpdatedAt: now.Add(-time.Minute), ExpiresAt: now.Add(24 * time.Hour),
		Status: link.StatusActive, Version: 1, RedirectStatus: 302}
	require.NoError(t, store.Create(ctx, live, nil))

	var out logtest.Buffer
	h := New(Options{Store: store, Grace: time.Hour, Now: clock.Now, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Metrics: metrics.New(&out, "Shortener", "ttlstream")})
	batch := event(t, "mixed-batch.json")

	resp, err := h.Handle(ctx, batch)
	require.NoError(t, err)
	require.Empty(t, resp.BatchItemFailures)
	first, err := store.GetTombstone(ctx, "promo-2025")
	require.NoError(t, err)
	assert.Equal(t, link.Tombstone{Code: "promo-2025", PrevOwner: "k8s2m1x0aa", TombstonedAt: now,
		ReclaimAfter: now.Add(time.Hour), Reason: link.ReasonExpired}, first)
	assert.Equal(t, map[string]float64{MetricWritten: 1, MetricAlready: 1, MetricIgnored: 4},
		pick(out.Sums(t), MetricWritten, MetricAlready, MetricIgnored))

	out.Reset()
	clock.Add(10 * time.Minute)
	resp, err = h.Handle(ctx, batch)
	require.NoError(t, err)
	require.Empty(t, resp.BatchItemFailures)
	again, err := store.GetTombstone(ctx, "promo-2025")
	require.NoError(t, err)
	assert.Equal(t, first, again, "a redelivered record changes nothing")
	assert.Equal(t, map[string]float64{MetricWritten: 0, MetricAlready: 2, MetricIgnored: 4},
		pick(out.Sums(t), MetricWritten, MetricAlready, MetricIgnored))

	got, err := store.Get(ctx, "Xk3pQ9a")
	require.NoError(t, err)
	assert.Equal(t, live, got, "a link created since is never tombstoned")
	due, err := store.DueTombstones(ctx, now.Add(2*time.Hour), 10)
	require.NoError(t, err)
	assert.Equal(t, []string{"promo-2025"}, due, "one tombstone, not two")
}

func pick(m map[string]float64, names ...string) map[string]float64 {
	out := map[string]float64{}
	for _, n := range names {
		out[n] = m[n]
	}
	return out
}

func TestFilterPatternSelectsWhatHandleSelects(t *testing.T) {
	var pattern map[string]any
	require.NoError(t, json.Unmarshal([]byte(tableschema.TTLDeletionPattern), &pattern))
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	matched := 0
	for _, f := range files {
		generic := eventtest.Load[struct{ Records []map[string]any }](t, f)
		ev := event(t, filepath.Base(f))
		for i, rec := range generic.Records {
			m := matches(pattern, rec)
			assert.Equal(t, IsTTLDeletion(&ev.Records[i]), m, "%s record %d", f, i)
			if m {
				matched++
			}
		}
	}
	assert.Positive(t, matched, "the fixtures include TTL deletions")
}

func matches(pattern, rec map[string]any) bool {
	for k, want := range pattern {
		got, ok := rec[k]
		if !ok {
			return false
		}
		switch w := want.(type) {
		case []any:
			if !slices.Contains(w, got) {
				return false
			}
		case map[string]any:
			sub, ok := got.(map[string]any)
			if !ok || !matches(w, sub) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func TestPoisonErrorIsNotAStoreError(t *testing.T) {
	_, _, err := decode(map[string]events.DynamoDBAttributeValue{tableschema.AttrCode: events.NewNumberAttribute("1")})
	assert.True(t, errors.Is(err, errPoison))
	code, owner, err := decode(map[string]events.DynamoDBAttributeValue{tableschema.AttrCode: events.NewStringAttribute("abc1234")})
	require.NoError(t, err)
	assert.Equal(t, "abc1234", code)
	assert.Empty(t, owner, "an item without an owner still gets its tombstone")
}

func TestIsTTLDeletion(t *testing.T) {
	service := &events.DynamoDBUserIdentity{Type: "Service", PrincipalID: "dynamodb.amazonaws.com"}
	tests := []struct {
		name     string
		event    string
		identity *events.DynamoDBUserIdentity
		want     bool
	}{
		{name: "TTL deletion", event: "REMOVE", identity: service, want: true},
		{name: "user delete", event: "REMOVE"},
		{name: "another service", event: "REMOVE", identity: &events.DynamoDBUserIdentity{Type: "Service", PrincipalID: "replication.dynamodb.amazonaws.com"}},
		{name: "not a service", event: "REMOVE", identity: &events.DynamoDBUserIdentity{Type: "User", PrincipalID: "dynamodb.amazonaws.com"}},
		{name: "case matters", event: "remove", identity: service},
		{name: "insert with the identity", event: "INSERT", identity: service},
		{name: "modify with the identity", event: "MODIFY", identity: service},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := events.DynamoDBEventRecord{EventName: tt.event, UserIdentity: tt.identity}
			assert.Equal(t, tt.want, IsTTLDeletion(&r))
		})
	}
}
