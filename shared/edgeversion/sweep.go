package edgeversion

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

// The API's bounds on the calls a Sweeper makes.
const (
	// MaxListResults is the most keys one ListKeys page returns
	// (https://docs.aws.amazon.com/cloudfront/latest/APIReference/API_kvs_ListKeys.html:
	// MaxResults from 1 to 50).
	MaxListResults = 50
	// MaxUpdateKeys and MaxUpdateBytes bound one UpdateKeys call: 50 keys
	// or a 3 MB request payload, whichever is reached first (the quotas on
	// key value stores,
	// https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/cloudfront-limits.html#limits-keyvaluestores;
	// the API reference,
	// https://docs.aws.amazon.com/cloudfront/latest/APIReference/API_kvs_UpdateKeys.html,
	// states neither). The keys counted are the puts and the deletes
	// together, the stricter reading.
	MaxUpdateKeys  = 50
	MaxUpdateBytes = 3_000_000
	// MaxValueBytes is the longest value a store takes
	// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/kvs-with-functions-create-s3-kvp.html).
	MaxValueBytes = 1024
)

// Item is one key of a store and its value.
type Item struct {
	Key   string
	Value string
}

// SweepAPI lists the cloudfront-keyvaluestore calls a Sweeper makes, on
// the store arn.
type SweepAPI interface {
	// DescribeKeyValueStore returns the store's current ETag.
	DescribeKeyValueStore(ctx context.Context, arn string) (etag string, err error)
	// GetKey returns key's value, found false when the store has none.
	GetKey(ctx context.Context, arn, key string) (value string, found bool, err error)
	// ListKeys returns one page of at most maxResults keys, the one after
	// the page that answered nextToken ("" for the first), and the token
	// of the next page ("" after the last).
	ListKeys(ctx context.Context, arn string, maxResults int, nextToken string) (items []Item, next string, err error)
	// UpdateKeys puts puts and deletes deletes, all or nothing, if the
	// store's ETag is still ifMatch (else ErrConflict), and returns the
	// store's new ETag.
	UpdateKeys(ctx context.Context, arn string, puts []Item, deletes []string, ifMatch string) (etag string, err error)
}

// updateBody is UpdateKeys' JSON request body.
type updateBody struct {
	Deletes []deleteItem `json:",omitempty"`
	Puts    []Item       `json:",omitempty"`
}

type deleteItem struct{ Key string }

// UpdateKeysBody is the JSON body of an UpdateKeys call that puts puts
// and deletes deletes, or why the API would refuse it: no key, more than
// MaxUpdateKeys, a key or value out of bounds, the same key twice, or a
// payload over MaxUpdateBytes.
func UpdateKeysBody(puts []Item, deletes []string) ([]byte, error) {
	n := len(puts) + len(deletes)
	if n == 0 || n > MaxUpdateKeys {
		return nil, fmt.Errorf("edgeversion: UpdateKeys of %d keys (1 to %d)", n, MaxUpdateKeys)
	}
	seen := make(map[string]bool, n)
	b := updateBody{}
	for _, p := range puts {
		if err := checkKey(p.Key, seen); err != nil {
			return nil, err
		}
		if len(p.Value) > MaxValueBytes {
			return nil, fmt.Errorf("edgeversion: value of %q: %d bytes (at most %d)", p.Key, len(p.Value), MaxValueBytes)
		}
		b.Puts = append(b.Puts, p)
	}
	for _, k := range deletes {
		if err := checkKey(k, seen); err != nil {
			return nil, err
		}
		b.Deletes = append(b.Deletes, deleteItem{k})
	}
	raw, err := json.Marshal(b)
	if err != nil {
		return nil, err
	}
	if len(raw) > MaxUpdateBytes {
		return nil, fmt.Errorf("edgeversion: UpdateKeys payload of %d bytes (at most %d)", len(raw), MaxUpdateBytes)
	}
	return raw, nil
}

func checkKey(k string, seen map[string]bool) error {
	if k == "" || len(k) > MaxKeyBytes {
		return fmt.Errorf("edgeversion: key %q: not a key (1 to %d bytes)", k, MaxKeyBytes)
	}
	if seen[k] {
		return fmt.Errorf("edgeversion: key %q twice in one UpdateKeys", k)
	}
	seen[k] = true
	return nil
}

