package localedge

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shortlink-dev/shortener/internal/cloudfrontjs"
	"github.com/shortlink-dev/shortener/shared/clicklog"
	"github.com/shortlink-dev/shortener/shared/edgespec"
	"github.com/shortlink-dev/shortener/shared/viewer"
)

// Sink receives the real-time log records, one at a time, from a single
// goroutine. It may block: the edge buffers in front of it.
type Sink interface {
	Write(ctx context.Context, r clicklog.Record)
}

// Defaults of Options.
const (
	DefaultMaxEntries   = 10_000
	DefaultMaxBodyBytes = 1 << 20
	DefaultLogBuffer    = 8192
	// DefaultDropReportEvery spaces the warnings about dropped log records.
	DefaultDropReportEvery = 10 * time.Second
	// DefaultPOP names the local edge location in X-Amz-Cf-Pop.
	DefaultPOP = "LCL1-P1"
	// DefaultInvalidationDelay is how long an invalidation takes to
	// complete. CloudFront's takes an unknown time, seconds to minutes
	// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/Invalidation.html),
	// and nothing may rely on it being quick; a few seconds here keeps
	// that visible without slowing a person trying the API down.
	DefaultInvalidationDelay = 5 * time.Second
)

// The x-edge-result-type values the local edge logs (the same as
// x-edge-response-result-type: the viewer never hangs up here early
// enough to tell them apart). ResultRedirect is CloudFront's own 301 to
// https for an http viewer.
const (
	ResultHit      = "Hit"
	ResultMiss     = "Miss"
	ResultError    = "Error"
	ResultRedirect = "Redirect"
)

// ViewerCountryHeader is the header CloudFront sets from the viewer's
// address; here a caller may send it to choose the logged c-country and
// the country the origin sees (else Options.Country, from
// SHORTENER_EDGE_COUNTRY).
const ViewerCountryHeader = "CloudFront-Viewer-Country"

// viewerCountryKey is ViewerCountryHeader as net/http files it in a
// request's header: read with the key as it is, the header costs no
// canonicalisation (which, for CloudFront's spelling, allocates) per
// request.
const viewerCountryKey = "Cloudfront-Viewer-Country"

// Options configure an Edge. Origin is required.
type Options struct {
	// Origin answers what the edge does not: the local gateway.
	Origin http.Handler
	// ConsoleOrigin plays the console's bucket (Bucket); required when
	// the distribution has the console's behaviours.
	ConsoleOrigin http.Handler
	// Distribution is the description the edge plays; nil is the
	// deployed default, edgespec.Distribution with the console when
	// ConsoleOrigin is set. New refuses one with a part it does not play
	// (ErrUnmodelled). Origin plays every API origin of it, an origin
	// group included (OriginGroup).
	Distribution *edgespec.Spec
	// Sink receives a record per request of the behaviours with a
	// real-time log; nil logs nothing.
	Sink Sink
	// MaxEntries caps the cached answers (DefaultMaxEntries).
	MaxEntries int
	// MaxBodyBytes is the largest body kept (DefaultMaxBodyBytes).
	MaxBodyBytes int
	// LogBuffer is how many records may wait for the sink before new ones
	// are dropped (DefaultLogBuffer).
	LogBuffer int
	// Country is c-country for a request without a CloudFront-Viewer-Country
	// header; empty logs "-".
	Country string
	// POP is the X-Amz-Cf-Pop value (DefaultPOP).
	POP string
	// Now reads the clock (time.Now).
	Now func() time.Time
	// RequestID makes x-edge-request-ids (56 characters of URL-safe
	// base64, as CloudFront's).
	RequestID func() string
	// Log gets a warning with the count of records dropped, at most once
	// every DropReportEvery while the edge runs and once Close has drained
	// the buffer; slog.Default() when nil.
	Log *slog.Logger
	// DropReportEvery is how often, at most, the edge logs the records it
	// dropped since its last such line (DefaultDropReportEvery).
	DropReportEvery time.Duration
	// RedirectOriginHeaders are the redirect origin's custom headers:
	// added to every request the redirect behaviour sends to Origin,
	// replacing a viewer's header of the same name, as CloudFront adds
	// origin custom headers (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/add-origin-custom-headers.html).
	// The local run puts the origin secret here (infra/edge).
	RedirectOriginHeaders map[string]string
	// InvalidationDelay is how long after Invalidate the paths leave the
	// cache, as a CloudFront invalidation completes some time after
	// CreateInvalidation has accepted it: DefaultInvalidationDelay when
	// zero, at once when negative.
	InvalidationDelay time.Duration
	// AfterFunc runs f once d has passed, for invalidations that complete
	// later; time.AfterFunc when nil. Tests pass a fake clock's.
	AfterFunc func(d time.Duration, f func())
	// KeyValueStore is the distribution's key value store, which the
	// functions associated with it read (edgespec.Options.VersionKeys);
	// New refuses a distribution with such a function without one. The
	// local run gives a KeyValueStore (NewKeyValueStore).
	KeyValueStore cloudfrontjs.KeyValueStore
}

