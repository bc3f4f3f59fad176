package localedge

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/shortlink-dev/shortener/internal/cloudfrontjs"
	"github.com/shortlink-dev/shortener/shared/clicklog"
	"github.com/shortlink-dev/shortener/shared/edgespec"
	"github.com/shortlink-dev/shortener/shared/viewer"
)

// ErrUnmodelled is the error New returns for a part of the distribution's
// description the local edge does not play: it refuses to start rather
// than answer differently from CloudFront.
var ErrUnmodelled = errors.New("localedge: not modelled")

// behavior is a cache behaviour of the description, ready to serve.
type behavior struct {
	spec edgespec.Behavior
	// origin answers the behaviour's origin requests.
	origin http.Handler
	// caches: the cache policy keeps answers (for GET; a HEAD is answered
	// from a kept GET); policy holds its TTL bounds.
	caches bool
	policy Policy
	// keyHeaders are the viewer headers (canonical keys) the cache key
	// holds besides the path: the cache policy's allow list.
	keyHeaders []string
	// The origin request policy: the viewer headers forwarded (canonical
	// keys), the CloudFront headers added, whether the query goes along.
	forward []string
	// allViewer: every viewer header goes but those in except (canonical
	// keys), the viewer's CloudFront-* ones and, unless cookies does,
	// Cookie; authorization: Authorization goes too (an all-viewer
	// managed policy on a behaviour that caches nothing).
	allViewer      bool
	except         []string
	cookies        bool
	authorization  bool
	deviceHeaders  bool
	countryHeader  bool
	addressHeader  bool
	forwardQuery   bool
	originHeaders  http.Header // the origin's custom headers
	responseHeader []edgespec.Header
	// function is the viewer-request CloudFront Function, run from the
	// JavaScript infra deploys (edgespec.FunctionSource, cloudfrontjs);
	// nil when the behaviour has none. response is its viewer-response
	// function, likewise.
	function *cloudfrontjs.Function
	response *cloudfrontjs.Function
	log      bool
}

// compile checks d against what the local edge plays and builds its
// behaviours: every unknown or unmodelled value is an error wrapping
// ErrUnmodelled, naming it.
func compile(d edgespec.Spec, o Options) ([]*behavior, *behavior, error) {
	if d.WebACL != nil {
		return nil, nil, fmt.Errorf("%w: the web ACL (its rate-based rule %q)", ErrUnmodelled, d.WebACL.RateRule)
	}
	if len(d.ErrorResponses) > 0 {
		return nil, nil, fmt.Errorf("%w: custom error responses %v (only CloudFront's %d s error caching minimum)",
			ErrUnmodelled, d.ErrorResponses, edgespec.DefaultErrorCachingMinTTLSeconds)
	}
	logs := false
	for _, b := range d.AllBehaviors() {
		logs = logs || b.RealtimeLog
	}
	if logs {
		if rl := d.RealtimeLog; rl.SamplingRate != 100 || !slices.Equal(rl.Fields, clicklog.Fields) {
			return nil, nil, fmt.Errorf("%w: real-time log sampling %d%% with fields %v (the records carry clicklog.Fields, every request)",
				ErrUnmodelled, rl.SamplingRate, rl.Fields)
		}
	}
	for _, g := range d.OriginGroups {
		if !slices.Equal(g.FailoverStatusCodes, FailoverStatusCodes) {
			return nil, nil, fmt.Errorf("%w: origin group %q fails over on %v (OriginGroup: %v)", ErrUnmodelled, g.ID, g.FailoverStatusCodes, FailoverStatusCodes)
		}
	}
	// The origin custom headers the local run gives values for must be
	// the redirect origins' own.
	var named []string
	for _, og := range d.Origins {
		if og.Kind == edgespec.RedirectOrigin {
			named = append(named, og.CustomHeaders...)
		}
	}
	for k := range o.RedirectOriginHeaders {
		if !slices.ContainsFunc(named, func(n string) bool { return strings.EqualFold(n, k) }) {
			return nil, nil, fmt.Errorf("%w: origin custom header %q is not in the description (%v)", ErrUnmodelled, k, named)
		}
	}
	var out []*behavior
	for _, sb := range d.Behaviors {
		if sb.PathPattern == "" || sb.PathPattern == edgespec.DefaultPathPattern {
			return nil, nil, fmt.Errorf("%w: behaviour with path pattern %q besides the default", ErrUnmodelled, sb.PathPattern)
		}
		b, err := compileBehavior(d, sb, o)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, b)
	}
	if d.Default.PathPattern != edgespec.DefaultPathPattern {
		return nil, nil, fmt.Errorf("%w: default behaviour with path pattern %q", ErrUnmodelled, d.Default.PathPattern)
	}
	def, err := compileBehavior(d, d.Default, o)
	if err != nil {
		return nil, nil, err
	}
	return out, def, nil
}

