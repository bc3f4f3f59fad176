// Package redirectfn answers GET and HEAD /{code}: the redirect. It refuses
// impossible codes before any lookup, serves from an in-process cache in
// front of DynamoDB, enforces expiry itself (DynamoDB TTL deletes days
// late), and tells CloudFront how long it may keep each answer. The Lambda
// in functions/redirect and the local gateway run this same handler.
package redirectfn

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/edgemarks"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkcounter"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/missbudget"
	"github.com/shortlink-dev/shortener/shared/redirectcache"
)

// Getter reads one link; linkstore.Store satisfies it.
type Getter interface {
	Get(ctx context.Context, code string) (link.Link, error)
}

// Edge caching defaults, in seconds. CloudFront keeps a redirect for
// EdgeTTL unless the link expires sooner; the management API invalidates
// the edge on every change, so long is safe and it is the biggest cost lever.
const (
	DefaultEdgeTTL     = 24 * 60 * 60
	DefaultNewLinkTTL  = 10 // a link created in the last minute
	DefaultNotFoundTTL = 10 // scanners get a cached 404, new aliases appear quickly
	DefaultGoneTTL     = 60
	newLinkWindow      = time.Minute
)

// EdgeErrorCachingMinTTL is CloudFront's error caching minimum TTL, in
// seconds, which the distribution leaves at its default: a 404 or 410
// whose s-maxage is below it is kept for the minimum anyway, while
// no-store keeps it out of the cache altogether
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/HTTPStatusCodes.html).
const EdgeErrorCachingMinTTL = 10

// Handler serves redirects. Build it with New.
type Handler struct {
	Store Getter
	Cache *redirectcache.Cache[cached]
	// Timeout bounds one DynamoDB lookup; past it the handler answers from a
	// stale cache entry or with a fast 503.
	Timeout     time.Duration
	EdgeTTL     int
	NewLinkTTL  int
	NotFoundTTL int
	GoneTTL     int
	Now         func() time.Time
	Log         *slog.Logger
	Metrics     *metrics.Emitter

	// CacheTTL is how long the in-process cache keeps an entry fresh, and
	// NegativeCacheTTL a remembered miss.
	CacheTTL         time.Duration
	NegativeCacheTTL time.Duration

	// Misses is the per-client budget of unknown codes (nil: none). A
	// miss is counted against the viewer address CloudFront forwards; a
	// client over its budget is answered 429, whatever it asks for, as
	// long as this process knows it to be over (see missbudget).
	Misses *missbudget.Budget
	// Counters keep the click limits and password attempts (decided.go);
	// nil answers 503 to the links that need them.
	Counters linkcounter.Store
	// Verify checks a protected link's password; nil answers 503 to them.
	Verify PasswordVerifier
	// Draw draws a weighted target, uniform in [0, 100).
	Draw func() int
	// Marks records, before an answer the edge may keep past its entry's
	// freshness leaves, until when the edge may hold it (edgemarks), so
	// that the management API invalidates only the links an edge may
	// hold. nil: no marks, and the API must invalidate every change.
	Marks *edgemarks.Marker

	load func(context.Context, string) (cached, error)
}

// Handle answers one API Gateway proxy event.
func (h *Handler) Handle(ctx context.Context, req events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	start := h.Now()
	resp := h.serve(ctx, &req, start)
	if req.HTTPMethod == http.MethodHead {
		resp.Body = ""
	}
	h.Metrics.Observe("RedirectLatency", metrics.Milliseconds, float64(h.Now().Sub(start).Microseconds())/1000)
	if err := h.Metrics.FlushEvery(10 * time.Second); err != nil {
		h.Log.WarnContext(ctx, "flush metrics", "error", err.Error())
	}
	return resp, nil
}

