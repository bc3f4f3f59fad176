package link

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// Limits every create request is checked against.
const (
	DefaultMaxURLBytes = 8 << 10
	DefaultTTL         = 5 * 365 * 24 * time.Hour
	MaxTTL             = 10 * 365 * 24 * time.Hour
	MinAliasLen        = 3
	MaxAliasLen        = 64
	DefaultRedirect    = 302
)

// The widest alias length range a deployment may configure (Rules'
// AliasMinLen and AliasMaxLen): YOURLS numbers its own keywords from one
// character up and keeps them in a varchar(100), so an import keeps them
// only with these bounds. The redirect and the click log accept every
// length in this range whatever the deployment allows today
// (IsAliasSyntax), so an alias created under a wider range still resolves
// after the range is narrowed.
const (
	AliasSyntaxMinLen = 1
	AliasSyntaxMaxLen = 100
)

// ReservedAliases are paths the service routes itself, or will. Compared
// lower-cased. Anything with a dot is refused by the alias syntax anyway,
// but the well-known files stay listed so the rule reads complete.
var ReservedAliases = []string{
	"v1", "v2", "api", "healthz", "health", "admin", "static", "assets",
	"_local", "favicon.ico", "robots.txt", "www", "docs", "openapi",
	"login", "logout", "signup", "account", "settings", "stats", "qr", "batch",
	"console",
}

// Rules are the operator's settings for validation.
type Rules struct {
	// MaxURLBytes caps the long URL; DefaultMaxURLBytes when zero.
	MaxURLBytes int
	// ShortDomains are the service's own hosts; links to them would loop.
	ShortDomains []string
	// DefaultTTL applies when the request names no expiry; link.DefaultTTL when zero.
	DefaultTTL time.Duration
	// AliasMinLen and AliasMaxLen bound a new custom alias's length, within
	// AliasSyntaxMinLen..AliasSyntaxMaxLen; MinAliasLen and MaxAliasLen
	// when zero.
	AliasMinLen int
	AliasMaxLen int
}

// AliasLengths are the bounds r puts on a new alias's length.
func (r Rules) AliasLengths() (minLen, maxLen int) {
	minLen, maxLen = r.AliasMinLen, r.AliasMaxLen
	if minLen <= 0 {
		minLen = MinAliasLen
	}
	if maxLen <= 0 {
		maxLen = MaxAliasLen
	}
	return minLen, maxLen
}

// CheckAliasLengths reports whether minLen..maxLen is a range a deployment
// may configure.
func CheckAliasLengths(minLen, maxLen int) error {
	if minLen < AliasSyntaxMinLen || maxLen > AliasSyntaxMaxLen || minLen > maxLen {
		return fmt.Errorf("alias lengths %d-%d: must lie within %d-%d, the least no more than the most", minLen, maxLen, AliasSyntaxMinLen, AliasSyntaxMaxLen)
	}
	return nil
}

// WithShortDomain is r with host added to its short domains, r's own
// list untouched.
func (r Rules) WithShortDomain(host string) Rules {
	r.ShortDomains = append(slices.Clip(r.ShortDomains), host)
	return r
}

// CreateRequest is what a caller asks for, already decoded from its wire form.
type CreateRequest struct {
	URL            string
	Alias          string
	ExpiresAt      *time.Time
	TTLSeconds     *int64
	RedirectStatus *int
	// Status is the status the link starts in; nil means active.
	Status *string
	// Features are the per-click features asked for; the zero value has none.
	Features FeaturesRequest
	// ImportedClicks is an imported click total (Link.ImportedClicks);
	// nil for none.
	ImportedClicks *int64
}

// Validated is a create request that passed every rule, normalised.
type Validated struct {
	URL string
	// Alias is the display form; AliasKey its lower-cased storage key. Both
	// empty when the caller wants a generated code.
	Alias          string
	AliasKey       string
	ExpiresAt      time.Time
	RedirectStatus int
	Status         Status
	Features       ValidatedFeatures
	ImportedClicks int64
}