// Stats count what the edge did since it started.
type Stats struct {
	Hits    int64 `json:"hits"`    // answered from the cache
	Misses  int64 `json:"misses"`  // redirect behaviour requests forwarded to the origin
	Purged  int64 `json:"purged"`  // cache entries dropped by invalidations
	Records int64 `json:"records"` // log records handed to the sink
	Dropped int64 `json:"dropped"` // log records dropped because the buffer was full
	Entries int   `json:"entries"` // answers cached now, expired ones included
	// Redirects are the links' redirects (301, 302, 307, 308) answered,
	// from the cache or the origin: the clicks the log should carry.
	Redirects int64 `json:"redirects"`
	// ToHTTPS are the edge's own 301s to https, answered to http viewers.
	ToHTTPS int64 `json:"to_https"`
	// InvalidationPaths are the paths invalidations asked for: what
	// CloudFront bills, $0.005 a path past the first 1,000 a month
	// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/PayingForInvalidation.html).
	InvalidationPaths int64 `json:"invalidation_paths"`
	// Invalidations are the invalidations asked for (CreateInvalidation
	// calls), whatever their paths.
	Invalidations int64 `json:"invalidations"`
	// StoreKeys are the keys the distribution's key value store holds,
	// when it is a KeyValueStore: link versions not swept yet.
	StoreKeys int `json:"store_keys"`
}

// Edge plays a CloudFront distribution in front of Origin. It is safe for
// concurrent use.
type Edge struct {
	origin http.Handler
	sink   Sink
	cache  *cache
	// behaviors are the description's in CloudFront's order, and
	// defaultBehavior the one for every other path.
	behaviors       []*behavior
	defaultBehavior *behavior
	maxBody         int
	country         string
	// via and pop are the Via and X-Amz-Cf-Pop headers every answer
	// shares: one-element slices, so an append to them copies.
	via       []string
	pop       []string
	now       func() time.Time
	requestID func() string
	log       *slog.Logger

	invalidationDelay time.Duration
	afterFunc         func(time.Duration, func())
	// store is the key value store, for its size in Stats.
	store cloudfrontjs.KeyValueStore

	// epoch counts invalidations: a fetch stores its answer only if none
	// happened while it was in flight.
	epoch atomic.Uint64

	// The records waiting for the sink, at most logBuffer: the handler
	// appends under logMu and the drain goroutine takes them all at once,
	// woken when the first one arrives and then after handoffDelay, so a
	// busy edge wakes it a few hundred times a second, not once a request.
	logMu     sync.Mutex
	waiting   []clicklog.Record
	logBuffer int
	arrived   chan struct{}
	closed    atomic.Bool
	stop      chan struct{}
	drained   chan struct{}
	reported  chan struct{} // closed when reportDrops has returned
	closeOnce sync.Once

	hits, misses, purged, logged, dropped atomic.Int64
	invalidationPaths                     atomic.Int64
	invalidations                         atomic.Int64
	redirects, toHTTPS                    atomic.Int64
}

