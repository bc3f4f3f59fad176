package localedge

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/shortlink-dev/shortener/internal/cloudfrontjs"
	"github.com/shortlink-dev/shortener/shared/edgeversion"
)

// DefaultPropagationDelay is how long a KeyValueStore's write takes to
// reach the edge's reads by default. AWS documents no bound for it: the
// time from a PutKey's answer to the functions at every edge location
// reading the new value is the first thing to measure on AWS before
// versioned cache keys can carry the 30 s takedown (docs/cost-model.md,
// "Versioned cache keys"). A few seconds here keeps the local run honest
// about it being neither instant nor nil.
const DefaultPropagationDelay = 5 * time.Second

// KeyValueStore plays a CloudFront KeyValueStore: the API side
// (DescribeKeyValueStore, GetKey, PutKey, ListKeys and UpdateKeys, with
// the ETag every write changes and If-Match checks) answers at once, as
// the cloudfront-keyvaluestore API does, while the edge side a function
// reads (Get, cloudfrontjs.KeyValueStore) sees a write, a delete as much
// as a put, only its propagation delay later. It is safe for concurrent
// use.
//
// It follows the API reference
// (https://docs.aws.amazon.com/cloudfront/latest/APIReference/API_Operations_Amazon_CloudFront_KeyValueStore.html)
// where it speaks and is stricter where it is silent: ListKeys takes
// MaxResults from 1 to 50 and lists the keys in order, a page's token
// naming where the next starts (so a token outlives writes: what AWS
// does with one is not documented); UpdateKeys is one write, all or
// nothing, within 50 keys and 3 MB (edgeversion.UpdateKeysBody), and
// refuses to delete a key the store does not hold, which AWS leaves
// unsaid and the sweep never asks.
type KeyValueStore struct {
	delay time.Duration
	now   func() time.Time

	mu    sync.Mutex
	etag  uint64
	items map[string][]kvsWrite // a key's writes, oldest first
}

// kvsWrite is one value of a key, or its deletion, and when the edge
// reads it.
type kvsWrite struct {
	value   string
	deleted bool
	visible time.Time
}

var (
	_ edgeversion.API            = (*KeyValueStore)(nil)
	_ edgeversion.SweepAPI       = (*KeyValueStore)(nil)
	_ cloudfrontjs.KeyValueStore = (*KeyValueStore)(nil)
)

// NewKeyValueStore returns an empty store whose writes reach the edge
// delay later (DefaultPropagationDelay when zero, at once when negative),
// on now's clock (time.Now when nil).
func NewKeyValueStore(delay time.Duration, now func() time.Time) *KeyValueStore {
	switch {
	case delay == 0:
		delay = DefaultPropagationDelay
	case delay < 0:
		delay = 0
	}
	if now == nil {
		now = time.Now
	}
	return &KeyValueStore{delay: delay, now: now, items: map[string][]kvsWrite{}}
}

// PropagationDelay is how long a write takes to reach the edge.
func (s *KeyValueStore) PropagationDelay() time.Duration { return s.delay }

// Get is the edge's read: the latest value of key whose write has
// propagated.
func (s *KeyValueStore) Get(key string) (string, bool, error) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	ws := s.items[key]
	for i := len(ws) - 1; i >= 0; i-- {
		if !now.Before(ws[i].visible) {
			// The older writes can never be read again; nor can a key
			// whose deletion is its last write.
			if ws[i].deleted {
				if i == len(ws)-1 {
					delete(s.items, key)
				} else {
					s.items[key] = ws[i:]
				}
				return "", false, nil
			}
			s.items[key] = ws[i:]
			return ws[i].value, true, nil
		}
	}
	return "", false, nil
}

// Len is how many keys the API side holds.
func (s *KeyValueStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, ws := range s.items {
		if !ws[len(ws)-1].deleted {
			n++
		}
	}
	return n
}

func (s *KeyValueStore) currentETag() string { return "ETVPDKIKX0DER" + strconv.FormatUint(s.etag, 10) }