// Validate checks req against the rules at time now and returns it
// normalised, or a *FieldError naming the first field that is wrong.
func (r Rules) Validate(req CreateRequest, now time.Time) (Validated, error) {
	var v Validated
	u, err := r.NormalizeURL(req.URL)
	if err != nil {
		return v, err
	}
	v.URL = u
	if req.Alias != "" {
		key, err := r.NormalizeAlias(req.Alias)
		if err != nil {
			return v, err
		}
		v.Alias, v.AliasKey = req.Alias, key
	}
	if v.ExpiresAt, err = r.Expiry(req.ExpiresAt, req.TTLSeconds, now); err != nil {
		return v, err
	}
	if v.RedirectStatus, err = RedirectStatus(req.RedirectStatus); err != nil {
		return v, err
	}
	if v.Status, err = SettableStatus(req.Status); err != nil {
		return v, err
	}
	if v.Features, err = r.ValidateFeatures(req.Features); err != nil {
		return v, err
	}
	if v.ImportedClicks, err = ImportedClicks(req.ImportedClicks); err != nil {
		return v, err
	}
	return v, nil
}

// MaxImportedClicks bounds an imported click total: far above any real
// link's, and exact in a JSON number (below 2^53).
const MaxImportedClicks int64 = 1_000_000_000_000

// ImportedClicks checks an imported click total; nil is none (0).
func ImportedClicks(n *int64) (int64, error) {
	if n == nil {
		return 0, nil
	}
	if *n < 0 || *n > MaxImportedClicks {
		return 0, invalid("imported_clicks", "must be a whole number from 0 to %d, got %d", MaxImportedClicks, *n)
	}
	return *n, nil
}

// NormalizeURL checks a long URL and returns the form that is stored and
// sent as Location, always a valid RFC 3986 URI: its scheme and host
// lower-cased, an internationalised host in its ASCII (punycode) form,
// non-ASCII and other characters a URI may not hold percent-encoded in
// the path, query and fragment, and a "%" that starts no %HH escape
// encoded as "%25". Invisible format characters (Unicode category Cf, the
// bidi controls among them) are refused, not encoded.
func (r Rules) NormalizeURL(raw string) (string, error) {
	max := r.MaxURLBytes
	if max <= 0 {
		max = DefaultMaxURLBytes
	}
	switch {
	case raw == "":
		return "", invalid("url", "is required")
	case len(raw) > max:
		return "", invalid("url", "is %d bytes, longer than the %d allowed", len(raw), max)
	case !utf8.ValidString(raw):
		return "", invalid("url", "is not valid UTF-8")
	}
	for _, c := range raw {
		if unicode.IsSpace(c) || unicode.IsControl(c) {
			return "", invalid("url", "contains whitespace or a control character (U+%04X)", c)
		}
		if unicode.Is(unicode.Cf, c) {
			// Format characters draw nothing, and the bidi controls among
			// them (U+202E RIGHT-TO-LEFT OVERRIDE) make a URL read as
			// another: "/\u202Egnp.exe" shows as "/exe.png". No real link
			// needs one raw; a percent-encoded one stays inert text.
			return "", invalid("url", "contains an invisible formatting character (U+%04X)", c)
		}
	}
	u, err := url.Parse(fixStrayPercents(raw))
	if err != nil {
		return "", invalid("url", "is not a valid URL")
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", invalid("url", "must be an absolute http or https URL")
	}
	if u.Opaque != "" {
		return "", invalid("url", "must be an absolute http or https URL")
	}
	if u.User != nil {
		// user:pass@host lets a link pose as one site while going to another.
		return "", invalid("url", "must not carry user information (user@host)")
	}
	host, err := normalizeHost(u.Hostname())
	if err != nil {
		return "", err
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return "", invalid("url", "has an invalid port %q", port)
		}
		u.Host = net.JoinHostPort(host, port)
	} else if strings.Contains(host, ":") {
		u.Host = "[" + host + "]"
	} else {
		u.Host = host
	}
	for _, own := range r.ShortDomains {
		// Compare in normalised form too, so a short domain configured in
		// Unicode matches the punycode host the URL normalises to.
		ownHost, err := normalizeHost(own)
		if err != nil {
			ownHost = strings.TrimSuffix(own, ".")
		}
		if own != "" && strings.EqualFold(ownHost, host) {
			return "", invalid("url", "points at this shortener's own domain %s, which would loop", host)
		}
	}
	// Percent-encoding and punycode can grow a URL: the limit holds for the
	// form that is stored and sent as Location, or a link we stored would
	// fail our own validation.
	out := u.Scheme + "://" + u.Host + uriTail(u)
	if len(out) > max {
		return "", invalid("url", "is %d bytes once normalised, longer than the %d allowed", len(out), max)
	}
	return out, nil
}