// New builds an edge and, with a Sink, starts handing it records; Close
// stops that.
func New(o Options) (*Edge, error) {
	if o.Origin == nil {
		return nil, errors.New("localedge: Origin is required")
	}
	d := edgespec.Distribution(edgespec.Options{Console: o.ConsoleOrigin != nil})
	if o.Distribution != nil {
		d = *o.Distribution
	}
	behaviors, def, err := compile(d, o)
	if err != nil {
		return nil, err
	}
	e := &Edge{
		origin:          o.Origin,
		sink:            o.Sink,
		behaviors:       behaviors,
		defaultBehavior: def,
		maxBody:         o.MaxBodyBytes,
		country:         o.Country,
		now:             o.Now,
		requestID:       o.RequestID,
		log:             o.Log,
		afterFunc:       o.AfterFunc,
		store:           o.KeyValueStore,
		stop:            make(chan struct{}),
		drained:         make(chan struct{}),
		reported:        make(chan struct{}),
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = DefaultMaxEntries
	}
	e.cache = newCache(o.MaxEntries)
	if e.maxBody <= 0 {
		e.maxBody = DefaultMaxBodyBytes
	}
	if o.POP == "" {
		o.POP = DefaultPOP
	}
	e.pop = []string{o.POP}
	if e.now == nil {
		e.now = time.Now
	}
	if e.requestID == nil {
		e.requestID = NewRequestID
	}
	if e.log == nil {
		e.log = slog.Default()
	}
	switch {
	case o.InvalidationDelay == 0:
		e.invalidationDelay = DefaultInvalidationDelay
	case o.InvalidationDelay > 0:
		e.invalidationDelay = o.InvalidationDelay
	}
	if e.afterFunc == nil {
		e.afterFunc = func(d time.Duration, f func()) { time.AfterFunc(d, f) }
	}
	if o.LogBuffer <= 0 {
		o.LogBuffer = DefaultLogBuffer
	}
	// Via names the edge host as CloudFront's does: 1.1 <id>.cloudfront.net (CloudFront).
	var host [16]byte
	_, _ = crand.Read(host[:]) // crypto/rand.Read never fails
	e.via = []string{"1.1 " + hex.EncodeToString(host[:]) + ".cloudfront.net (CloudFront)"}
	if o.DropReportEvery <= 0 {
		o.DropReportEvery = DefaultDropReportEvery
	}
	if e.sink == nil {
		close(e.drained)
		close(e.reported)
	} else {
		e.logBuffer = o.LogBuffer
		e.arrived = make(chan struct{}, 1)
		go e.drain()
		go e.reportDrops(o.DropReportEvery)
	}
	return e, nil
}

// NewRequestID returns an x-edge-request-id: 40 random bytes in URL-safe
// base64, 56 characters, like "TXtvwX6JHbGoSjhQGuW6BumfNdwV5bEimn-AeUrlqOtwPRxz_lL3u4==".
//
// An id must be unique, not secret, so the bytes come from math/rand/v2's
// runtime generator (ChaCha8 per thread, seeded by the operating system,
// lock-free) rather than crypto/rand, and neither they nor the encoding
// leave the stack: one allocation, the string.
func NewRequestID() string {
	var b [40]byte
	for i := 0; i < len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], rand.Uint64())
	}
	var id [56]byte
	base64.URLEncoding.Encode(id[:], b[:])
	return string(id[:])
}

// ServeHTTP answers one viewer request.
func (e *Edge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := e.requestID()
	// Set by their canonical keys, as Set would file them, without Set's
	// per-request canonicalisation and slice.
	h := w.Header()
	h["Via"] = e.via
	h["X-Amz-Cf-Pop"] = e.pop
	h["X-Amz-Cf-Id"] = []string{id}
	path := r.URL.EscapedPath()
	if first, _ := firstSegment(path); first == "_local" || first == "healthz" {
		// The local run's own routes, no part of the distribution.
		e.origin.ServeHTTP(&resultWriter{ResponseWriter: w}, r)
		return
	}
	b := e.match(path)

	// answered is when the edge answered, for the log record: a hit reads
	// the clock once, for its lookup, its Age and its record.
	var status int
	var result string
	var answered time.Time
	plain := viewerUsedHTTP(r)
	switch {
	case plain && b.spec.ViewerProtocol == edgespec.RedirectToHTTPS:
		status, result = http.StatusMovedPermanently, ResultRedirect
		writeRedirectToHTTPS(w, r)
		answered = e.now()
		e.toHTTPS.Add(1)
	case plain && b.spec.ViewerProtocol == edgespec.HTTPSOnly:
		status, result = http.StatusForbidden, ResultError
		writeHTTPSOnly(w)
		answered = e.now()
	default:
		status, result, answered = e.serve(w, r, id, b)
	}
	if b.log {
		if result != ResultRedirect && isRedirect(status) {
			e.redirects.Add(1)
		}
		e.emit(r, path, status, result, id, headerValue(h, "Content-Type"), answered)
	}
}

