package edgeversion

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// store is a key value store with the API's ETag rules, for a Writer and
// a Sweeper at once: every write changes the ETag, a write naming another
// fails with ErrConflict, an UpdateKeys is all or nothing. Its hooks run
// before a call does, outside its lock, as another writer's call would.
type store struct {
	mu      sync.Mutex
	etag    int
	items   map[string]string
	calls   map[string]int
	updates [][]string // the deletes of each UpdateKeys that succeeded

	beforeList, beforeUpdate, beforeGet func()
	updateErr, listErr                  error
}

func newStore(items map[string]string) *store {
	if items == nil {
		items = map[string]string{}
	}
	return &store{items: items, calls: map[string]int{}}
}

func (s *store) count(op string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[op]++
}

func (s *store) tag() string { return "E" + strconv.Itoa(s.etag) }

func (s *store) DescribeKeyValueStore(context.Context, string) (string, error) {
	s.count("describe")
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tag(), nil
}

func (s *store) GetKey(_ context.Context, _, key string) (string, bool, error) {
	s.count("get")
	if s.beforeGet != nil {
		s.beforeGet()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.items[key]
	return v, ok, nil
}

func (s *store) PutKey(_ context.Context, _, key, value, ifMatch string) (string, error) {
	s.count("put")
	s.mu.Lock()
	defer s.mu.Unlock()
	if ifMatch != s.tag() {
		return "", ErrConflict
	}
	s.etag++
	s.items[key] = value
	return s.tag(), nil
}

// ListKeys pages the keys in order; a token is the last key of its page.
func (s *store) ListKeys(_ context.Context, _ string, maxResults int, token string) ([]Item, string, error) {
	s.count("list")
	if s.beforeList != nil {
		s.beforeList()
	}
	if s.listErr != nil {
		return nil, "", s.listErr
	}
	if maxResults < 1 || maxResults > MaxListResults {
		return nil, "", fmt.Errorf("MaxResults %d", maxResults)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make([]string, 0, len(s.items))
	for k := range s.items {
		if k > token {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	next := ""
	if len(keys) > maxResults {
		keys = keys[:maxResults]
		next = keys[len(keys)-1]
	}
	items := make([]Item, len(keys))
	for i, k := range keys {
		items[i] = Item{k, s.items[k]}
	}
	return items, next, nil
}

func (s *store) UpdateKeys(_ context.Context, _ string, puts []Item, deletes []string, ifMatch string) (string, error) {
	s.count("update")
	if s.beforeUpdate != nil {
		s.beforeUpdate()
	}
	if s.updateErr != nil {
		return "", s.updateErr
	}
	if _, err := UpdateKeysBody(puts, deletes); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ifMatch != s.tag() {
		return "", ErrConflict
	}
	for _, k := range deletes {
		if _, ok := s.items[k]; !ok {
			return "", fmt.Errorf("delete of %q, which the store does not hold", k)
		}
	}
	for _, k := range deletes {
		delete(s.items, k)
	}
	for _, p := range puts {
		s.items[p.Key] = p.Value
	}
	s.etag++
	s.updates = append(s.updates, slices.Clone(deletes))
	return s.tag(), nil
}

func (s *store) value(key string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.items[key]
	return v, ok
}

// sweepNow is the sweeps' clock; edgeLife and margin their horizon.
var (
	sweepNow = time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	edgeLife = 24 * time.Hour
	margin   = time.Hour
)

// ms is the version written at sweepNow less ago.
func ms(ago time.Duration) string { return strconv.FormatInt(sweepNow.Add(-ago).UnixMilli(), 10) }

func sweeper(api SweepAPI) *Sweeper {
	return &Sweeper{API: api, ARN: "arn:aws:cloudfront::123456789012:key-value-store/x", EdgeLife: edgeLife, Margin: margin,
		Now: func() time.Time { return sweepNow }, Pause: -1}
}

func sweep(t *testing.T, sw *Sweeper) (SweepResult, error) {
	t.Helper()
	return sw.Sweep(context.Background(), time.Now().Add(time.Minute))
}

// TestSweepDeletesOnlyOldVersions: a key goes once its version is older
// than the edge life plus the margin; one written within that window
// stays, to the millisecond, as does a value that is not a version.
func TestSweepDeletesOnlyOldVersions(t *testing.T) {
	window := edgeLife + margin
	tests := []struct {
		name  string
		value string
		gone  bool
	}{
		{"older than the window", ms(window + time.Millisecond), true},
		{"a week old", ms(7 * 24 * time.Hour), true},
		{"exactly the window", ms(window), false},
		{"within the margin", ms(edgeLife + time.Minute), false},
		{"within the edge life", ms(time.Hour), false},
		{"from a clock ahead", ms(-time.Minute), false},
		{"version 0", "0", true},
		{"not a number", "x", false},
		{"negative", "-5", false},
		{"signed", "+1", false},
		{"empty", "", false},
		{"a fraction", "1764757200000.5", false},
	}
	items := map[string]string{}
	for i, tt := range tests {
		items[fmt.Sprintf("/k%02d", i)] = tt.value
	}
	s := newStore(items)
	res, err := sweep(t, sweeper(s))
	require.NoError(t, err)
	var wantSwept, wantKept, wantUnparsable int
	for i, tt := range tests {
		_, found := s.value(fmt.Sprintf("/k%02d", i))
		assert.Equal(t, tt.gone, !found, tt.name)
		_, parses := ParseVersion(tt.value)
		switch {
		case tt.gone:
			wantSwept++
		case parses:
			wantKept++
		default:
			wantUnparsable++
		}
	}
	assert.Equal(t, SweepResult{Listed: len(tests), Swept: wantSwept, Kept: wantKept, Unparsable: wantUnparsable, Complete: true}, res)
}

// TestSweepBatchesWithinTheLimits: the store is listed a page of 50 at a
// time and its old keys deleted at most 50 a call, under the ETag of the
// last write; a second sweep finds nothing more to do.
func TestSweepBatchesWithinTheLimits(t *testing.T) {
	items := map[string]string{}
	for i := range 120 {
		items[fmt.Sprintf("/old%03d", i)] = ms(2 * 24 * time.Hour)
	}
	for i := range 30 {
		items[fmt.Sprintf("/new%03d", i)] = ms(time.Minute)
	}
	s := newStore(items)
	res, err := sweep(t, sweeper(s))
	require.NoError(t, err)
	assert.Equal(t, SweepResult{Listed: 150, Swept: 120, Kept: 30, Complete: true}, res)
	assert.Equal(t, 3, s.calls["list"], "150 keys, 50 a page")
	require.Len(t, s.updates, 3)
	assert.Equal(t, []int{50, 50, 20}, []int{len(s.updates[0]), len(s.updates[1]), len(s.updates[2])})
	assert.Equal(t, 1, s.calls["describe"], "each delete names the ETag of the one before")
	assert.Zero(t, s.calls["get"])
	assert.Len(t, s.items, 30)

	again, err := sweep(t, sweeper(s))
	require.NoError(t, err)
	assert.Equal(t, SweepResult{Listed: 30, Kept: 30, Complete: true}, again, "idempotent")
}

// TestSweepRacesAPut: manage puts a new version of a listed old key
// between the listing and the delete. The delete's If-Match fails, and
// the sweep does not delete blindly: it reads the ETag and every key of
// the batch again, and keeps the key with its new version, in that batch
// and in every later one (the listing is no longer the store's state,
// even after a delete under a fresh ETag succeeds).
func TestSweepRacesAPut(t *testing.T) {
	tests := []struct {
		name     string
		changed  string // the key manage puts a new version of
		duringOf string // the call before which the put lands
		// wantGets: the Writer's read of the key, and every listed old
		// key of each batch deleted after the conflict, read again.
		wantGets int
	}{
		{"a key of the first batch, before its delete", "/k010", "update", 1 + 60},
		{"a key of the second batch, before the first delete", "/k055", "update", 1 + 60},
		{"a key put while the store was listed", "/k055", "list", 1 + 59},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items := map[string]string{}
			for i := range 60 {
				items[fmt.Sprintf("/k%03d", i)] = ms(2 * 24 * time.Hour)
			}
			s := newStore(items)
			w := &Writer{API: s, ARN: "arn", Now: func() time.Time { return sweepNow }}
			var once sync.Once
			put := func() {
				once.Do(func() { require.NoError(t, w.Invalidate(context.Background(), tt.changed)) })
			}
			if tt.duringOf == "update" {
				s.beforeUpdate = put
			} else {
				s.beforeList = put
			}
			res, err := sweep(t, sweeper(s))
			require.NoError(t, err)
			v, found := s.value(tt.changed)
			require.True(t, found, "the key with its new version is kept")
			assert.Equal(t, strconv.FormatInt(sweepNow.UnixMilli(), 10), v)
			assert.Equal(t, 1, res.Conflicts)
			assert.Equal(t, SweepResult{Listed: 60, Swept: 59, Kept: 1, Conflicts: 1, Complete: true}, res)
			assert.Equal(t, map[string]string{tt.changed: v}, s.items)
			assert.Equal(t, tt.wantGets, s.calls["get"], "every key deleted after the conflict was read again")
		})
	}
}

// TestWriterRacesASweep: the sweep deletes a key between manage's read of
// its version and manage's put. The put's If-Match fails, and the Writer
// reads the ETag and the (now missing) key again and puts a version above
// the clock's: the change still leaves the edge.
func TestWriterRacesASweep(t *testing.T) {
	s := newStore(map[string]string{"/abc1234": ms(2 * 24 * time.Hour)})
	sw := sweeper(s)
	var once sync.Once
	s.beforeGet = func() {
		once.Do(func() {
			res, err := sweep(t, sw)
			require.NoError(t, err)
			require.Equal(t, 1, res.Swept)
		})
	}
	w := &Writer{API: s, ARN: "arn", Now: func() time.Time { return sweepNow }}
	require.NoError(t, w.Invalidate(context.Background(), "/abc1234"))
	v, found := s.value("/abc1234")
	require.True(t, found)
	assert.Equal(t, strconv.FormatInt(sweepNow.UnixMilli(), 10), v)
	assert.Equal(t, 2, s.calls["put"], "the first put met the sweep's delete")
}

// TestSweepStopsAndSaysSo: a sweep that meets its bounds (keys listed,
// time) or a failure stops, says it is not complete and counts what it
// did and left; a conflict that keeps coming is a failure past the
// attempts, never a blind delete.
func TestSweepStopsAndSaysSo(t *testing.T) {
	old := func(n int) map[string]string {
		items := map[string]string{}
		for i := range n {
			items[fmt.Sprintf("/k%03d", i)] = ms(2 * 24 * time.Hour)
		}
		return items
	}
	t.Run("max keys", func(t *testing.T) {
		s := newStore(old(120))
		sw := sweeper(s)
		sw.MaxKeys = 60
		res, err := sweep(t, sw)
		require.NoError(t, err)
		assert.Equal(t, SweepResult{Listed: 100, Swept: 100}, res, "two pages listed, their old keys deleted")
		assert.Len(t, s.items, 20)
	})
	t.Run("no time left", func(t *testing.T) {
		s := newStore(old(10))
		res, err := sweeper(s).Sweep(context.Background(), time.Now())
		require.NoError(t, err)
		assert.Equal(t, SweepResult{}, res)
		assert.Empty(t, s.calls, "no call made")
	})
	t.Run("time runs out between batches", func(t *testing.T) {
		s := newStore(old(150))
		sw := sweeper(s)
		sw.Pause = 200 * time.Millisecond
		stopAt := time.Now().Add(300 * time.Millisecond)
		res, err := sw.Sweep(context.Background(), stopAt)
		require.NoError(t, err)
		assert.False(t, res.Complete)
		assert.Less(t, res.Swept, 150)
		assert.Less(t, time.Since(stopAt), 200*time.Millisecond, "it returned by its stop time")
	})
	t.Run("conflicts past the attempts", func(t *testing.T) {
		s := newStore(old(10))
		w := &Writer{API: s, ARN: "arn", Now: func() time.Time { return sweepNow }}
		s.beforeUpdate = func() { require.NoError(t, w.Invalidate(context.Background(), "/other")) }
		res, err := sweep(t, sweeper(s))
		assert.ErrorIs(t, err, ErrConflict)
		assert.Equal(t, SweepResult{Listed: 10, Failed: 10, Conflicts: DefaultAttempts}, res)
		assert.Len(t, s.items, 11, "nothing deleted")
	})
	t.Run("a delete refused", func(t *testing.T) {
		s := newStore(old(60))
		s.updateErr = errors.New("AccessDeniedException")
		res, err := sweep(t, sweeper(s))
		assert.ErrorIs(t, err, s.updateErr)
		assert.Equal(t, SweepResult{Listed: 60, Failed: 50}, res, "the first batch failed; the sweep stopped")
		assert.Equal(t, 1, s.calls["update"], "a refusal is not retried")
	})
	t.Run("the listing refused", func(t *testing.T) {
		s := newStore(old(10))
		s.listErr = errors.New("AccessDeniedException")
		res, err := sweep(t, sweeper(s))
		assert.ErrorIs(t, err, s.listErr)
		assert.Equal(t, SweepResult{}, res)
		assert.Zero(t, s.calls["update"])
	})
	t.Run("no store", func(t *testing.T) {
		_, err := (&Sweeper{}).Sweep(context.Background(), time.Now().Add(time.Minute))
		assert.Error(t, err)
		sw := &Sweeper{API: newStore(nil), StoreARN: func(context.Context) (string, error) { return "", errors.New("parameter not found") }}
		_, err = sw.Sweep(context.Background(), time.Now().Add(time.Minute))
		assert.ErrorContains(t, err, "which key value store")
		_, err = (&Sweeper{API: newStore(nil), ARN: "arn", EdgeLife: -time.Second}).Sweep(context.Background(), time.Now().Add(time.Minute))
		assert.ErrorContains(t, err, "negative")
	})
}

func TestUpdateKeysBody(t *testing.T) {
	keys := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = "/k" + strconv.Itoa(i)
		}
		return out
	}
	body, err := UpdateKeysBody([]Item{{"/a", "1"}}, []string{"/b"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"Deletes":[{"Key":"/b"}],"Puts":[{"Key":"/a","Value":"1"}]}`, string(body))
	body, err = UpdateKeysBody(nil, keys(MaxUpdateKeys))
	require.NoError(t, err)
	assert.NotContains(t, string(body), "Puts")
	for name, bad := range map[string]func() ([]byte, error){
		"no key":       func() ([]byte, error) { return UpdateKeysBody(nil, nil) },
		"51 keys":      func() ([]byte, error) { return UpdateKeysBody([]Item{{"/p", "1"}}, keys(MaxUpdateKeys)) },
		"an empty key": func() ([]byte, error) { return UpdateKeysBody(nil, []string{""}) },
		"a long key":   func() ([]byte, error) { return UpdateKeysBody(nil, []string{"/" + strings.Repeat("a", MaxKeyBytes)}) },
		"a key twice":  func() ([]byte, error) { return UpdateKeysBody([]Item{{"/a", "1"}}, []string{"/a"}) },
		"a long value": func() ([]byte, error) {
			return UpdateKeysBody([]Item{{"/a", strings.Repeat("1", MaxValueBytes+1)}}, nil)
		},
		"a deleted pair": func() ([]byte, error) { return UpdateKeysBody(nil, []string{"/a", "/a"}) },
	} {
		_, err := bad()
		assert.Error(t, err, name)
	}
}

// TestBatches: at most MaxUpdateKeys keys a batch and, for long keys, no
// more bytes than the payload limit, in order.
func TestBatches(t *testing.T) {
	var keys []string
	for i := range 101 {
		keys = append(keys, fmt.Sprintf("/%03d", i))
	}
	got := Batches(keys)
	require.Len(t, got, 3)
	assert.Equal(t, keys, slices.Concat(got...))
	assert.Len(t, got[2], 1)
	assert.Empty(t, Batches(nil))

	long := []string{"/" + strings.Repeat("a", 99), "/" + strings.Repeat("b", 99), "/" + strings.Repeat("c", 99)}
	// One such key's body is 126 bytes, two 236.
	for _, b := range batches(long, 50, 200) {
		body, err := UpdateKeysBody(nil, b)
		require.NoError(t, err)
		assert.LessOrEqual(t, len(body), 200, "within the byte bound")
		assert.Len(t, b, 1)
	}
}
