package clicklog

import (
	"strings"
	"time"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/shortcode"
)

// The bot agents: the one place that says which User-Agents are bots. Matching
// ignores ASCII case; the entries are lower-case. Each entry is as specific
// as the agent allows: a bare "bot" would also match phones such as the
// Cubot X19, and "teams" or "linkedin" the in-app browsers people click in.
// Treat both lists as read-only: the matchers are built from them once.
var (
	// BotAgents are found anywhere in the User-Agent: crawlers and link
	// previewers name themselves inside a browser-like string. None is
	// shorter than six bytes, which keeps the search fast.
	BotAgents = []string{
		// Link previews of chat and social apps.
		"slackbot", "slack-imgproxy", "twitterbot", "facebookexternalhit", "facebookcatalog",
		"meta-externalagent", "discordbot", "telegrambot", "whatsapp", "linkedinbot",
		"mastodon", "pleroma", "misskey", "skypeuripreview", "redditbot", "pinterestbot",
		"vkshare", "embedly", "iframely", "bitlybot",
		// Search engines and AI crawlers.
		"googlebot", "google-inspectiontool", "googleother", "adsbot-google", "mediapartners-google",
		"bingbot", "bingpreview", "applebot", "duckduckbot", "yandexbot", "baiduspider",
		"petalbot", "ahrefsbot", "semrushbot", "mj12bot", "dotbot", "bytespider",
		"gptbot", "chatgpt-user", "oai-searchbot", "claudebot", "claude-user", "perplexitybot",
		"ccbot/", "amazonbot",
		// Generic crawler words and headless browsers.
		"crawler", "spider", "headlesschrome", "phantomjs",
	}
	// BotAgentPrefixes are found at the start of the User-Agent: command-line
	// tools and HTTP libraries put their own name first ("curl/8.5.0",
	// "python-requests/2.31.0", "Python/3.12 aiohttp/3.9"). Nobody reads a
	// page through them.
	BotAgentPrefixes = []string{
		"curl/", "wget/", "python-", "python/", "go-http-client", "java/", "apache-httpclient",
		"okhttp", "libwww-perl", "node-fetch", "axios/", "postmanruntime", "insomnia/",
	}
)

// Click is a record that counts: a redirect the edge answered for a code.
type Click struct {
	// Code is the link's storage key.
	Code string
	Time time.Time
	Bot  bool
	// Country is an upper-case ISO 3166-1 alpha-2 code; empty when unknown.
	Country string
	// Referrer is the lower-case host of the Referer; empty when there was
	// none or it named no host.
	Referrer string
	// Destination is where a decided link sent the click
	// (link.Destination.Label: "rule-0", "target-1", "default",
	// "expired"); empty for a plain link's redirect.
	Destination string
}

// Classify says whether r is a click and, if so, whose: the link's storage
// key comes from the path alone (CodeKey), whatever code length the
// service was configured with when the link was made or is now.
//
// A decided link's redirect names its destination in its Content-Type
// (DestinationOf). That also marks the one 303 that is a click: the answer
// to a protected link's password form, a POST to its unlock path
// (link.UnlockPath); the 303 of another spelling of an alias carries no
// destination and is not.
func Classify(r *Record) (Click, bool) {
	dest := DestinationOf(r.ContentType)
	click := isRedirect(r.Status) && (r.Method == "GET" || r.Method == "HEAD") ||
		r.Status == 303 && r.Method == "POST" && dest != ""
	if !click || !servedLink(r) {
		return Click{}, false
	}
	seg := pathOf(r.URI)
	if r.Method == "POST" {
		// The password form posts to the link's unlock path.
		var unlock bool
		if seg, unlock = strings.CutPrefix(seg, link.UnlockPrefix+"/"); !unlock {
			return Click{}, false
		}
	}
	code, ok := CodeKey(seg)
	if !ok {
		return Click{}, false
	}
	return Click{
		Code:        code,
		Time:        r.Time,
		Bot:         r.Method == "HEAD" || IsBotAgent(r.UserAgent),
		Country:     country(r.Country),
		Referrer:    ReferrerHost(r.Referer),
		Destination: dest,
	}, true
}