// compileBehavior turns one behaviour of the description into what the
// edge plays, or says what in it the edge does not model.
func compileBehavior(d edgespec.Spec, sb edgespec.Behavior, o Options) (*behavior, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: behaviour %q: %s", ErrUnmodelled, sb.PathPattern, fmt.Sprintf(format, args...))
	}
	if err := checkMethods(sb, fail); err != nil {
		return nil, err
	}
	b := &behavior{spec: sb, log: sb.RealtimeLog}
	if err := b.compileCachePolicy(sb.CachePolicy, fail); err != nil {
		return nil, err
	}
	// Compression is a transfer matter of the viewer connection: the
	// local edge always answers uncompressed, which every viewer takes.
	// CloudFront compresses only where the cache policy puts the encoding
	// in the key (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/ServingCompressedFiles.html).
	if rp := sb.OriginRequestPolicy; rp != nil {
		if err := b.compileOriginRequest(*rp, fail); err != nil {
			return nil, err
		}
	}
	if hp := sb.ResponseHeadersPolicy; hp != nil {
		for _, h := range hp.Headers() {
			h.Name = http.CanonicalHeaderKey(h.Name)
			b.responseHeader = append(b.responseHeader, h)
		}
	}
	if err := b.compileFunctions(sb, o, fail); err != nil {
		return nil, err
	}
	if err := b.compileOrigin(d, sb.TargetOrigin, o, fail); err != nil {
		return nil, err
	}
	return b, nil
}

// failFunc is a behaviour's error: what of it the edge does not model.
type failFunc func(format string, args ...any) error

// checkMethods checks the viewer protocol policy and the allowed and
// cached methods are ones the edge plays.
func checkMethods(sb edgespec.Behavior, fail failFunc) error {
	switch sb.ViewerProtocol {
	case edgespec.RedirectToHTTPS, edgespec.HTTPSOnly, edgespec.AllowAll:
	default:
		return fail("viewer protocol policy %q", sb.ViewerProtocol)
	}
	if !slices.Equal(sb.AllowedMethods, edgespec.MethodsGetHead) && !slices.Equal(sb.AllowedMethods, edgespec.MethodsGetHeadOptions) &&
		!slices.Equal(sb.AllowedMethods, edgespec.MethodsAll) {
		return fail("allowed methods %v", sb.AllowedMethods)
	}
	if !slices.Equal(sb.CachedMethods, edgespec.MethodsGetHead) {
		return fail("cached methods %v (GET and HEAD only)", sb.CachedMethods)
	}
	return nil
}

// compileCachePolicy sets whether the behaviour caches and for how long;
// the edge keys its cache on the path and the headers the policy allow
// lists (the version header of edgespec.VersionedRedirectCache).
func (b *behavior) compileCachePolicy(cp edgespec.CachePolicy, fail failFunc) error {
	if !cp.Caches() {
		return nil
	}
	if (cp.Headers.Behavior != edgespec.KeyNone && cp.Headers.Behavior != edgespec.KeyAllowList) ||
		cp.Cookies.Behavior != edgespec.KeyNone || cp.QueryStrings.Behavior != edgespec.KeyNone {
		return fail("cache policy %q keys on headers %v, cookies %v or query strings %v (the path and listed headers only)",
			cp.Name+cp.Managed, cp.Headers, cp.Cookies, cp.QueryStrings)
	}
	if cp.Headers.Behavior == edgespec.KeyAllowList {
		for _, h := range cp.Headers.Names {
			b.keyHeaders = append(b.keyHeaders, http.CanonicalHeaderKey(h))
		}
	}
	b.caches = true
	b.policy = Policy{
		MinTTL:             time.Duration(cp.MinTTLSeconds) * time.Second,
		DefaultTTL:         time.Duration(cp.DefaultTTLSeconds) * time.Second,
		MaxTTL:             time.Duration(cp.MaxTTLSeconds) * time.Second,
		ErrorCachingMinTTL: edgespec.DefaultErrorCachingMinTTLSeconds * time.Second,
	}
	return nil
}

