package localedge

import (
	"bytes"
	"container/list"
	"hash/maphash"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// numShards splits the cache so concurrent hits on different paths take
// different locks.
const numShards = 32

// entry is one cached answer. The answer never changes once stored, so a
// hit writes it out without holding any lock; only the memo of its last
// Age header does, atomically.
type entry struct {
	key    string
	status int
	// header is the origin's but for Content-Length, its values cloned,
	// and every hit puts its slices in its own answer as they are: each
	// is capped, so an append there copies it, and net/http copies the
	// header before it writes it. A slice, as a hit only walks it.
	header []headerField
	// contentLength is the body's length, for the hits that must say it
	// (see hitContentLength).
	contentLength []string
	body          []byte
	stored        time.Time
	expires       time.Time
	// result is the x-edge-result-type of a hit, xCache its X-Cache header.
	result string
	xCache []string
	age    atomic.Pointer[ageHeader]
}

// newEntry keeps an origin answer for ttl from stored.
func newEntry(key string, status int, header http.Header, body []byte, stored time.Time, ttl time.Duration) *entry {
	result := resultFor(status, true)
	e := &entry{key: key, status: status, body: bytes.Clone(body), stored: stored, expires: stored.Add(ttl),
		result: result, xCache: []string{result + " from cloudfront"},
		contentLength: []string{strconv.Itoa(len(body))}}
	for k, vs := range header.Clone() {
		if k != "Content-Length" {
			e.header = append(e.header, headerField{key: k, values: vs})
		}
	}
	return e
}

// headerField is one header of a cached answer.
type headerField struct {
	key    string
	values []string
}

// bufferedBody is net/http's bufferBeforeChunkingSize: the response
// buffer a handler's body goes through. When the handler returns with a
// body no larger than that written whole, net/http sets Content-Length
// itself, without the header map.
const bufferedBody = 2048

// hitContentLength reports whether a hit must set Content-Length itself:
// for a HEAD, which writes no body, and for a body net/http will not have
// whole when it writes the header (it would send it chunked). Otherwise
// net/http sets it, and the header map a hit fills stays within the eight
// entries a Go map holds without growing to a table, which costs the
// hit, and net/http's copy of the map, a good share of their time.
func (e *entry) hitContentLength(method string) bool {
	return method == http.MethodHead || len(e.body) > bufferedBody
}

// ageHeader is an Age header value and the whole seconds it says.
type ageHeader struct {
	secs  int64
	value []string
}

// ageAt is the Age header of a hit at now: the whole seconds since the
// answer was stored. Hits within the same second share one value.
func (e *entry) ageAt(now time.Time) []string {
	secs := int64(now.Sub(e.stored) / time.Second)
	if a := e.age.Load(); a != nil && a.secs == secs {
		return a.value
	}
	a := &ageHeader{secs: secs, value: []string{strconv.FormatInt(secs, 10)}}
	e.age.Store(a)
	return a.value
}

// cache is a bounded LRU of answers keyed by path.
type cache struct {
	seed   maphash.Seed
	shards [numShards]cacheShard
}

type cacheShard struct {
	mu    sync.Mutex
	max   int
	items map[string]*list.Element // of *entry
	lru   list.List                // front: most recently used
}

func newCache(maxEntries int) *cache {
	c := &cache{seed: maphash.MakeSeed()}
	per := max((maxEntries+numShards-1)/numShards, 1)
	for i := range c.shards {
		c.shards[i].max = per
		c.shards[i].items = map[string]*list.Element{}
	}
	return c
}

func (c *cache) shard(key string) *cacheShard {
	return &c.shards[maphash.String(c.seed, key)%numShards]
}

// get returns the fresh entry for key, or nil; an expired one is dropped.
func (c *cache) get(key string, now time.Time) *entry {
	s := c.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	el, ok := s.items[key]
	if !ok {
		return nil
	}
	e := el.Value.(*entry)
	if !now.Before(e.expires) {
		s.lru.Remove(el)
		delete(s.items, key)
		return nil
	}
	s.lru.MoveToFront(el)
	return e
}

// put stores e unless valid, called under the shard's lock, says an
// invalidation has overtaken the fetch that produced it.
func (c *cache) put(e *entry, valid func() bool) bool {
	s := c.shard(e.key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !valid() {
		return false
	}
	if el, ok := s.items[e.key]; ok {
		el.Value = e
		s.lru.MoveToFront(el)
		return true
	}
	s.items[e.key] = s.lru.PushFront(e)
	for s.lru.Len() > s.max {
		last := s.lru.Back()
		s.lru.Remove(last)
		delete(s.items, last.Value.(*entry).key)
	}
	return true
}

// remove drops key, and with prefix every key that starts with it; it
// returns how many entries went.
func (c *cache) remove(key string, prefix bool) int {
	if !prefix {
		s := c.shard(key)
		s.mu.Lock()
		defer s.mu.Unlock()
		if el, ok := s.items[key]; ok {
			s.lru.Remove(el)
			delete(s.items, key)
			return 1
		}
		return 0
	}
	n := 0
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		for k, el := range s.items {
			if strings.HasPrefix(k, key) {
				s.lru.Remove(el)
				delete(s.items, k)
				n++
			}
		}
		s.mu.Unlock()
	}
	return n
}

// len counts the entries, expired ones included.
func (c *cache) len() int {
	n := 0
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		n += s.lru.Len()
		s.mu.Unlock()
	}
	return n
}
