package link

// Redirect rules: the per-click features a link may carry. A link with any
// of them is decided at the origin for every click and never cached for
// one viewer and served to another (see Decided).

// Rule sends viewers that match every condition it has to URL. A condition
// left empty matches anyone; any value of a condition matches.
type Rule struct {
	URL string
	// Country holds ISO 3166-1 alpha-2 codes, upper case, as CloudFront
	// sends them in CloudFront-Viewer-Country.
	Country []string
	// Device holds "mobile", "tablet" or "desktop".
	Device []string
	// OS holds "ios", "android", "windows", "macos" or "linux".
	OS []string
	// Language holds primary language subtags, lower case ("de", "fr"),
	// matched against Accept-Language.
	Language []string
}

// Target is one arm of a weighted split: Weight in 1-100, all of a link's
// weights summing to 100.
type Target struct {
	URL    string
	Weight int
}

// Limits on the rule model.
const (
	MaxRules          = 20
	MinTargets        = 2
	MaxTargets        = 10
	MinPasswordLength = 8
	MaxPasswordLength = 128
)

// Features are the per-click features of a link. The zero value has none.
type Features struct {
	// PasswordHash is the encoded slow salted hash of the link's password,
	// empty when it has none. The password itself is never stored.
	PasswordHash string
	// MaxClicks is how many human clicks the link answers before it
	// answers 410 "click limit reached"; 0 means no limit.
	MaxClicks int64
	// Rules are tried in order; the first that matches wins.
	Rules []Rule
	// Targets split the clicks no rule matched by weight.
	Targets []Target
	// ExpiredURL, when set, is where visitors go after expiry instead of
	// the 410 page.
	ExpiredURL string
}

// Protected reports whether the link asks for a password.
func (f Features) Protected() bool { return f.PasswordHash != "" }

// Decided reports whether each click must be decided at the origin:
// a password, a click limit, rules or targets. Such a link's answers are
// never cached for one viewer and served to another.
func (f Features) Decided() bool {
	return f.PasswordHash != "" || f.MaxClicks > 0 || len(f.Rules) > 0 || len(f.Targets) > 0
}