// DestinationOf reads the destination parameter of a Content-Type
// ("text/plain; charset=utf-8; destination=rule-2" gives "rule-2"); ""
// when it has none or one no link can have (link.ValidLabel).
func DestinationOf(contentType string) string {
	const param = "destination="
	i := strings.Index(contentType, param)
	if i < 0 || i > 0 && contentType[i-1] != ' ' && contentType[i-1] != ';' {
		return ""
	}
	v := contentType[i+len(param):]
	if j := strings.IndexByte(v, ';'); j >= 0 {
		v = v[:j]
	}
	v = strings.TrimSpace(v)
	if !link.ValidLabel(v) {
		return ""
	}
	return v
}

// isRedirect reports whether status is one a link redirects with. 303 is
// not: the redirect function answers another spelling of an alias with a
// 303 to the alias's own path, and only the redirect there is a click.
func isRedirect(status int) bool {
	return status == 301 || status == 302 || status == 307 || status == 308
}

// The result types of an answer the edge served from its cache or got from
// the origin (CloudFront Developer Guide, "Standard logging reference",
// x-edge-result-type and x-edge-response-result-type:
// https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/standard-logs-reference.html;
// real-time logs use the same values). A redirect with one of them is the
// link's own. Every other value is left out: Redirect is CloudFront's own
// 301 to https for an http viewer (ViewerProtocolPolicy redirect-to-https),
// answered without asking the origin, for any path, so that the viewer's
// next request, over https, is the click; Error, LimitExceeded and
// CapacityExceeded are errors; a value CloudFront adds later is not known
// to carry the link's redirect.
const (
	resultHit             = "Hit"
	resultRefreshHit      = "RefreshHit"
	resultOriginShieldHit = "OriginShieldHit"
	resultMiss            = "Miss"
)

// servedLink reports whether the edge answered r with what the cache or the
// origin gave it, judged by x-edge-response-result-type: how the edge
// classified the answer before sending it. x-edge-result-type, how it
// classified the answer once sent, turns into Error when the viewer
// disconnects before the last byte of an answer that was otherwise a
// success (as the reference page above documents): the link's redirect
// cut short that way was still the click, CloudFront's own 301 cut short
// (response result type Redirect) still was not, and only the response
// result type tells the two apart. A record of the
// PreviousFields layout has only x-edge-result-type; there an Error is not
// counted, since it may be either.
func servedLink(r *Record) bool {
	t := r.ResponseResultType
	if t == "" {
		t = r.ResultType
	}
	switch t {
	case resultHit, resultRefreshHit, resultOriginShieldHit, resultMiss:
		return true
	}
	return false
}

// pathOf strips the query string real-time logs include in cs-uri-stem and
// the leading slash; what is left must be one path segment.
func pathOf(uri string) string {
	if i := strings.IndexByte(uri, '?'); i >= 0 {
		uri = uri[:i]
	}
	if len(uri) < 2 || uri[0] != '/' {
		return ""
	}
	return uri[1:]
}

// CodeKey returns the storage key of the link a path segment's redirect
// came from: the first of link.LookupKeys(segment), computed without
// allocating for the common case. A segment spelt like a generated code of
// any allowed length (shortcode.IsAnyCode) keys as typed, since generated
// codes are case-sensitive; any other is lower-cased, as aliases are
// stored. ok is false for a segment no link can have.
//
// The redirect function also finds an alias through a code-shaped spelling
// in other capitals (PROMO25 for promo25), a key the log cannot tell from
// the path. It never answers that spelling with the link's redirect: it
// sends the visitor to the alias's own path with a 303, which is no click,
// and the click is the redirect of that path, keyed right here.
func CodeKey(segment string) (string, bool) {
	if !link.IsAliasSyntax(segment) || isReserved(segment) {
		return "", false
	}
	if shortcode.IsAnyCode(segment) {
		return segment, true
	}
	return lowerASCII(segment), true
}