// uriTail is u's path, query and fragment as RFC 3986 allows them
// (https://www.rfc-editor.org/rfc/rfc3986#section-3.3): the caller's own
// escapes kept as sent (so "%2F" stays apart from "/"), and every other
// character a component may not hold, non-ASCII ones included,
// percent-encoded. net/url's String keeps a raw query (and "[", "]" in a
// path) as given, so it alone does not make a valid Location.
func uriTail(u *url.URL) string {
	path := u.RawPath
	if path == "" {
		path = u.EscapedPath()
	}
	var b strings.Builder
	b.WriteString(encodeComponent(path, pathChars))
	if u.ForceQuery || u.RawQuery != "" {
		b.WriteByte('?')
		b.WriteString(encodeComponent(u.RawQuery, queryChars))
	}
	if u.Fragment != "" || u.RawFragment != "" {
		b.WriteByte('#')
		b.WriteString(encodeComponent(u.EscapedFragment(), fragmentChars))
	}
	return b.String()
}

func normalizeHost(h string) (string, error) {
	h = strings.TrimSuffix(h, ".")
	if h == "" {
		return "", invalid("url", "must have a host")
	}
	if !utf8.ValidString(h) {
		// net/url percent-decodes the host: "%80" checked as valid UTF-8
		// text but decodes to a stray byte idna would punycode as U+FFFD.
		return "", invalid("url", "has a host that is not valid UTF-8")
	}
	if ip := net.ParseIP(h); ip != nil {
		return ip.String(), nil
	}
	ascii, err := idna.Lookup.ToASCII(h)
	// Mapping turns dots such as U+3002 into ".", so the trailing dot is
	// trimmed again here, and empty labels ("a..b", "..") refused: either
	// would let "sho.rt。" past the own-domain check or not re-validate.
	ascii = strings.TrimSuffix(ascii, ".")
	if err != nil || ascii == "" || slices.Contains(strings.Split(ascii, "."), "") {
		return "", invalid("url", "has an invalid host name %q", h)
	}
	return strings.ToLower(ascii), nil
}

// NormalizeAlias checks a custom alias against the default length bounds
// (MinAliasLen, MaxAliasLen) and returns its storage key: the alias
// lower-cased, since aliases are case-insensitive.
func NormalizeAlias(alias string) (string, error) {
	return Rules{}.NormalizeAlias(alias)
}

// NormalizeAlias checks a custom alias against r's length bounds
// (AliasLengths) and returns its storage key, as the package's
// NormalizeAlias does.
func (r Rules) NormalizeAlias(alias string) (string, error) {
	minLen, maxLen := r.AliasLengths()
	if n := len(alias); n < minLen || n > maxLen {
		return "", invalid("alias", "must be %d to %d characters, got %d", minLen, maxLen, n)
	}
	for i := 0; i < len(alias); i++ {
		if !isAliasByte(alias[i]) {
			return "", invalid("alias", "may contain only letters, digits, '_' and '-'")
		}
	}
	key := strings.ToLower(alias)
	if IsReserved(key) {
		return "", invalid("alias", "%q is reserved", alias)
	}
	return key, nil
}

