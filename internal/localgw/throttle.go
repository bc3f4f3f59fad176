package localgw

import (
	"sync"
	"time"

	"github.com/shortlink-dev/shortener/shared/edgespec"
)

// Throttle is one of API Gateway's token buckets
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-request-throttling.html):
// it holds up to BurstLimit tokens, refills at RateLimit tokens a second,
// and a request that finds it empty is refused with 429. A stage's
// throttle is one bucket all its methods share; a usage plan's is one
// bucket per API key.
type Throttle struct {
	limit edgespec.Throttle

	mu     sync.Mutex
	tokens float64
	last   time.Time
}

// NewThrottle is a full bucket of limit.
func NewThrottle(limit edgespec.Throttle) *Throttle {
	return &Throttle{limit: limit, tokens: float64(limit.BurstLimit)}
}

// take spends a token at now and reports whether there was one.
func (t *Throttle) take(now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.last.IsZero() && now.After(t.last) {
		t.tokens += now.Sub(t.last).Seconds() * t.limit.RateLimit
	}
	if burst := float64(t.limit.BurstLimit); t.tokens > burst {
		t.tokens = burst
	}
	if now.After(t.last) {
		t.last = now
	}
	if t.tokens < 1 {
		return false
	}
	t.tokens--
	return true
}

// usagePlan is a REST API usage plan as the gateway plays it: a throttle
// per API key and a count of each key's requests per UTC day.
type usagePlan struct {
	plan edgespec.UsagePlan

	mu       sync.Mutex
	throttle map[string]*Throttle // by key ID
	used     map[string]quotaDay  // by key ID
}

type quotaDay struct {
	day  string // 2006-01-02, UTC
	used int
}

func newUsagePlan(plan edgespec.UsagePlan) *usagePlan {
	return &usagePlan{plan: plan, throttle: map[string]*Throttle{}, used: map[string]quotaDay{}}
}

// admit counts one request of keyID at now. It returns "" when the
// request may go on, else the gateway response type that refuses it:
// QUOTA_EXCEEDED once the key has used the day's quota, THROTTLED while
// its bucket is empty. A throttled request does not count against the
// quota.
func (u *usagePlan) admit(keyID string, now time.Time) string {
	u.mu.Lock()
	defer u.mu.Unlock()
	t := u.throttle[keyID]
	if t == nil {
		t = NewThrottle(u.plan.Throttle)
		u.throttle[keyID] = t
	}
	day := now.UTC().Format(time.DateOnly)
	q := u.used[keyID]
	if q.day != day {
		q = quotaDay{day: day}
	}
	if q.used >= u.plan.Quota {
		return edgespec.ResponseQuotaExceeded
	}
	if !t.take(now) {
		return edgespec.ResponseThrottled
	}
	q.used++
	u.used[keyID] = q
	return ""
}