// DescribeKeyValueStore returns the store's ETag.
func (s *KeyValueStore) DescribeKeyValueStore(ctx context.Context, _ string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.currentETag(), nil
}

// GetKey is the API's read, which sees every write at once.
func (s *KeyValueStore) GetKey(ctx context.Context, _, key string) (string, bool, error) {
	if err := ctx.Err(); err != nil {
		return "", false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ws := s.items[key]
	if len(ws) == 0 || ws[len(ws)-1].deleted {
		return "", false, nil
	}
	return ws[len(ws)-1].value, true, nil
}

// PutKey sets key to value when ifMatch is the store's ETag
// (edgeversion.ErrConflict otherwise) and returns the new ETag; the edge
// reads the value once the propagation delay has passed.
func (s *KeyValueStore) PutKey(ctx context.Context, _, key, value, ifMatch string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if key == "" || len(key) > edgeversion.MaxKeyBytes {
		return "", fmt.Errorf("localedge: key value store: key of %d bytes (1 to %d)", len(key), edgeversion.MaxKeyBytes)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ifMatch != s.currentETag() {
		return "", edgeversion.ErrConflict
	}
	s.etag++
	s.items[key] = append(s.items[key], kvsWrite{value: value, visible: s.now().Add(s.delay)})
	return s.currentETag(), nil
}

// ListKeys returns, in key order, at most maxResults (1 to
// edgeversion.MaxListResults) of the keys the API side holds, from the
// one after the page nextToken ended ("" for the first), and the next
// page's token, "" after the last.
func (s *KeyValueStore) ListKeys(ctx context.Context, _ string, maxResults int, nextToken string) ([]edgeversion.Item, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	if maxResults < 1 || maxResults > edgeversion.MaxListResults {
		return nil, "", fmt.Errorf("localedge: key value store: ListKeys MaxResults %d (1 to %d)", maxResults, edgeversion.MaxListResults)
	}
	after := ""
	if nextToken != "" {
		b, err := base64.RawURLEncoding.DecodeString(nextToken)
		if err != nil || len(b) == 0 {
			return nil, "", fmt.Errorf("localedge: key value store: ListKeys NextToken %q is not one it answered", nextToken)
		}
		after = string(b)
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make([]string, 0, len(s.items))
	for k, ws := range s.items {
		last := ws[len(ws)-1]
		switch {
		case last.deleted && !now.Before(last.visible):
			delete(s.items, k) // the edge reads it as gone too: nothing is left of it
		case !last.deleted && k > after:
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	next := ""
	if len(keys) > maxResults {
		keys = keys[:maxResults]
		next = base64.RawURLEncoding.EncodeToString([]byte(keys[len(keys)-1]))
	}
	items := make([]edgeversion.Item, len(keys))
	for i, k := range keys {
		ws := s.items[k]
		items[i] = edgeversion.Item{Key: k, Value: ws[len(ws)-1].value}
	}
	return items, next, nil
}

// UpdateKeys puts puts and deletes deletes in one write when ifMatch is
// the store's ETag (edgeversion.ErrConflict otherwise), and returns the
// new ETag; the edge reads the write once the propagation delay has
// passed.
func (s *KeyValueStore) UpdateKeys(ctx context.Context, _ string, puts []edgeversion.Item, deletes []string, ifMatch string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if _, err := edgeversion.UpdateKeysBody(puts, deletes); err != nil {
		return "", fmt.Errorf("localedge: key value store: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ifMatch != s.currentETag() {
		return "", edgeversion.ErrConflict
	}
	for _, k := range deletes {
		if ws := s.items[k]; len(ws) == 0 || ws[len(ws)-1].deleted {
			return "", fmt.Errorf("localedge: key value store: UpdateKeys deletes %q, which the store does not hold", k)
		}
	}
	visible := s.now().Add(s.delay)
	for _, k := range deletes {
		s.items[k] = append(s.items[k], kvsWrite{deleted: true, visible: visible})
	}
	for _, p := range puts {
		s.items[p.Key] = append(s.items[p.Key], kvsWrite{value: p.Value, visible: visible})
	}
	s.etag++
	return s.currentETag(), nil
}
