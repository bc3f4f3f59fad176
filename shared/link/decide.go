package link

import (
	"slices"
	"strconv"
)

// UnlockPrefix is the first segment of the path a protected link's
// password form posts to: /unlock/{code}. Not /{code} itself: CloudFront
// refuses POST on a cache behaviour whose target is an origin group ("The
// parameter AllowedMethods cannot include POST, PUT, PATCH, or DELETE for a
// cached behavior associated with an origin group"), and the redirects'
// behaviour fails over between Regions. A path of two segments is never a
// link's, so the prefix needs no reservation.
const UnlockPrefix = "unlock"

// UnlockPath is where the password form of the link at segment posts.
func UnlockPath(segment string) string { return "/" + UnlockPrefix + "/" + segment }

// Viewer is what the edge tells the origin about one viewer: the inputs of
// the rules (shared/viewer reads it from CloudFront's headers). An empty
// field is unknown and matches no condition on it.
type Viewer struct {
	// Country is an upper-case ISO 3166-1 alpha-2 code.
	Country string
	// Device is "mobile", "tablet", "desktop" or "smarttv".
	Device string
	// OS is "ios", "android", "windows", "macos" or "linux".
	OS string
	// Language is the primary subtag, lower case, of the viewer's most
	// preferred language in Accept-Language.
	Language string
}

// DestinationKind says which part of a link chose a click's destination.
type DestinationKind uint8

// Destination kinds.
const (
	// ToDefault is the link's own URL: no rule matched and it has no targets.
	ToDefault DestinationKind = iota
	// ToRule is Rules[Index].
	ToRule
	// ToTarget is Targets[Index], drawn by weight.
	ToTarget
	// ToExpired is ExpiredURL, after the link's expiry.
	ToExpired
)

// Destination is where one click goes and why.
type Destination struct {
	Kind DestinationKind
	// Index is the rule's or the target's position (0-based, as in the
	// API's field paths rules[i] and targets[j]); 0 otherwise.
	Index int
	URL   string
}

// Label names the destination in the click log and the stats breakdown:
// "rule-0", "target-1", "default" or "expired". Labels are MIME tokens
// (RFC 9110, section 5.6.2), so they ride in a media type parameter
// unquoted.
func (d Destination) Label() string {
	switch d.Kind {
	case ToRule:
		return "rule-" + strconv.Itoa(d.Index)
	case ToTarget:
		return "target-" + strconv.Itoa(d.Index)
	case ToExpired:
		return "expired"
	}
	return "default"
}

// ValidLabel reports whether s is a label some destination has, with an
// index below the model's limits: what the click pipeline accepts from a
// log record.
func ValidLabel(s string) bool {
	switch s {
	case "default", "expired":
		return true
	}
	for _, p := range []struct {
		prefix string
		limit  int
	}{{"rule-", MaxRules}, {"target-", MaxTargets}} {
		if len(s) > len(p.prefix) && s[:len(p.prefix)] == p.prefix {
			n, err := strconv.Atoi(s[len(p.prefix):])
			return err == nil && n >= 0 && n < p.limit && strconv.Itoa(n) == s[len(p.prefix):]
		}
	}
	return false
}

// Choose picks the destination of one click of a link whose URL is url:
// the first rule every condition of which v meets, else the target draw
// falls in, else url. draw is uniform in [0, 100): target j is chosen when
// draw falls in [w0+...+w(j-1), w0+...+wj), so each is chosen with
// probability weight/100. A draw past the weights (they sum to less than
// 100 only in a link that failed validation) goes to the last target.
func (f Features) Choose(url string, v Viewer, draw int) Destination {
	for i, r := range f.Rules {
		if r.Matches(v) {
			return Destination{Kind: ToRule, Index: i, URL: r.URL}
		}
	}
	if n := len(f.Targets); n > 0 {
		sum := 0
		for j, t := range f.Targets {
			sum += t.Weight
			if draw < sum {
				return Destination{Kind: ToTarget, Index: j, URL: t.URL}
			}
		}
		return Destination{Kind: ToTarget, Index: n - 1, URL: f.Targets[n-1].URL}
	}
	return Destination{Kind: ToDefault, URL: url}
}

// Matches reports whether v meets every condition r has: a condition left
// empty matches anyone, and any of a condition's values matches. A viewer
// the edge could not place (an empty field) meets no condition on it.
func (r Rule) Matches(v Viewer) bool {
	for _, c := range Conditions {
		values, got := *c.Values(&r), c.Of(v)
		if len(values) > 0 && (got == "" || !slices.Contains(values, got)) {
			return false
		}
	}
	return true
}