// reserved is link.ReservedAliases lower-cased, for a lookup instead of a
// case-insensitive comparison with each word on every record.
var reserved = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range link.ReservedAliases {
		m[strings.ToLower(w)] = true
	}
	return m
}()

// reservedStarts has, for each length, a bit per first letter (modulo 64)
// of the reserved words of that length: most segments are told apart
// without a lookup.
var reservedStarts = func() (t [link.AliasSyntaxMaxLen + 1]uint64) {
	for w := range reserved {
		if len(w) <= link.AliasSyntaxMaxLen {
			t[len(w)] |= 1 << (w[0] & 63)
		}
	}
	return t
}()

// isReserved is link.IsReserved for a segment of alias syntax, which is
// ASCII, so lower-casing it is all the case folding there is.
func isReserved(segment string) bool {
	if len(segment) == 0 || len(segment) > link.AliasSyntaxMaxLen || reservedStarts[len(segment)]&(1<<(lower[segment[0]]&63)) == 0 {
		return false
	}
	var buf [link.AliasSyntaxMaxLen]byte
	low := buf[:len(segment)]
	for i := 0; i < len(segment); i++ {
		c := segment[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	return reserved[string(low)]
}

// botPrefixes are BotAgentPrefixes by their first byte.
var botPrefixes = func() (t [256][]string) {
	for _, p := range BotAgentPrefixes {
		t[p[0]] = append(t[p[0]], p)
	}
	return t
}()

// IsBotAgent reports whether a User-Agent is a bot's: empty, starting with
// one of BotAgentPrefixes or containing one of BotAgents, in any case.
func IsBotAgent(ua string) bool {
	if ua == "" {
		return true
	}
	for _, p := range botPrefixes[lower[ua[0]]] {
		if hasPrefixFold(ua, p) {
			return true
		}
	}
	return botMatcher.match(ua)
}

// country returns an ISO 3166-1 alpha-2 code upper-cased, or "" for
// anything else (CloudFront logs "-" when it cannot tell).
func country(c string) string {
	if len(c) != 2 || !isLetter(c[0]) || !isLetter(c[1]) {
		return ""
	}
	if c[0] >= 'a' || c[1] >= 'a' {
		return strings.ToUpper(c)
	}
	return c
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// maxHostLen is DNS's limit on a host name.
const maxHostLen = 253

// ReferrerHost returns the host of a Referer URL, lower-cased, without
// port, user info or trailing dot; "" when the Referer names no host
// ("-", a bare path, an IP literal in brackets, or bytes no host name has).
// App referrers such as android-app://com.slack/ give the app's id.
func ReferrerHost(ref string) string {
	i := strings.Index(ref, "://")
	if i <= 0 {
		return ""
	}
	host := ref[i+3:]
	for j := 0; j < len(host); j++ {
		if c := host[j]; c == '/' || c == '?' || c == '#' {
			host = host[:j]
			break
		}
	}
	if j := strings.LastIndexByte(host, '@'); j >= 0 {
		host = host[j+1:]
	}
	if j := strings.IndexByte(host, ':'); j >= 0 {
		host = host[:j]
	}
	host = strings.TrimSuffix(host, ".")
	if host == "" || len(host) > maxHostLen {
		return ""
	}
	upper := false
	for k := 0; k < len(host); k++ {
		c := host[k]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '.', c == '-', c == '_':
		case c >= 'A' && c <= 'Z':
			upper = true
		default:
			return ""
		}
	}
	if upper {
		return strings.ToLower(host)
	}
	return host
}

// lowerASCII lower-cases s, allocating only if it has capitals.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}