func (h *Handler) serve(ctx context.Context, req *events.APIGatewayProxyRequest, now time.Time) events.APIGatewayProxyResponse {
	if req.HTTPMethod != http.MethodGet && req.HTTPMethod != http.MethodHead && req.HTTPMethod != http.MethodPost {
		return methodNotAllowed() // POST: a protected link's form (link.UnlockPath)
	}
	code := req.PathParameters["code"]
	if code == "" {
		code = strings.TrimPrefix(strings.TrimPrefix(req.Path, link.UnlockPath("")), "/")
	}
	keys := link.LookupKeys(code)
	var client string
	if h.Misses != nil {
		client = missbudget.Client(apigw.Header(req, missbudget.ViewerAddressHeader))
		// Refused before any lookup: a client over its budget costs no
		// read, and cannot time a live code's answer against an unknown
		// one's.
		if v := h.Misses.Known(client, now); v.Refused {
			return h.refuse(v)
		}
	}
	c, err := h.resolve(ctx, code, keys, now)
	l := c.link
	switch {
	case errors.Is(err, link.ErrNotFound):
		h.Metrics.Add("NotFound", metrics.Count, 1)
		// A path no link can have was answered without a lookup and
		// tells a scanner nothing: only a looked-up miss is counted.
		if client != "" && len(keys) > 0 {
			v, err := h.Misses.Miss(ctx, client, now)
			if err != nil {
				h.Metrics.Add("MissBudgetErrors", metrics.Count, 1)
				h.Log.WarnContext(ctx, "count miss", "error", err.Error())
			}
			if v.Refused {
				return h.refuse(v)
			}
		}
		return h.page(http.StatusNotFound, errorTTL(min(h.NotFoundTTL, freshFor(c, h.NegativeCacheTTL, now))), notFoundPage)
	case err != nil:
		h.Metrics.Add("LookupErrors", metrics.Count, 1)
		h.Log.ErrorContext(ctx, "redirect lookup failed", "error", err.Error(), "request_id", req.RequestContext.RequestID)
		return events.APIGatewayProxyResponse{StatusCode: http.StatusServiceUnavailable,
			Headers: map[string]string{"Cache-Control": "no-store", "Retry-After": "1", "Content-Type": "text/plain; charset=utf-8"},
			Body:    "temporarily unavailable, try again\n"}
	}
	if client != "" {
		// Found, and never counted; but a client that went over its
		// budget during the lookup (another request of its, in this
		// process) would otherwise learn from the difference between
		// this answer and the 429s it gets for unknown codes.
		if v := h.Misses.Known(client, now); v.Refused {
			return h.refuse(v)
		}
	}
	if l.Resolve(now) == link.Gone {
		h.Metrics.Add("Gone", metrics.Count, 1)
		ttl := errorTTL(h.held(ctx, c, min(h.GoneTTL, freshFor(c, h.CacheTTL, now), untilRelease(l, now)), now))
		if l.ExpiredURL != "" && (l.Status == link.StatusActive || l.Status == link.StatusTombstone) && req.HTTPMethod != http.MethodPost {
			// Past its expiry, or its tombstone since (only an expired
			// link's keeps the URL): the same for every viewer.
			return expired(l, ttl)
		}
		return h.page(http.StatusGone, ttl, gonePage)
	}
	ttl := h.edgeTTL(l, now)
	ttl = min(ttl, freshFor(c, h.CacheTTL, now))
	if code != l.Code && code != l.Path() {
		// Another spelling of an alias is cached under its own path at the
		// edge, which an invalidation of the link's paths cannot reach.
		ttl = min(ttl, h.NewLinkTTL)
	}
	if l.Code != keys[0] {
		// A spelling of a generated code found the alias it lower-cases
		// to (PROMO25 for promo25). Clicks are keyed from the logged path
		// alone, which would put this one under PROMO25, a generated
		// code's key: send the visitor to the alias's own path instead,
		// whose redirect is the click. 303 is no link's redirect status,
		// so the click log never counts this answer.
		h.Metrics.Add("SpellingRedirects", metrics.Count, 1)
		return events.APIGatewayProxyResponse{
			StatusCode: http.StatusSeeOther,
			Headers:    map[string]string{"Location": "/" + l.Path(), "Cache-Control": sharedMaxAge(h.held(ctx, c, ttl, now))},
		}
	}
	if l.Decided() || req.HTTPMethod == http.MethodPost {
		return h.decide(ctx, req, l, now)
	}
	h.Metrics.Add("Redirects", metrics.Count, 1)
	return events.APIGatewayProxyResponse{
		StatusCode: l.RedirectStatus,
		Headers: withQueryChoice(map[string]string{
			// Links stored before URLs were percent-encoded on the way in
			// may hold raw characters a Location may not carry.
			"Location":      link.LocationURL(l.URL),
			"Cache-Control": sharedMaxAge(h.held(ctx, c, ttl, now)),
		}, l),
	}
}