// serve answers an https viewer's request on behaviour b: its
// viewer-request function, its allowed methods, then the cache or the
// origin.
func (e *Edge) serve(w http.ResponseWriter, r *http.Request, id string, b *behavior) (int, string, time.Time) {
	if b.function != nil {
		next, status, result, answered := e.runViewerRequest(w, r, id, b.function)
		if answered {
			return status, result, e.now()
		}
		r = next
	}
	if !b.spec.Allows(r.Method) {
		// CloudFront refuses a method the behaviour does not allow (on
		// the redirects' behaviour: any but GET and HEAD, since its
		// target is an origin group).
		writeMethodNotAllowed(w)
		return http.StatusForbidden, ResultError, e.now()
	}
	if b.response != nil {
		// The viewer-response function sees the answer from the cache or
		// the origin and decides the status the viewer gets.
		fw := &responseFunctionWriter{ResponseWriter: w, e: e, r: r, id: id, fn: b.response}
		status, result, answered := e.serveAnswer(fw, r, b)
		if fw.code != 0 && fw.code != status {
			status, result = fw.code, resultFor(fw.code, result == ResultHit)
		}
		return status, result, answered
	}
	return e.serveAnswer(w, r, b)
}

// serveAnswer answers r on b from the cache or the origin.
func (e *Edge) serveAnswer(w http.ResponseWriter, r *http.Request, b *behavior) (int, string, time.Time) {
	if b.caches && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		return e.serveCacheable(w, r, b.cacheKey(r), b)
	}
	rw := &resultWriter{ResponseWriter: w, behavior: b}
	if b.log {
		e.misses.Add(1)
	}
	b.origin.ServeHTTP(rw, e.originRequest(r, b))
	status := rw.status()
	return status, resultFor(status, false), e.now()
}

func isRedirect(status int) bool {
	return status == http.StatusMovedPermanently || status == http.StatusFound ||
		status == http.StatusTemporaryRedirect || status == http.StatusPermanentRedirect
}

// firstSegment returns path's first segment and whether more follows it.
func firstSegment(path string) (string, bool) {
	p := strings.TrimPrefix(path, "/")
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[:i], true
	}
	return p, false
}

// serveCacheable answers a GET or HEAD of a redirect path (its cache key,
// path) from the cache,
// or from the origin, keeping what CloudFront would keep. It returns the
// status, the x-edge-result-type and when the answer was ready.
func (e *Edge) serveCacheable(w http.ResponseWriter, r *http.Request, path string, b *behavior) (int, string, time.Time) {
	now := e.now()
	if ent := e.cache.get(path, now); ent != nil {
		e.hits.Add(1)
		h := w.Header()
		for _, f := range ent.header {
			h[f.key] = f.values // shared with every hit: see entry.header
		}
		if ent.hitContentLength(r.Method) {
			h["Content-Length"] = ent.contentLength
		}
		h["X-Cache"] = ent.xCache
		h["Age"] = ent.ageAt(now)
		w.WriteHeader(ent.status)
		if r.Method == http.MethodGet {
			_, _ = w.Write(ent.body) // the viewer went away; nothing to tell it
		}
		return ent.status, ent.result, now
	}

	if b.log {
		e.misses.Add(1)
	}
	epoch := e.epoch.Load()
	cw := &captureWriter{header: http.Header{}}
	b.origin.ServeHTTP(cw, e.originRequest(r, b))
	status := cw.status()
	stored := e.now()
	ttl := b.policy.TTL(status, cw.header)
	// The policy's headers are set on the kept answer once: they depend
	// on the origin's headers and the behaviour alone, and the path, the
	// cache key, always picks the same behaviour.
	b.applyResponseHeaders(cw.header)
	if r.Method == http.MethodGet && cw.body.Len() <= e.maxBody && ttl > 0 {
		ent := newEntry(path, status, cw.header, cw.body.Bytes(), stored, ttl)
		e.cache.put(ent, func() bool { return e.epoch.Load() == epoch })
	}
	h := w.Header()
	copyHeader(h, cw.header)
	result := resultFor(status, false)
	h.Set("X-Cache", result+" from cloudfront")
	w.WriteHeader(status)
	_, _ = w.Write(cw.body.Bytes())
	return status, result, stored
}