// Sweep defaults.
const (
	// DefaultSweepMargin is how long past the edge life a version is kept
	// before a sweep may delete it (Sweeper.Margin).
	DefaultSweepMargin = time.Hour
	// DefaultSweepMaxKeys bounds the keys one sweep lists: 5,000 pages.
	// A full store of the shortest keys and versions (a code path and 13
	// digits, some 20 bytes) is about a quarter of a million keys
	// (docs/cost-model.md, "Versioned cache keys").
	DefaultSweepMaxKeys = 250_000
	// DefaultSweepPause is the pause between two UpdateKeys calls: each
	// changes the store's ETag, which every put of manage names, so a
	// sweep that wrote without a break would make manage's puts conflict
	// (and retry) the more. The sweep is background work; manage's puts
	// carry the takedown.
	DefaultSweepPause = 200 * time.Millisecond
	// DefaultSweepParallelism bounds the GetKey calls in flight when a
	// batch is read again after a conflict.
	DefaultSweepParallelism = 8
)

// Sweeper deletes the versions an edge can no longer hold an answer under
// from the store, so that the store, which gains a key for every changed
// path, stays bounded. Its zero settings are the defaults.
//
// A key whose version (the milliseconds Next writes) is older than
// EdgeLife plus Margin shadows nothing: every answer cached under that
// version and, before it, under "0" (a path that had no key yet: the
// function reads a missing key as "0") was cached before the version
// reached the edge, so has expired. Deleting the key makes the path read
// "0" again, and an answer cached under "0" from before the path's first
// change is older than the edge life, so expired too: the next request is
// a miss, answered from the link as it is now. The next change puts a
// version above the clock's milliseconds, so never one an old answer was
// cached under.
//
// The store has one ETag, which every write changes, and UpdateKeys names
// it (If-Match): a sweep reads the ETag before it lists, so a delete
// answered ConflictException means another writer (manage putting a new
// version) changed the store since, perhaps one of the listed keys. It
// never deletes blindly then: it reads the ETag again, reads each key of
// the batch again (GetKey) and deletes those still old under the new
// ETag, and so for every later batch, since the listing is no longer the
// store's state. A put that lands after the delete finds the ETag changed
// and is retried by its Writer.
type Sweeper struct {
	API SweepAPI
	// ARN is the store; when empty, StoreARN names it on each sweep.
	ARN      string
	StoreARN func(ctx context.Context) (string, error)
	// EdgeLife is the longest an answer keyed on a version may stay at the
	// edge: the redirect's longest s-maxage (SHORTENER_EDGE_TTL,
	// deployment context edgeTtlSeconds). Zero is allowed: the margin
	// still covers the short lives (a 410's minute, an error's seconds).
	EdgeLife time.Duration
	// Margin is added to EdgeLife (DefaultSweepMargin when zero). It
	// covers what lies between a version's milliseconds and the last
	// answer cached under the one it replaced: the version reaching every
	// edge location (AWS documents no bound; seconds are expected), the
	// writers' clocks against the sweeper's, and the origin's answers
	// without s-maxage (the cache policy's default TTL, a minute).
	Margin time.Duration
	// Now reads the clock the versions are compared with; time.Now when
	// nil. The time budget is always the real clock's.
	Now func() time.Time
	// MaxKeys bounds the keys one sweep lists (DefaultSweepMaxKeys when
	// zero); Attempts the UpdateKeys tries of a batch (DefaultAttempts);
	// Pause the wait between two UpdateKeys (DefaultSweepPause, none when
	// negative); Parallelism the GetKey calls in flight
	// (DefaultSweepParallelism).
	MaxKeys     int
	Attempts    int
	Pause       time.Duration
	Parallelism int
}