// refuse answers a client over its budget of unknown codes: 429 with
// Retry-After until its window ends (RFC 6585), never stored by the edge or
// a browser. CloudFront does not cache a 429 (it is not among the 4xx
// codes it caches, and its error caching minimum TTL applies only to
// those:
// https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/HTTPStatusCodes.html);
// no-store says so to every cache besides, so another viewer asking for
// the same path never gets this client's refusal.
func (h *Handler) refuse(v missbudget.Verdict) events.APIGatewayProxyResponse {
	h.Metrics.Add("MissBudgetRefused", metrics.Count, 1)
	secs := int(math.Ceil(v.RetryAfter.Seconds()))
	return events.APIGatewayProxyResponse{
		StatusCode: http.StatusTooManyRequests,
		Headers: map[string]string{"Cache-Control": "no-store", "Retry-After": strconv.Itoa(max(secs, 1)),
			"Content-Type": "text/plain; charset=utf-8"},
		Body: "too many unknown short links asked for from your address; try again later\n",
	}
}

// freshFor bounds, in seconds, how long the edge may keep an answer built
// from c, whose entry in the in-process cache stays fresh for entryTTL
// (CacheTTL, or NegativeCacheTTL for a miss). docs/lifecycle.md ("How
// fast a change shows") has the whole argument; in short:
//
//   - Data whose read began less than config.FreshRead ago does not bound
//     the answer: a change it missed was saved after the read began, and
//     the API sends that change's invalidation no sooner than
//     config.MinInvalidationSettle after saving it, by which time this
//     answer is at the edge, so the invalidation removes it, however
//     early the invalidation completes.
//   - Older data (an entry that outlived FreshRead, or one served stale
//     while DynamoDB fails) may have missed a change whose invalidation
//     has already completed: the edge keeps the answer no longer than the
//     entry stays fresh, so it is gone within entryTTL of the read, as the
//     entry is. Nothing left of that: no-store.
//
// Negative answers follow the same rules: a 404 answered from a
// remembered miss lasts at the edge no longer than the miss is remembered.
func freshFor(c cached, entryTTL time.Duration, now time.Time) int {
	age := now.Sub(c.loadedAt)
	if age < config.FreshRead {
		return math.MaxInt
	}
	return max(int((entryTTL-age)/time.Second), 0)
}

// held returns the s-maxage an answer built from c may carry, given that
// the edge may keep it ttl seconds. An answer the edge would let go no
// later than c's entry stops being fresh (CacheTTL after its read began)
// needs nothing more: docs/lifecycle.md bounds it without an
// invalidation. A longer one (built from a fresh read) leaves with ttl
// only once the code's edge mark says the edge may hold it that long, so
// the management API invalidates it after a change; when the mark cannot
// be written (bounded by the store's timeout), it leaves with what is left
// of the entry's freshness instead, as an answer from the entry would.
func (h *Handler) held(ctx context.Context, c cached, ttl int, now time.Time) int {
	if h.Marks == nil || ttl <= 0 {
		return ttl
	}
	life := time.Duration(ttl) * time.Second
	entryLeft := h.CacheTTL - now.Sub(c.loadedAt)
	if life <= entryLeft {
		return ttl
	}
	if err := h.Marks.Hold(ctx, c.link.Code, c.link.UpdatedAt, now, life); err != nil {
		h.markRefused(ctx, c.link.Code, err)
		return max(min(ttl, int(entryLeft/time.Second)), 0)
	}
	return ttl
}

// untilRelease bounds a tombstone's 410 at the edge by its release: once
// reclaim deletes it (at ReclaimAfter or later) the code can be issued
// again, and create invalidates nothing, so a 410 the edge stored must be
// gone by then. It may reach the edge up to config.FreshRead after the
// read, hence the second taken off. Without a release time, GoneTTL
// alone bounds it.
func untilRelease(l link.Link, now time.Time) int {
	if l.ReclaimAfter.IsZero() {
		return math.MaxInt
	}
	return max(0, int(l.ReclaimAfter.Sub(now)/time.Second)-int(config.FreshRead/time.Second))
}