// IsReserved reports whether a path segment, compared case-insensitively,
// is one the service routes itself. Generated codes are redrawn when they
// spell one, so no link is ever shadowed by a route.
func IsReserved(s string) bool {
	for _, r := range ReservedAliases {
		if strings.EqualFold(s, r) {
			return true
		}
	}
	return false
}

// IsAliasSyntax reports whether s could be a stored alias key or its display
// form, without consulting the reserved list: of any length a deployment
// may have allowed (AliasSyntaxMinLen..AliasSyntaxMaxLen), not only the
// range configured today.
func IsAliasSyntax(s string) bool {
	if len(s) < AliasSyntaxMinLen || len(s) > AliasSyntaxMaxLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isAliasByte(s[i]) {
			return false
		}
	}
	return true
}

func isAliasByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// ExpiryPrecision is the unit a link's expiry is kept in: DynamoDB's TTL
// attribute is a Number of epoch seconds
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/time-to-live-ttl-before-you-start.html),
// and the stored expiry is the one every reader enforces.
const ExpiryPrecision = time.Second

// Expiry turns the two ways of asking for an expiry into one instant: none
// means the default TTL; both at once is refused as ambiguous. The instant
// is the one that will be stored, cut to ExpiryPrecision, and it is that
// instant, not the fraction asked for, that must lie ahead of now: an
// expires_at a fraction of a second away would otherwise be stored as a
// second already past, a link dead on arrival.
func (r Rules) Expiry(at *time.Time, ttlSeconds *int64, now time.Time) (time.Time, error) {
	var exp time.Time
	switch {
	case at != nil && ttlSeconds != nil:
		return time.Time{}, invalid("expires_at", "give expires_at or ttl_seconds, not both")
	case ttlSeconds != nil:
		if *ttlSeconds <= 0 {
			return time.Time{}, invalid("ttl_seconds", "must be a positive number of seconds")
		}
		if *ttlSeconds > int64(MaxTTL/time.Second) {
			return time.Time{}, invalid("ttl_seconds", "must be at most %d (10 years)", int64(MaxTTL/time.Second))
		}
		exp = now.Add(time.Duration(*ttlSeconds) * time.Second)
	case at != nil:
		if at.Sub(now) > MaxTTL {
			return time.Time{}, invalid("expires_at", "must be at most 10 years ahead")
		}
		if exp = at.Truncate(ExpiryPrecision); !exp.After(now) {
			if at.After(now) {
				return time.Time{}, invalid("expires_at", "must be in the future; expiry is kept in whole seconds, and %s is %s", at.UTC().Format(time.RFC3339Nano), exp.UTC().Format(time.RFC3339))
			}
			return time.Time{}, invalid("expires_at", "must be in the future")
		}
	default:
		ttl := r.DefaultTTL
		if ttl <= 0 {
			ttl = DefaultTTL
		}
		exp = now.Add(ttl)
	}
	// A TTL of at least a second from now stays ahead of now when cut.
	return exp.Truncate(ExpiryPrecision).UTC(), nil
}

// RedirectStatus checks the requested redirect status; nil means 302, which
// keeps each click visible to the edge and the owner in control.
func RedirectStatus(s *int) (int, error) {
	if s == nil {
		return DefaultRedirect, nil
	}
	switch *s {
	case 301, 302, 307, 308:
		return *s, nil
	}
	return 0, invalid("redirect_status", "must be 301, 302, 307 or 308, got %d", *s)
}

// SettableStatus checks a status an owner asks a link to be in; nil means
// active. The other statuses are reached by delete or by expiry, never set.
func SettableStatus(s *string) (Status, error) {
	if s == nil {
		return StatusActive, nil
	}
	switch st := Status(*s); st {
	case StatusActive, StatusDisabled:
		return st, nil
	}
	return "", invalid("status", "must be %q or %q, got %q", StatusActive, StatusDisabled, *s)
}