// SweepResult counts what one sweep did.
type SweepResult struct {
	// Listed are the keys listed.
	Listed int
	// Swept are the keys deleted.
	Swept int
	// Kept are the keys whose version is within EdgeLife plus Margin of
	// now (a key another writer changed since the listing among them).
	Kept int
	// Unparsable are the keys whose value is not a version (no writer here
	// puts one): left alone.
	Unparsable int
	// Failed are the old keys left because UpdateKeys failed or kept
	// conflicting past Attempts.
	Failed int
	// Conflicts are the UpdateKeys calls answered ConflictException.
	Conflicts int
	// Complete says the sweep listed every key and tried every old one;
	// false when its time or MaxKeys ran out or a call failed, and the
	// next sweep goes on.
	Complete bool
}

// Sweep deletes the old keys of the store, in batches within UpdateKeys'
// bounds, and stops listing at three quarters of the time to stopAt and
// deleting at stopAt, so the call returns by then (its calls are given
// stopAt as their deadline). It is idempotent: what it deletes is gone,
// what it leaves the next sweep finds again. The error is the first that
// stopped it; the result counts what was done before.
func (s *Sweeper) Sweep(ctx context.Context, stopAt time.Time) (SweepResult, error) {
	var res SweepResult
	if s.EdgeLife < 0 || s.Margin < 0 {
		return res, fmt.Errorf("edgeversion: sweep with an edge life of %s and a margin of %s: neither may be negative", s.EdgeLife, s.Margin)
	}
	started := time.Now()
	if !started.Before(stopAt) {
		return res, nil
	}
	arn := s.ARN
	if arn == "" && s.StoreARN != nil {
		var err error
		if arn, err = s.StoreARN(ctx); err != nil {
			return res, fmt.Errorf("which key value store: %w", err)
		}
	}
	if s.API == nil || arn == "" {
		return res, errors.New("edgeversion: no key value store to sweep")
	}
	ctx, cancel := context.WithDeadline(ctx, stopAt)
	defer cancel()
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	margin := s.Margin
	if margin == 0 {
		margin = DefaultSweepMargin
	}
	horizon := now().Add(-(s.EdgeLife + margin)).UnixMilli()

	// The ETag before the listing: if it is still the store's at a
	// delete, nothing was written since, and the listing is the store.
	etag, err := s.API.DescribeKeyValueStore(ctx, arn)
	if err != nil {
		return res, fmt.Errorf("describe key value store: %w", err)
	}
	old, listed, listErr := s.list(ctx, arn, horizon, started.Add(stopAt.Sub(started)*3/4), &res)
	run := &sweepRun{s: s, arn: arn, etag: etag, trusted: true, horizon: horizon, res: &res}
	tried, delErr := run.deleteAll(ctx, old, stopAt)
	res.Complete = listed && tried && listErr == nil && delErr == nil
	return res, errors.Join(listErr, delErr)
}

// list lists the store from its first key until the last page, MaxKeys
// keys or until, and returns the keys whose version is older than horizon
// in the order listed, and whether it reached the last page.
func (s *Sweeper) list(ctx context.Context, arn string, horizon int64, until time.Time, res *SweepResult) ([]string, bool, error) {
	maxKeys := s.MaxKeys
	if maxKeys <= 0 {
		maxKeys = DefaultSweepMaxKeys
	}
	var old []string
	seen := map[string]bool{} // a key listed twice (pages under writes) is deleted once
	token := ""
	for {
		if res.Listed >= maxKeys || !time.Now().Before(until) {
			return old, false, nil
		}
		items, next, err := s.API.ListKeys(ctx, arn, MaxListResults, token)
		if err != nil {
			return old, false, fmt.Errorf("list keys: %w", err)
		}
		for _, it := range items {
			if seen[it.Key] {
				continue
			}
			seen[it.Key] = true
			res.Listed++
			switch v, ok := ParseVersion(it.Value); {
			case !ok:
				res.Unparsable++
			case v < horizon:
				old = append(old, it.Key)
			default:
				res.Kept++
			}
		}
		if next == "" {
			return old, true, nil
		}
		if next == token {
			return old, false, errors.New("list keys: the same NextToken answered twice")
		}
		token = next
	}
}