// compileOriginRequest sets what of the viewer's request the behaviour
// forwards to its origin: viewer headers, the CloudFront headers the edge
// adds, and the query string (never on a cached behaviour, whose key is
// the path). Its cache policy is compiled first.
func (b *behavior) compileOriginRequest(rp edgespec.OriginRequestPolicy, fail failFunc) error {
	if rp.ListsAuthorization() {
		// CloudFront answers 400 to such a policy: Authorization reaches
		// an origin only through a cache policy or a managed all-viewer
		// policy (https://repost.aws/knowledge-center/cloudfront-authorization-header).
		return fail("origin request policy %q lists Authorization, which CloudFront refuses", rp.Name)
	}
	switch rp.Headers.Behavior {
	case edgespec.KeyAllExcept:
		if rp.Managed == "" {
			return fail("origin request header behaviour %q of our own", rp.Headers.Behavior)
		}
		b.allViewer = true
		for _, h := range rp.Headers.Names {
			b.except = append(b.except, http.CanonicalHeaderKey(h))
		}
		// The managed all-viewer policies pass Authorization; the edge
		// plays them only where nothing is cached, so a token never
		// chooses a shared cache entry.
		if b.caches {
			return fail("the managed policy %s on a behaviour that caches", rp.Managed)
		}
		b.authorization = true
	case edgespec.KeyNone:
	case edgespec.KeyAllowList:
		for _, h := range rp.Headers.Names {
			if strings.HasPrefix(strings.ToLower(h), "cloudfront-") {
				return fail("viewer header %q is CloudFront's own", h)
			}
			b.forward = append(b.forward, http.CanonicalHeaderKey(h))
		}
	default:
		return fail("origin request header behaviour %q", rp.Headers.Behavior)
	}
	for _, h := range rp.CloudFrontHeaders {
		switch {
		case strings.EqualFold(h, viewer.CountryHeader):
			b.countryHeader = true
		case strings.EqualFold(h, edgespec.ViewerAddressHeader):
			b.addressHeader = true
		case slices.ContainsFunc(viewer.DeviceHeaders, func(d string) bool { return strings.EqualFold(d, h) }):
			b.deviceHeaders = true
		default:
			return fail("CloudFront header %q", h)
		}
	}
	switch rp.Cookies.Behavior {
	case edgespec.KeyNone:
	case edgespec.KeyAll:
		if !b.allViewer {
			return fail("origin request cookies %v (only with a managed all-viewer policy)", rp.Cookies)
		}
		b.cookies = true
	default:
		return fail("origin request cookies %v", rp.Cookies)
	}
	switch rp.QueryStrings.Behavior {
	case edgespec.KeyNone:
	case edgespec.KeyAll:
		b.forwardQuery = true
	default:
		return fail("origin request query strings %v", rp.QueryStrings)
	}
	// A cached behaviour may forward the query (CloudFront sends the
	// origin request policy's values on a miss and keys its cache by the
	// cache policy's alone,
	// https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/controlling-origin-requests.html);
	// the cache here is keyed by the path, as the cache policies say.
	return nil
}

