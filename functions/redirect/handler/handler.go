// Package handler answers GET and HEAD /{code}: the redirect. It refuses
// impossible codes before any lookup, serves from an in-process cache in
// front of DynamoDB, enforces expiry itself (DynamoDB TTL deletes days
// late), and tells CloudFront how long it may keep each answer. The Lambda
// in functions/redirect and the local gateway run this same handler.
package handler

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/metrics"
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

	// CacheTTL is how long the in-process cache keeps an entry fresh.
	CacheTTL time.Duration

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
	if req.HTTPMethod != http.MethodGet && req.HTTPMethod != http.MethodHead {
		return events.APIGatewayProxyResponse{StatusCode: http.StatusMethodNotAllowed,
			Headers: map[string]string{"Allow": "GET, HEAD", "Cache-Control": "no-store"}}
	}
	code := req.PathParameters["code"]
	if code == "" {
		code = strings.TrimPrefix(req.Path, "/")
	}
	keys := link.LookupKeys(code)
	c, err := h.resolve(ctx, code, keys)
	l := c.link
	switch {
	case errors.Is(err, link.ErrNotFound):
		h.Metrics.Add("NotFound", metrics.Count, 1)
		return h.page(http.StatusNotFound, h.NotFoundTTL, notFoundPage)
	case err != nil:
		h.Metrics.Add("LookupErrors", metrics.Count, 1)
		h.Log.ErrorContext(ctx, "redirect lookup failed", "error", err.Error(), "request_id", req.RequestContext.RequestID)
		return events.APIGatewayProxyResponse{StatusCode: http.StatusServiceUnavailable,
			Headers: map[string]string{"Cache-Control": "no-store", "Retry-After": "1", "Content-Type": "text/plain; charset=utf-8"},
			Body:    "temporarily unavailable, try again\n"}
	}
	if l.Resolve(now) == link.Gone {
		h.Metrics.Add("Gone", metrics.Count, 1)
		return h.page(http.StatusGone, min(h.GoneTTL, h.freshFor(c, now)), gonePage)
	}
	ttl := h.edgeTTL(l, now)
	ttl = min(ttl, h.freshFor(c, now))
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
			Headers:    map[string]string{"Location": "/" + l.Path(), "Cache-Control": sharedMaxAge(ttl)},
		}
	}
	h.Metrics.Add("Redirects", metrics.Count, 1)
	return events.APIGatewayProxyResponse{
		StatusCode: l.RedirectStatus,
		Headers: map[string]string{
			// Links stored before URLs were percent-encoded on the way in
			// may hold raw characters a Location may not carry.
			"Location":      link.LocationURL(l.URL),
			"Cache-Control": sharedMaxAge(ttl),
		},
	}
}

// freshFor bounds how long the edge may keep an answer built from c. An
// answer read from DynamoDB just now may stay the full edge TTL: a later
// change invalidates the edge. One built from this process's cache may
// stay only as long as the cache entry itself: otherwise an invalidation
// that lands while the entry is still fresh would be refilled from it and
// then kept for a day.
func (h *Handler) freshFor(c cached, now time.Time) int {
	age := now.Sub(c.loadedAt)
	if age < time.Second {
		return h.EdgeTTL
	}
	return max(int((h.CacheTTL-age)/time.Second), 1)
}

// resolve finds the link a path names, trying its keys (link.LookupKeys)
// in order: a path that cannot name a link is 404 without any lookup. The
// keys do not depend on the configured code length, so a code drawn under
// any length stays reachable after it changes. A code-shaped path is tried
// as typed first: nearly every one is a generated code, found in one read.
// An alias typed in other capitals costs a second read, and the miss of the
// first is then kept in the negative cache, so repeats cost none.
func (h *Handler) resolve(ctx context.Context, code string, keys []string) (cached, error) {
	for _, key := range keys {
		c, err := h.lookup(ctx, key)
		if err == nil && !c.link.NamedBy(code) {
			continue // a generated code under another spelling
		}
		if !errors.Is(err, link.ErrNotFound) {
			return c, err
		}
	}
	return cached{}, link.ErrNotFound
}

// cached is a link as the in-process cache keeps it, with the time it was
// read from DynamoDB.
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