// originRequest is the request behaviour b sends its origin for the
// viewer's r, as its origin request policy shapes it: of the viewer's
// headers only those the policy lists, then the headers CloudFront adds
// itself when the policy names them (the device type headers derived from
// the User-Agent, CloudFront-Viewer-Country, CloudFront-Viewer-Address),
// or, under a managed all-viewer policy, every viewer header but Host,
// the viewer's own CloudFront-* headers and, where the behaviour caches,
// Authorization,
// then the origin's custom headers
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/adding-cloudfront-headers.html,
// https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/controlling-origin-requests.html).
// None of them is in a cache key: an answer that depends on them must be
// no-store. The query string goes along only when the policy forwards it.
// The Host stays the viewer's: the local origins serve one host, and the
// local gateway's answers name it.
func (e *Edge) originRequest(r *http.Request, b *behavior) *http.Request {
	out := r.Clone(r.Context())
	if !b.forwardQuery {
		out.URL.RawQuery, out.URL.ForceQuery = "", false
	}
	out.RequestURI = out.URL.RequestURI()
	out.Header = make(http.Header, len(b.forward)+len(viewer.DeviceHeaders)+len(b.originHeaders)+2)
	for _, k := range b.forward {
		if vs := r.Header[k]; len(vs) > 0 {
			out.Header[k] = vs
		}
	}
	// The cache key's headers go to the origin too
	// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/controlling-origin-requests.html).
	for _, k := range b.keyHeaders {
		if vs := r.Header[k]; len(vs) > 0 {
			out.Header[k] = vs
		}
	}
	if b.allViewer {
		for k, vs := range r.Header {
			ck := http.CanonicalHeaderKey(k)
			switch {
			case slices.Contains(b.except, ck),
				// CloudFront's headers are CloudFront's to write.
				strings.HasPrefix(ck, "Cloudfront-"),
				ck == "Cookie" && !b.cookies,
				ck == "Authorization" && !b.authorization:
				continue
			}
			out.Header[k] = vs
		}
	}
	if b.deviceHeaders {
		for _, kv := range viewer.FromUserAgent(headerValue(r.Header, "User-Agent")).Headers() {
			if slices.Contains(viewer.OriginHeaders, kv[0]) { // the policy's only
				out.Header.Set(kv[0], kv[1])
			}
		}
	}
	if b.countryHeader {
		if c := e.viewerCountry(r); c != "" {
			out.Header[viewerCountryKey] = []string{c}
		}
	}
	if b.addressHeader {
		if v := viewerAddress(r.RemoteAddr); v != "" {
			out.Header[viewerAddressKey] = []string{v}
		}
	}
	for k, vs := range b.originHeaders {
		out.Header[k] = vs
	}
	return out
}

// ViewerAddressHeader is the header CloudFront adds to an origin request
// whose origin request policy names it: the viewer's IP address and source
// port, "198.51.100.10:46532", an IPv6 address unbracketed,
// "2001:db8::1:46532". CloudFront writes it from the connection, so a
// viewer's own header of that name never reaches the origin
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/adding-cloudfront-headers.html).
// The redirect origin keys its budget of unknown codes on it
// (shared/missbudget).
const ViewerAddressHeader = "CloudFront-Viewer-Address"

// viewerAddressKey is ViewerAddressHeader as net/http files it.
const viewerAddressKey = "Cloudfront-Viewer-Address"

// viewerAddress is CloudFront-Viewer-Address for a connection from
// remoteAddr ("ip:port" or "[ipv6]:port", as net/http gives it).
func viewerAddress(remoteAddr string) string {
	host, port, err := net.SplitHostPort(remoteAddr)
	if err != nil || host == "" || port == "" {
		return ""
	}
	return host + ":" + port
}

// resultFor is x-edge-result-type: CloudFront reports every 4xx and 5xx
// as Error, whether or not it came from the cache.
func resultFor(status int, hit bool) string {
	switch {
	case status >= 400:
		return ResultError
	case hit:
		return ResultHit
	}
	return ResultMiss
}

func copyHeader(dst, src http.Header) {
	for k, vs := range src {
		dst[k] = append([]string(nil), vs...)
	}
}

