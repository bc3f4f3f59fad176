// Package localedge plays CloudFront in front of the local gateway. It is
// built from the same description of the distribution as infra/edge and
// infra/webconsole (shared/edgespec, Options.Distribution): each request
// goes to the first behaviour whose path pattern matches it, else the
// default, and gets that behaviour's viewer protocol policy, its
// viewer-request function, its allowed methods (CloudFront's 403 for any
// other), its cache policy, its viewer-response function, its origin request policy, its response
// headers policy and, where the behaviour has one, its real-time log. New
// refuses a description with anything it does not play (ErrUnmodelled):
// a web ACL, a key beyond the path, cookies to the origin (but through a
// managed all-viewer policy), a function it
// does not know or on another event, custom error responses. It is an
// http.Handler wrapping the origins (the localgw.Gateway for the APIs,
// Bucket for the console); the handlers behind it never know.
//
// # Authorization
//
// As CloudFront, it refuses an origin request policy of our own that lists
// Authorization (CloudFront answers such a policy 400:
// https://repost.aws/knowledge-center/cloudfront-authorization-header). The
// managed AllViewerExceptHostHeader policy, on the /v1 behaviour that caches
// nothing, passes every viewer header but Host, Authorization with them
// (a signed-in user's token); a caching behaviour never sends it to its
// origin. A viewer's own CloudFront-* headers never reach an origin: only
// the ones the edge writes do.
//
// # Response headers
//
// A behaviour's response headers policy is applied as CloudFront applies
// it, to the answers from the origin and from the cache: a header with
// override replaces the origin's, one without is added only when the
// origin sent none of that name
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/understanding-response-headers-policies.html).
// The answers CloudFront makes itself (its 403s, its 301 to https) and a
// function's own answers are left as they are. Compress is accepted and
// answers stay uncompressed: an encoding of the bytes on the wire, which
// every viewer takes either way.
//
// # Caching
//
// A GET of a path of a caching behaviour (the default one, the redirects;
// the console's assets) is looked up by its path alone: the query string, headers and cookies are
// not in the key, as the RedirectCache policy (no headers, cookies or query
// strings) has it in AWS. The origin gets, as the RedirectRequests origin
// request policy has it, only the headers the redirect rules read: the
// device type headers (derived here from the User-Agent),
// CloudFront-Viewer-Country, Accept-Language, User-Agent and Content-Type,
// and CloudFront-Viewer-Address for the miss budget
// (see Edge.originRequest); an answer that depends on them is no-store.
// How long an answer is kept follows
// CloudFront's rules
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/Expiration.html)
// under the deployed policy's
// bounds (Min 0 s, Default 60 s, Max one year):
//
//   - 200, 203, 300, 301, 302, 303, 307 and 308: for s-maxage, else
//     max-age, else the default TTL, clamped to [Min, Max]; no-store,
//     no-cache and private keep it out (Min is 0). 307 and 308 are kept
//     only when the origin sends Cache-Control.
//   - 404, 410, 414 and 501: for the larger of s-maxage/max-age and the
//     error caching minimum (10 s); no-store, no-cache and private keep
//     them out.
//   - 500, 502, 503 and 504: the same, and those directives are ignored,
//     as CloudFront ignores them for these codes.
//   - 400, 403, 405, 412 and 415: only when the origin sends Cache-Control.
//   - anything else: not kept.
//
// A redirect path with a "%" in it is answered 400 before the cache by the
// deployed canonical-path function, its JavaScript run by
// internal/cloudfrontjs (functions.go; with WAF the web ACL's rule gives
// the same answer): the origin would decode it to a code whose
// invalidations never reach the spelling's cache entry. Every function of
// the description runs that way, the console's rewrite too, from the
// JavaScript in shared/edgespec/functions that infra deploys; a function
// with no source there is refused (ErrUnmodelled).
//
// The redirects' viewer-response function (query-forward) runs, as on
// CloudFront, on every answer from the cache or the origin below 400,
// after the cache: it merges the visitor's query into a redirect's
// Location, so the key stays the path and one cached redirect serves every
// query. It sees the headers a function may see and its headers replace
// the answer's, X-Cache and X-Amz-Cf-Id kept; a failure is CloudFront's
// 503 or 502 (functions.go, responseFunctionWriter).
//
// Every request the redirect behaviour sends to the origin carries the
// redirect origin's custom headers (Options.RedirectOriginHeaders), as
// CloudFront adds them: the origin secret without which the gateway's
// redirect route refuses to answer (infra/edge, localgw.Authorizer). It
// also carries CloudFront-Viewer-Address, the viewer's address and port
// taken from the connection (a viewer's own header of that name is
// replaced), which the redirect keys its budget of unknown codes on: run
// clients from other loopback addresses (127.0.0.2, ...) to be other
// viewers.
//
// A HEAD is answered from a cached GET; a HEAD that misses is forwarded as
// a HEAD and its answer, which has no body, is not kept. Other methods on
// the redirect behaviour get CloudFront's 403, since the distribution
// allows only GET and HEAD there; the password forms' behaviour
// (/unlock/*) passes every method to the origin, uncached.
//
// Invalidations complete some time after they are made, as CloudFront's
// do (seconds to minutes, with no figure promised:
// https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/Invalidation.html):
// Invalidate takes the paths an edgecache.Recorder hands its subscribers,
// exact paths and prefixes ending in "*", and drops them from the cache
// Options.InvalidationDelay later (DefaultInvalidationDelay, 5 s), so a
// design that counts on a quick purge fails here as it would on AWS. An
// origin fetch that overlaps the purge does not store its answer.
//
// The cache holds at most MaxEntries answers, least recently used first
// out, in shards with a lock each: a hit holds one shard's lock for a map
// lookup and a list move, never across the origin call.
//
// # Viewer protocol
//
// The redirect behaviour's ViewerProtocolPolicy is redirect-to-https and
// the /v1/* and /unlock/* behaviours' https-only (shared/edgespec). The local run listens on
// plain http in place of the distribution's https endpoint, so a request
// counts as an http viewer's only when its X-Forwarded-Proto header
// (ViewerProtocolHeader) says http. Such a request gets what CloudFront
// answers: on the redirect behaviour, for any path and method, a 301 to the
// same URL over https, from the edge itself (no origin, no cache), logged
// with result type Redirect, X-Cache "Redirect from cloudfront"; on /v1/*,
// a 403. The viewer's next request, over https, is the click; the clicks
// function ignores the Redirect records (CloudFront API Reference,
// CacheBehavior, ViewerProtocolPolicy; CloudFront Developer Guide,
// "Standard logging reference", x-edge-result-type).
//
// # Responses
//
// Every answer carries CloudFront's headers: X-Cache ("Hit from
// cloudfront", "Miss from cloudfront", or "Error from cloudfront" for any
// 4xx or 5xx, cached or not, as CloudFront reports them), Via, X-Amz-Cf-Pop,
// X-Amz-Cf-Id (the edge request id) and, on a hit, Age.
//
// # Versioned cache keys
//
// A distribution with edgespec.Options.VersionKeys keys the redirect cache
// on the path and the version header the version-key function sets from
// the distribution's key value store (Options.KeyValueStore): a
// KeyValueStore here, whose API side (what shared/edgeversion writes
// through and the reclaim run's sweep lists and deletes from, with the
// API's ETag rules) sees a PutKey or UpdateKeys at once and whose edge
// side (what the function reads) sees it its propagation delay later
// (DefaultPropagationDelay, 5 s, a stand-in for a time AWS does not
// document). A cache key is the
// path followed by the policy's header values; an invalidation of a path
// still removes every key of it.
//
// # Real-time log
//
// Every request of a behaviour with the real-time log (the redirects and
// /unlock/*), hit, miss or error, becomes a clicklog.Record, as the
// real-time log configuration attached to it writes one; /v1/* and the
// console have no log configuration in AWS and none here. The record holds the fields of clicklog.Fields, c-ip
// (the connection's address, as CloudFront logs it, which the clicks function only hashes) among
// them; c-country comes from a CloudFront-Viewer-Country
// header when the caller sends one (a test hook: in AWS CloudFront sets it
// from the address), else from Options.Country. Records wait in a buffer
// of Options.LogBuffer and are handed to the Sink by one goroutine, a few
// milliseconds' worth at a time (so a busy edge does not wake it once a
// request), and a slow sink never delays a redirect: when the buffer is
// full the record is dropped and counted, as CloudFront's best-effort
// delivery may lose lines. Drops are not silent: a warning with their
// count at most every Options.DropReportEvery (10 s) while the edge runs,
// one with the total at Close, and Stats (Dropped, next to Redirects, the
// links' redirects the log should have carried) for the local run to
// expose.
package localedge