// compileFunctions compiles the behaviour's functions, at most one
// viewer-request and one viewer-response function, as CloudFront allows,
// from their sources in shared/edgespec, those associated with the key
// value store reading Options.KeyValueStore.
func (b *behavior) compileFunctions(sb edgespec.Behavior, o Options, fail failFunc) error {
	for _, f := range sb.Functions {
		var slot **cloudfrontjs.Function
		switch f.EventType {
		case edgespec.ViewerRequest:
			slot = &b.function
		case edgespec.ViewerResponse:
			slot = &b.response
		default:
			return fail("function %q on %q (viewer-request and viewer-response only)", f.Function, f.EventType)
		}
		if *slot != nil {
			return fail("two %s functions", f.EventType)
		}
		src, err := edgespec.FunctionSource(f.Function)
		if err != nil {
			return fail("function %q (no JavaScript for it in shared/edgespec)", f.Function)
		}
		var opts []cloudfrontjs.Option
		if f.KeyValueStore {
			if o.KeyValueStore == nil {
				return fail("function %q reads the key value store and there is no Options.KeyValueStore", f.Function)
			}
			opts = append(opts, cloudfrontjs.WithKeyValueStore(o.KeyValueStore))
		}
		fn, err := cloudfrontjs.Compile(f.Function, src, opts...)
		if err != nil {
			return fmt.Errorf("localedge: behaviour %q: %w", sb.PathPattern, err)
		}
		*slot = fn
	}
	return nil
}

// compileOrigin sets the origin the behaviour's target plays on, with the
// custom headers a redirect origin is sent.
func (b *behavior) compileOrigin(d edgespec.Spec, target string, o Options, fail failFunc) error {
	kind, err := targetKind(d, target)
	if err != nil {
		return fail("%v", err)
	}
	switch kind {
	case edgespec.RedirectOrigin:
		b.origin = o.Origin
		if len(o.RedirectOriginHeaders) > 0 {
			b.originHeaders = http.Header{}
			for k, v := range o.RedirectOriginHeaders {
				b.originHeaders.Set(k, v)
			}
		}
	case edgespec.ManagementOrigin:
		b.origin = o.Origin
	case edgespec.ConsoleBucket:
		if o.ConsoleOrigin == nil {
			return fail("the console's bucket and no Options.ConsoleOrigin")
		}
		b.origin = o.ConsoleOrigin
	default:
		return fail("origin kind %q", kind)
	}
	return nil
}

// targetKind is the kind of origin id names, through an origin group (whose
// members must be of one kind: Options.Origin plays the group).
func targetKind(d edgespec.Spec, id string) (edgespec.OriginKind, error) {
	if g, ok := d.Group(id); ok {
		p, okp := d.Origin(g.Primary)
		f, okf := d.Origin(g.Fallback)
		if !okp || !okf || p.Kind != f.Kind {
			return "", fmt.Errorf("origin group %q of %q and %q", id, g.Primary, g.Fallback)
		}
		return p.Kind, nil
	}
	og, ok := d.Origin(id)
	if !ok {
		return "", fmt.Errorf("no origin %q", id)
	}
	return og.Kind, nil
}

// keySeparator ends the path in a cache key that holds headers too: no
// path has it.
const keySeparator = "\x00"

// cacheKey is r's cache key on b: its path and, when the cache policy
// lists headers, their values in the policy's order (the values a
// viewer-request function left, as CloudFront computes the key after the
// function). A path-only key is the path itself.
func (b *behavior) cacheKey(r *http.Request) string {
	key := r.URL.EscapedPath()
	if len(b.keyHeaders) == 0 {
		return key
	}
	var sb strings.Builder
	sb.WriteString(key)
	for _, h := range b.keyHeaders {
		sb.WriteString(keySeparator)
		sb.WriteString(strings.Join(r.Header[h], ","))
	}
	return sb.String()
}

// match is the behaviour CloudFront picks for path: the first whose
// pattern matches, else the default.
func (e *Edge) match(path string) *behavior {
	for _, b := range e.behaviors {
		if edgespec.MatchPattern(b.spec.PathPattern, path) {
			return b
		}
	}
	return e.defaultBehavior
}

// applyResponseHeaders sets the behaviour's response headers policy on an
// answer's header h, as CloudFront does: a header with Override replaces
// the origin's; one without is added only when the origin sent none of
// that name
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/understanding-response-headers-policies.html).
func (b *behavior) applyResponseHeaders(h http.Header) {
	for _, rh := range b.responseHeader {
		if _, sent := h[rh.Name]; sent && !rh.Override {
			continue
		}
		h[rh.Name] = []string{rh.Value}
	}
}