// writeMethodNotAllowed is CloudFront's answer to a method the behaviour
// does not allow.
func writeMethodNotAllowed(w http.ResponseWriter) {
	writeRefusal(w, "This distribution is not configured to allow the HTTP request method that was used for this request. The distribution supports only cachable requests.")
}

// writeRefusal answers 403 with CloudFront's own error page, saying why.
func writeRefusal(w http.ResponseWriter, reason string) {
	body := `<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN" "http://www.w3.org/TR/html4/loose.dtd">
<HTML><HEAD><META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=iso-8859-1">
<TITLE>ERROR: The request could not be satisfied</TITLE>
</HEAD><BODY>
<H1>403 ERROR</H1>
<H2>The request could not be satisfied.</H2>
<HR noshade size="1px">
` + reason + `
</BODY></HTML>
`
	h := w.Header()
	h.Set("Content-Type", "text/html")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Server", "CloudFront")
	h.Set("X-Cache", ResultError+" from cloudfront")
	w.WriteHeader(http.StatusForbidden)
	_, _ = w.Write([]byte(body))
}

// Invalidate starts an invalidation of paths and returns, as
// CreateInvalidation does once CloudFront has accepted one: the paths
// leave the cache InvalidationDelay later, when it completes, and until
// then the edge keeps serving what it holds and stores what it fetches.
// Each path is as CreateInvalidation takes it, exact, or a prefix when it
// ends in "*". Its signature lets it subscribe to an edgecache.Recorder:
//
//	recorder.OnInvalidate(edge.Invalidate)
func (e *Edge) Invalidate(paths []string) {
	paths = slices.Clone(paths)
	e.invalidations.Add(1)
	e.invalidationPaths.Add(int64(len(paths)))
	if e.invalidationDelay <= 0 {
		e.purge(paths)
		return
	}
	e.afterFunc(e.invalidationDelay, func() { e.purge(paths) })
}

// purge completes an invalidation: it drops paths from the cache.
func (e *Edge) purge(paths []string) {
	e.epoch.Add(1) // before the purge: a fetch in flight must not store
	for _, p := range paths {
		if p == "" {
			continue
		}
		if !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
		var n int
		if prefix, ok := strings.CutSuffix(p, "*"); ok {
			n = e.cache.remove(prefix, true)
		} else {
			// An invalidation path names every cache key of the path,
			// whatever the headers in them.
			n = e.cache.remove(p, false) + e.cache.remove(p+keySeparator, true)
		}
		e.purged.Add(int64(n))
	}
}

// emit hands the request's log record to the sink's buffer without
// waiting. path is the request's escaped path, contentType the answer's
// (sc-content-type), answered when the edge answered.
func (e *Edge) emit(r *http.Request, path string, status int, result, id, contentType string, answered time.Time) {
	if e.sink == nil || e.closed.Load() {
		return
	}
	uri := path
	if r.URL.RawQuery != "" {
		uri += "?" + r.URL.RawQuery // cs-uri-stem holds the query in real-time logs
	}
	rec := clicklog.Record{
		Time:               answered.UTC().Truncate(time.Millisecond),
		ClientIP:           clientIP(r.RemoteAddr),
		Status:             status,
		Method:             r.Method,
		Host:               r.Host,
		URI:                uri,
		RequestID:          id,
		UserAgent:          headerValue(r.Header, "User-Agent"),
		Referer:            headerValue(r.Header, "Referer"),
		ResponseResultType: result,
		ResultType:         result,
		ContentType:        contentType,
		Country:            e.viewerCountry(r),
	}
	e.logMu.Lock()
	n := len(e.waiting)
	if n < e.logBuffer {
		e.waiting = append(e.waiting, rec)
	}
	e.logMu.Unlock()
	switch {
	case n >= e.logBuffer:
		e.dropped.Add(1)
	case n == 0:
		select {
		case e.arrived <- struct{}{}:
		default:
		}
	}
}

// viewerCountry is the two-letter code the caller sent, else the default.
func (e *Edge) viewerCountry(r *http.Request) string {
	c := headerValue(r.Header, viewerCountryKey)
	if len(c) == 2 && isUpper(c[0]) && isUpper(c[1]) {
		return c
	}
	return e.country
}