// errorTTL is the s-maxage for a 404 or 410 the edge may keep ttl
// seconds. CloudFront keeps a cached error at least its error caching
// minimum, whatever the s-maxage says, so an error that may not stay that
// long is not cached at all.
func errorTTL(ttl int) int {
	if ttl < EdgeErrorCachingMinTTL {
		return 0
	}
	return ttl
}

// resolve finds the link a path names, trying its keys (link.LookupKeys)
// in order: a path that cannot name a link is 404 without any lookup. The
// keys do not depend on the configured code length, so a code drawn under
// any length stays reachable after it changes. A code-shaped path is tried
// as typed first: nearly every one is a generated code, found in one read.
// An alias typed in other capitals costs a second read, and the miss of the
// first is then kept in the negative cache, so repeats cost none.
//
// A 404 is as old as the oldest lookup it was built from; one built from no
// lookup at all stays true, so it is as fresh as now.
func (h *Handler) resolve(ctx context.Context, code string, keys []string, now time.Time) (cached, error) {
	missed := cached{loadedAt: now}
	for _, key := range keys {
		c, err := h.lookup(ctx, key)
		if err == nil && !c.link.NamedBy(code) {
			err = link.ErrNotFound // a generated code under another spelling
		}
		if !errors.Is(err, link.ErrNotFound) {
			return c, err
		}
		if c.loadedAt.Before(missed.loadedAt) {
			missed.loadedAt = c.loadedAt
		}
	}
	return missed, link.ErrNotFound
}

// cached is a link as the in-process cache keeps it, with the time its
// read from DynamoDB began; a remembered miss keeps that time too.
type cached struct {
	link     link.Link
	loadedAt time.Time
}

func (h *Handler) lookup(ctx context.Context, key string) (cached, error) {
	c, res, err := h.Cache.GetKeyed(ctx, key, h.load)
	h.Metrics.Add(cacheMetric[res], metrics.Count, 1)
	return c, err
}

// loadLink is the cache's loader. New stores it as a method value once, not
// a closure per request, so a warm cache hit allocates nothing.
func (h *Handler) loadLink(ctx context.Context, key string) (cached, error) {
	start := h.Now()
	ctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	l, err := h.Store.Get(ctx, key)
	return cached{link: l, loadedAt: start}, err
}

var cacheMetric = map[redirectcache.Result]string{
	redirectcache.Hit:         "CacheHit",
	redirectcache.NegativeHit: "CacheNegativeHit",
	redirectcache.Miss:        "CacheMiss",
	redirectcache.Stale:       "CacheStale",
}

// edgeTTL lets CloudFront keep a redirect for EdgeTTL, never past the
// link's expiry, and briefly for a link created a moment ago.
func (h *Handler) edgeTTL(l link.Link, now time.Time) int {
	ttl := h.EdgeTTL
	if now.Sub(l.CreatedAt) < newLinkWindow {
		ttl = min(ttl, h.NewLinkTTL)
	}
	return min(ttl, int(l.ExpiresAt.Sub(now)/time.Second))
}

// sharedMaxAge is the Cache-Control for an answer the edge may keep ttl
// seconds. Browsers get max-age=0 so every click comes back to the edge
// and is counted there.
func sharedMaxAge(ttl int) string {
	if ttl <= 0 {
		return "no-store"
	}
	return "public, max-age=0, s-maxage=" + strconv.Itoa(ttl)
}

func (h *Handler) page(status, ttl int, body string) events.APIGatewayProxyResponse {
	return events.APIGatewayProxyResponse{
		StatusCode: status,
		Headers:    map[string]string{"Content-Type": "text/html; charset=utf-8", "Cache-Control": sharedMaxAge(ttl)},
		Body:       body,
	}
}

const gonePage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>Link expired</title></head>
<body><h1>This link has expired</h1><p>The short link you followed is no longer active.</p></body></html>
`

const notFoundPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>Link not found</title></head>
<body><h1>Link not found</h1><p>There is no short link at this address.</p></body></html>
`
