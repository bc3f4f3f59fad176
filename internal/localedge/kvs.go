package localedge

import (
	"context"
	"fmt"
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
// (DescribeKeyValueStore, GetKey, PutKey, with the ETag every write
// changes and If-Match checks) answers at once, as the
// cloudfront-keyvaluestore API does, while the edge side a function reads
// (Get, cloudfrontjs.KeyValueStore) sees a write only its propagation
// delay later. It is safe for concurrent use.
type KeyValueStore struct {
	delay time.Duration
	now   func() time.Time

	mu    sync.Mutex
	etag  uint64
	items map[string][]kvsWrite // a key's writes, oldest first
}

// kvsWrite is one value of a key and when the edge reads it.
type kvsWrite struct {
	value   string
	visible time.Time
}

var (
	_ edgeversion.API            = (*KeyValueStore)(nil)
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
			// The older writes can never be read again.
			s.items[key] = ws[i:]
			return ws[i].value, true, nil
		}
	}
	return "", false, nil
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
	if len(ws) == 0 {
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
