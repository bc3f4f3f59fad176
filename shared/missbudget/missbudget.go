package missbudget

import (
	"context"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Defaults of the budget: SHORTENER_MISS_BUDGET unknown codes per
// SHORTENER_MISS_WINDOW per client (shared/config).
const (
	DefaultBudget = 100
	DefaultWindow = time.Hour
)

// ViewerAddressHeader is the header CloudFront adds to an origin request
// when the origin request policy names it: the viewer's IP address and
// source port, "198.51.100.10:46532" or "2001:db8::1:46532"
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/adding-cloudfront-headers.html).
// A viewer cannot set it: CloudFront writes it.
const ViewerAddressHeader = "CloudFront-Viewer-Address"

// Client is the budget's key for a viewer address as CloudFront forwards
// it: the IPv4 address, or the /64 of an IPv6 one (one subscriber's
// network: a host picks any of its 2^64 addresses at will). "" when the
// value is not an address (no header: the request did not come through
// the edge, and nothing is counted).
func Client(viewerAddress string) string {
	v := strings.TrimSpace(viewerAddress)
	// The port follows the last colon; an IPv6 address keeps its own.
	i := strings.LastIndexByte(v, ':')
	if i <= 0 {
		return ""
	}
	if _, err := strconv.ParseUint(v[i+1:], 10, 16); err != nil {
		return ""
	}
	host := strings.TrimSuffix(strings.TrimPrefix(v[:i], "["), "]")
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return ""
	}
	addr = addr.Unmap()
	if addr.Is4() {
		return addr.String()
	}
	p, _ := addr.WithZone("").Prefix(64) // a valid IPv6 address has a /64
	return p.String()
}

// Counter adds one miss to a client's window and returns the count after
// it; dynamo.MissCounter is the deployed one.
type Counter interface {
	Add(ctx context.Context, client string, window time.Time, expires time.Time) (int64, error)
}

// Verdict is what a miss or a found link may be answered.
type Verdict struct {
	// Refused: the client spent its budget; answer 429.
	Refused bool
	// RetryAfter is how long until the window ends, for Retry-After.
	RetryAfter time.Duration
}

// Budget decides, per client, whether a miss may be answered. It is safe
// for concurrent use. The zero value is not usable: build it with New.
type Budget struct {
	counter Counter
	budget  int64
	window  time.Duration

	mu sync.Mutex
	// refused remembers, until its window ends, each client this process
	// saw over its budget, so further requests of that client cost no
	// write, and a live code it asks for is refused without any.
	refused    map[string]time.Time
	maxRefused int
}

// DefaultMaxRefused bounds the clients one process remembers as over
// their budget; past it, the expired ones are swept and, failing that,
// the counter is asked again (one write per miss, the answer unchanged).
const DefaultMaxRefused = 100_000

// New builds a budget of budget misses per window per client over counter.
func New(counter Counter, budget int, window time.Duration) *Budget {
	return &Budget{counter: counter, budget: int64(budget), window: window,
		refused: map[string]time.Time{}, maxRefused: DefaultMaxRefused}
}

// windowOf is the window now falls in: fixed windows from the epoch, so
// every process and Region agrees on where one starts. A client may thus
// spend two budgets in one window's length across a boundary, never more.
func (b *Budget) windowOf(now time.Time) (start, end time.Time) {
	start = now.Truncate(b.window)
	return start, start.Add(b.window)
}

// Known answers, without any call, whether this process knows client to
// be over its budget now: a found link is refused to such a client, and
// never counted.
func (b *Budget) Known(client string, now time.Time) Verdict {
	if client == "" {
		return Verdict{}
	}
	b.mu.Lock()
	until, ok := b.refused[client]
	if ok && !now.Before(until) {
		delete(b.refused, client)
		ok = false
	}
	b.mu.Unlock()
	if !ok {
		return Verdict{}
	}
	return Verdict{Refused: true, RetryAfter: until.Sub(now)}
}

// Miss counts one unknown code against client and says whether the miss
// may still be answered. A client already known to be over its budget is
// refused without a write. When the counter fails, the miss is answered
// (the budget fails open: an outage of its table must not turn misses
// into errors) and the error is returned for the caller to log.
func (b *Budget) Miss(ctx context.Context, client string, now time.Time) (Verdict, error) {
	if client == "" {
		return Verdict{}, nil
	}
	if v := b.Known(client, now); v.Refused {
		return v, nil
	}
	start, end := b.windowOf(now)
	// The item outlives its window by one more, for TTL's lag to be
	// harmless: a late deletion only removes a count nobody reads.
	n, err := b.counter.Add(ctx, client, start, end.Add(b.window))
	if err != nil {
		return Verdict{}, err
	}
	if n <= b.budget {
		return Verdict{}, nil
	}
	b.remember(client, end, now)
	return Verdict{Refused: true, RetryAfter: end.Sub(now)}, nil
}

func (b *Budget) remember(client string, until, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.refused) >= b.maxRefused {
		for c, u := range b.refused {
			if !now.Before(u) {
				delete(b.refused, c)
			}
		}
		if len(b.refused) >= b.maxRefused {
			return
		}
	}
	b.refused[client] = until
}

// Memory is an in-process Counter, for tests and a run without DynamoDB.
type Memory struct {
	mu     sync.Mutex
	counts map[string]int64
	// Calls counts Add calls: the writes a deployed counter would bill.
	Calls int
}

var _ Counter = (*Memory)(nil)

// NewMemory returns an empty counter.
func NewMemory() *Memory { return &Memory{counts: map[string]int64{}} }

// Add counts one miss.
func (m *Memory) Add(_ context.Context, client string, window, _ time.Time) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Calls++
	k := Key(client, window)
	m.counts[k]++
	return m.counts[k], nil
}

// Key is the counter item's key for client and the window starting at
// window: the client, "#", and the window's start in Unix seconds.
func Key(client string, window time.Time) string {
	return client + "#" + strconv.FormatInt(window.Unix(), 10)
}
