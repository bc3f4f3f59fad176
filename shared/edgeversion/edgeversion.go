package edgeversion

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// ErrConflict is an API's answer to a PutKey whose If-Match is not the
// store's ETag any more (the API's ConflictException).
var ErrConflict = errors.New("key value store changed since its ETag was read")

// API lists the cloudfront-keyvaluestore calls a Writer makes, on the
// store arn.
type API interface {
	// DescribeKeyValueStore returns the store's current ETag.
	DescribeKeyValueStore(ctx context.Context, arn string) (etag string, err error)
	// GetKey returns key's value, found false when the store has none.
	GetKey(ctx context.Context, arn, key string) (value string, found bool, err error)
	// PutKey sets key to value if the store's ETag is still ifMatch
	// (else ErrConflict) and returns the store's new ETag.
	PutKey(ctx context.Context, arn, key, value, ifMatch string) (etag string, err error)
}

// DefaultAttempts bounds the PutKey tries of one path when other writers
// keep changing the store's ETag.
const DefaultAttempts = 5

// MaxKeyBytes is the longest key a store takes
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/cloudfront-limits.html#limits-kvs).
const MaxKeyBytes = 512

// Writer puts new versions of paths into the store ARN. It is safe for
// concurrent use.
type Writer struct {
	API API
	// ARN is the store; when empty, StoreARN names it on each call (the
	// store is made with the distribution, after the functions, and its
	// ARN reaches them at run time: shared/edgeinfo).
	ARN      string
	StoreARN func(ctx context.Context) (string, error)
	// Now gives the clock's versions; time.Now when nil.
	Now func() time.Time
	// Attempts bounds the tries of a path (DefaultAttempts when zero).
	Attempts int
	// Fallback, when set, is asked to invalidate the paths when a version
	// cannot be put (the store unreachable, full or refusing): the paths
	// still leave the edge, at an invalidation's price. OnFallback hears
	// why it was used.
	Fallback   Invalidator
	OnFallback func(paths []string, err error)

	mu     sync.Mutex // serialises the writes, which each need the last ETag
	etag   string
	etagOf string // the store etag is of
}

// Invalidator drops paths from the edge caches (edgecache.Invalidator).
type Invalidator interface {
	Invalidate(ctx context.Context, paths ...string) error
}

// Invalidate gives each of paths a new version, in order. When one cannot
// be written it invalidates the paths through Fallback, when there is
// one, and otherwise returns why.
func (w *Writer) Invalidate(ctx context.Context, paths ...string) error {
	err := w.put(ctx, paths)
	if err == nil || w.Fallback == nil {
		return err
	}
	if w.OnFallback != nil {
		w.OnFallback(paths, err)
	}
	if ferr := w.Fallback.Invalidate(ctx, paths...); ferr != nil {
		return fmt.Errorf("%w; the fallback invalidation failed too: %w", err, ferr)
	}
	return nil
}

// put gives each of paths a new version; it stops at the first path it
// cannot write and returns why.
func (w *Writer) put(ctx context.Context, paths []string) error {
	arn := w.ARN
	if arn == "" && w.StoreARN != nil {
		var err error
		if arn, err = w.StoreARN(ctx); err != nil {
			return fmt.Errorf("which key value store: %w", err)
		}
	}
	if w.API == nil || arn == "" {
		return errors.New("edgeversion: no key value store")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if arn != w.etagOf {
		w.etag, w.etagOf = "", arn
	}
	for _, p := range paths {
		if p == "" || len(p) > MaxKeyBytes {
			return fmt.Errorf("edgeversion: path %q: not a key (1 to %d bytes)", p, MaxKeyBytes)
		}
		if err := w.bump(ctx, arn, p); err != nil {
			return err
		}
	}
	return nil
}

// bump puts a version of path above the clock's and the store's.
func (w *Writer) bump(ctx context.Context, arn, path string) error {
	attempts := w.Attempts
	if attempts <= 0 {
		attempts = DefaultAttempts
	}
	now := time.Now
	if w.Now != nil {
		now = w.Now
	}
	var err error
	for range attempts {
		if w.etag == "" {
			if w.etag, err = w.API.DescribeKeyValueStore(ctx, arn); err != nil {
				return fmt.Errorf("describe key value store: %w", err)
			}
		}
		cur, found, gerr := w.API.GetKey(ctx, arn, path)
		if gerr != nil {
			return fmt.Errorf("get version of %q: %w", path, gerr)
		}
		next := Next(now(), cur, found)
		etag, perr := w.API.PutKey(ctx, arn, path, next, w.etag)
		if perr == nil {
			w.etag = etag
			return nil
		}
		err = perr
		w.etag = ""
		if !errors.Is(perr, ErrConflict) {
			break
		}
	}
	return fmt.Errorf("put version of %q: %w", path, err)
}

// Next is the version to put at now over the store's current one (cur,
// found): the clock's Unix milliseconds, or one more than cur when that is
// not below them (a clock behind another writer's), so a path's versions
// only rise and never repeat. A current value that is not a number is
// passed over.
func Next(now time.Time, cur string, found bool) string {
	v := now.UnixMilli()
	if found {
		if c, err := strconv.ParseInt(cur, 10, 64); err == nil && c >= v {
			v = c + 1
		}
	}
	return strconv.FormatInt(v, 10)
}
