package redirectcache

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// target is a small struct like the redirect path caches per code.
type target struct {
	URL       string
	Status    uint16
	Version   int64
	Permanent bool
}

const benchKeys = 1024

func benchCache(b *testing.B) (*Cache[target], []string) {
	b.Helper()
	c := New[target](Options{TTL: time.Hour, NegativeTTL: 10 * time.Second, Jitter: 0.1, StaleFor: time.Hour, NotFound: errBenchNotFound})
	keys := make([]string, benchKeys)
	for i := range keys {
		keys[i] = fmt.Sprintf("code%04d", i)
		if _, _, err := c.GetKeyed(context.Background(), keys[i], loadTarget); err != nil {
			b.Fatal(err)
		}
	}
	return c, keys
}

var errBenchNotFound = errors.New("not found")

func loadTarget(_ context.Context, key string) (target, error) {
	return target{URL: "https://example.com/" + key, Status: 301, Version: 1}, nil
}

var loadTargetNoKey = func(context.Context) (target, error) {
	return target{URL: "https://example.com/", Status: 301, Version: 1}, nil
}

var sink target

func BenchmarkHit(b *testing.B) {
	ctx := context.Background()
	b.Run("serial", func(b *testing.B) {
		c, keys := benchCache(b)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			v, res, _ := c.Get(ctx, keys[i%benchKeys], loadTargetNoKey)
			if res != Hit {
				b.Fatal(res)
			}
			sink = v
			i++
		}
	})
	b.Run("serial-keyed", func(b *testing.B) {
		c, keys := benchCache(b)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			v, res, _ := c.GetKeyed(ctx, keys[i%benchKeys], loadTarget)
			if res != Hit {
				b.Fatal(res)
			}
			sink = v
			i++
		}
	})
	// The usual call site: a closure capturing the key. It escapes into the
	// shared load, so the caller pays an allocation even on a hit.
	b.Run("serial-capturing-closure", func(b *testing.B) {
		c, keys := benchCache(b)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			key := keys[i%benchKeys]
			v, res, _ := c.Get(ctx, key, func(ctx context.Context) (target, error) { return loadTarget(ctx, key) })
			if res != Hit {
				b.Fatal(res)
			}
			sink = v
			i++
		}
	})
	// The cache's own cost, without the clock: time.Now is about 60 ns on
	// a KVM guest (kvm-clock), which Lambda's Firecracker VMs are too.
	b.Run("serial-fixed-clock", func(b *testing.B) {
		c, keys := benchCache(b)
		now := time.Now()
		c.now = func() time.Time { return now }
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			v, res, _ := c.GetKeyed(ctx, keys[i%benchKeys], loadTarget)
			if res != Hit {
				b.Fatal(res)
			}
			sink = v
			i++
		}
	})
	b.Run("parallel", func(b *testing.B) {
		c, keys := benchCache(b)
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				_, res, _ := c.GetKeyed(ctx, keys[i%benchKeys], loadTarget)
				if res != Hit {
					b.Error(res)
					return
				}
				i++
			}
		})
	})
}

func BenchmarkNegativeHit(b *testing.B) {
	c, _ := benchCache(b)
	ctx := context.Background()
	notFound := func(context.Context, string) (target, error) { return target{}, errBenchNotFound }
	_, _, _ = c.GetKeyed(ctx, "missing", notFound)
	b.ReportAllocs()
	for b.Loop() {
		_, res, _ := c.GetKeyed(ctx, "missing", notFound)
		if res != NegativeHit {
			b.Fatal(res)
		}
	}
}

// BenchmarkMissLoad measures a miss: the entry was invalidated, so the Get
// starts a shared load, waits for it and caches a new entry.
func BenchmarkMissLoad(b *testing.B) {
	c, keys := benchCache(b)
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		key := keys[i%benchKeys]
		c.Invalidate(key)
		_, res, err := c.GetKeyed(ctx, key, loadTarget)
		if res != Miss || err != nil {
			b.Fatal(res, err)
		}
		i++
	}
}