// headerValue is h.Get(key) for a key already in canonical form, as
// net/http files a request's headers, without Get's canonicalisation.
func headerValue(h http.Header, key string) string {
	if vs := h[key]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

// handoffDelay is how long the drain goroutine lets records gather once
// the first has arrived: short next to the sink's own batching (the
// Kinesis writer flushes every 100 ms), long next to a request.
const handoffDelay = 5 * time.Millisecond

func (e *Edge) drain() {
	defer close(e.drained)
	defer func() {
		if n := e.dropped.Load(); n > 0 {
			e.log.Warn("localedge: real-time log records dropped in all, the sink fell behind", "dropped_total", n)
		}
	}()
	ctx := context.Background()
	var batch []clicklog.Record
	// write hands the waiting records to the sink and reports whether
	// there were any.
	write := func() bool {
		e.logMu.Lock()
		batch, e.waiting = e.waiting, batch[:0]
		e.logMu.Unlock()
		for i := range batch {
			e.sink.Write(ctx, batch[i])
			e.logged.Add(1)
			batch[i] = clicklog.Record{} // let its strings go
		}
		return len(batch) > 0
	}
	delay := time.NewTimer(time.Hour)
	delay.Stop()
	for {
		select {
		case <-e.arrived:
			delay.Reset(handoffDelay)
			select {
			case <-delay.C:
			case <-e.stop:
			}
			write()
		case <-e.stop:
			for write() {
			}
			return
		}
	}
}

// Close stops logging: records still buffered are handed to the sink
// before it returns, unless ctx ends first. Requests answered after Close
// are not logged. Call it once the HTTP server has shut down, then flush
// the sink.
func (e *Edge) Close(ctx context.Context) error {
	e.closeOnce.Do(func() {
		e.closed.Store(true)
		close(e.stop)
	})
	<-e.reported // returns at once on stop
	select {
	case <-e.drained:
		return nil
	default:
	}
	select {
	case <-e.drained:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Stats returns the edge's counters.
func (e *Edge) Stats() Stats {
	return Stats{
		Hits:    e.hits.Load(),
		Misses:  e.misses.Load(),
		Purged:  e.purged.Load(),
		Records: e.logged.Load(),
		Dropped: e.dropped.Load(),
		Entries: e.cache.len(),

		Redirects: e.redirects.Load(),
		ToHTTPS:   e.toHTTPS.Load(),

		InvalidationPaths: e.invalidationPaths.Load(),
		Invalidations:     e.invalidations.Load(),
		StoreKeys:         e.storeKeys(),
	}
}

// storeKeys is how many keys the key value store holds (0 without one).
func (e *Edge) storeKeys() int {
	if l, ok := e.store.(interface{ Len() int }); ok {
		return l.Len()
	}
	return 0
}

// captureWriter keeps an origin answer so the edge can store it before it
// writes it out.
type captureWriter struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (c *captureWriter) Header() http.Header { return c.header }

func (c *captureWriter) WriteHeader(status int) {
	if c.code == 0 {
		c.code = status
	}
}

func (c *captureWriter) Write(b []byte) (int, error) {
	if c.code == 0 {
		c.code = http.StatusOK
	}
	return c.body.Write(b)
}

func (c *captureWriter) status() int {
	if c.code == 0 {
		return http.StatusOK
	}
	return c.code
}

// replay writes the answer c kept out to w: the origin group holds the
// first origin's answer until it knows whether to send it.
func (c *captureWriter) replay(w http.ResponseWriter) {
	h := w.Header()
	for k, v := range c.header {
		h[k] = v
	}
	w.WriteHeader(c.status())
	_, _ = w.Write(c.body.Bytes())
}

// resultWriter adds X-Cache and the behaviour's response headers policy
// (none when nil) to an answer passed through uncached.
type resultWriter struct {
	http.ResponseWriter
	behavior *behavior
	code     int
}

func (w *resultWriter) WriteHeader(status int) {
	if w.code == 0 {
		w.code = status
		w.Header().Set("X-Cache", resultFor(status, false)+" from cloudfront")
		if w.behavior != nil {
			w.behavior.applyResponseHeaders(w.Header())
		}
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *resultWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

func (w *resultWriter) status() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}

// Unwrap lets http.ResponseController reach the connection.
func (w *resultWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// clientIP is the viewer's address as c-ip logs it: the host of the
// connection's remote address, without the port.
func clientIP(remote string) string {
	if host, _, err := net.SplitHostPort(remote); err == nil {
		return host
	}
	return remote
}