// ParseVersion reads a version as Next writes it: the decimal digits of a
// non-negative number of milliseconds, nothing else.
func ParseVersion(v string) (int64, bool) {
	if v == "" || len(v) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range []byte(v) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// sweepRun is one sweep's deleting: the ETag of its last write, and
// whether the listing still is the store's state under it.
type sweepRun struct {
	s       *Sweeper
	arn     string
	etag    string
	trusted bool
	horizon int64
	res     *SweepResult
}

// deleteAll deletes old in batches until stopAt, and says whether it
// tried every batch.
func (r *sweepRun) deleteAll(ctx context.Context, old []string, stopAt time.Time) (bool, error) {
	pause := r.s.Pause
	if pause == 0 {
		pause = DefaultSweepPause
	}
	for i, batch := range Batches(old) {
		if i > 0 && pause > 0 {
			t := time.NewTimer(pause)
			select {
			case <-ctx.Done():
			case <-t.C:
			}
			t.Stop()
		}
		if ctx.Err() != nil || !time.Now().Before(stopAt) {
			return false, nil
		}
		if err := r.delete(ctx, batch); err != nil {
			return false, err
		}
	}
	return true, nil
}

// delete deletes batch under the last ETag while the listing is the
// store's state; otherwise, or after a conflict, under a fresh ETag once
// each key is read again and found still old.
func (r *sweepRun) delete(ctx context.Context, batch []string) error {
	attempts := r.s.Attempts
	if attempts <= 0 {
		attempts = DefaultAttempts
	}
	for range attempts {
		if !r.trusted {
			etag, err := r.s.API.DescribeKeyValueStore(ctx, r.arn)
			if err != nil {
				r.res.Failed += len(batch)
				return fmt.Errorf("describe key value store: %w", err)
			}
			r.etag = etag
			if batch, err = r.recheck(ctx, batch); err != nil {
				r.res.Failed += len(batch)
				return err
			}
			if len(batch) == 0 {
				return nil
			}
		}
		etag, err := r.s.API.UpdateKeys(ctx, r.arn, nil, batch, r.etag)
		if err == nil {
			r.etag = etag
			r.res.Swept += len(batch)
			return nil
		}
		if !errors.Is(err, ErrConflict) {
			r.res.Failed += len(batch)
			return fmt.Errorf("delete %d keys: %w", len(batch), err)
		}
		r.res.Conflicts++
		r.trusted = false
	}
	r.res.Failed += len(batch)
	return fmt.Errorf("delete %d keys: %w, %d times", len(batch), ErrConflict, attempts)
}

// recheck reads each key of batch again and returns those still old, in
// order; a key now younger is counted kept, one gone is dropped.
func (r *sweepRun) recheck(ctx context.Context, batch []string) ([]string, error) {
	par := r.s.Parallelism
	if par <= 0 {
		par = DefaultSweepParallelism
	}
	type answer struct {
		value string
		found bool
		err   error
	}
	answers := make([]answer, len(batch))
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	for i, k := range batch {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			v, found, err := r.s.API.GetKey(ctx, r.arn, k)
			answers[i] = answer{v, found, err}
		})
	}
	wg.Wait()
	still := batch[:0:0]
	for i, a := range answers {
		if a.err != nil {
			return batch, fmt.Errorf("get version of %q: %w", batch[i], a.err)
		}
		if !a.found {
			continue
		}
		switch v, ok := ParseVersion(a.value); {
		case !ok:
			r.res.Unparsable++
		case v < r.horizon:
			still = append(still, batch[i])
		default:
			r.res.Kept++
		}
	}
	return still, nil
}

// Batches splits deletes into UpdateKeys calls within MaxUpdateKeys and
// MaxUpdateBytes, in order.
func Batches(deletes []string) [][]string { return batches(deletes, MaxUpdateKeys, MaxUpdateBytes) }

func batches(deletes []string, maxKeys, maxBytes int) [][]string {
	// The body without items, {"Deletes":[]}, and each item's
	// {"Key":...} and its comma.
	const empty, perItem = len(`{"Deletes":[]}`), len(`{"Key":},`)
	var out [][]string
	var cur []string
	size := empty
	for _, k := range deletes {
		q, _ := json.Marshal(k) // a string always marshals
		n := perItem + len(q)
		if len(cur) == maxKeys || (len(cur) > 0 && size+n > maxBytes) {
			out = append(out, cur)
			cur, size = nil, empty
		}
		cur = append(cur, k)
		size += n
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}
