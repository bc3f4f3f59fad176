package link

import "slices"

// Redirect rules: the per-click features a link may carry. A link with any
// of them is decided at the origin for every click and never cached for
// one viewer and served to another (see Decided).

// Rule sends viewers that match every condition it has to URL. A condition
// left empty matches anyone; any value of a condition matches. Its json
// tags are the API's field names (docs/api.md); each condition is
// described once, in Conditions, which every mapping of a rule reads.
type Rule struct {
	URL string `json:"url"`
	// Country holds ISO 3166-1 alpha-2 codes, upper case, as CloudFront
	// sends them in CloudFront-Viewer-Country.
	Country []string `json:"country,omitempty"`
	// Device holds "mobile", "tablet" or "desktop".
	Device []string `json:"device,omitempty"`
	// OS holds "ios", "android", "windows", "macos" or "linux".
	OS []string `json:"os,omitempty"`
	// Language holds primary language subtags, lower case ("de", "fr"),
	// matched against Accept-Language.
	Language []string `json:"language,omitempty"`
}

// Condition is one kind of condition a rule may carry, described once:
// the name it has in the API's JSON and in the stored item, where a Rule
// keeps its values, which part of the Viewer it compares, and how a value
// is checked and put in its stored form.
type Condition struct {
	// Name is the condition's field in a rule, in the API's JSON (the
	// Rule field's json tag) and as the stored item's attribute.
	Name string
	// Values is where r keeps the condition's values.
	Values func(r *Rule) *[]string
	// Of is the viewer's value the condition is compared with; "" when
	// the edge could not tell, which matches no value.
	Of func(v Viewer) string
	// normalize returns raw in its stored form, or why it is refused.
	normalize func(raw string) (value, why string)
}

// Conditions are the conditions of a rule, in the order the API lists
// them.
var Conditions = []Condition{
	{Name: "country", Values: func(r *Rule) *[]string { return &r.Country }, Of: func(v Viewer) string { return v.Country },
		normalize: normalizeCountry},
	{Name: "device", Values: func(r *Rule) *[]string { return &r.Device }, Of: func(v Viewer) string { return v.Device },
		normalize: oneOf(Devices)},
	{Name: "os", Values: func(r *Rule) *[]string { return &r.OS }, Of: func(v Viewer) string { return v.OS },
		normalize: oneOf(OSes)},
	{Name: "language", Values: func(r *Rule) *[]string { return &r.Language }, Of: func(v Viewer) string { return v.Language },
		normalize: normalizeLanguage},
}

// Clone is r with its own copy of every condition's values.
func (r Rule) Clone() Rule {
	for _, c := range Conditions {
		if v := c.Values(&r); *v != nil {
			*v = slices.Clone(*v)
		}
	}
	return r
}

// Equal reports whether r and o are the same rule; nil and empty
// conditions are the same.
func (r Rule) Equal(o Rule) bool {
	if r.URL != o.URL {
		return false
	}
	for _, c := range Conditions {
		if !slices.Equal(*c.Values(&r), *c.Values(&o)) {
			return false
		}
	}
	return true
}

// Target is one arm of a weighted split: Weight in 1-100, all of a link's
// weights summing to 100. Its json tags are the API's field names.
type Target struct {
	URL    string `json:"url"`
	Weight int    `json:"weight"`
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
	// KeepQueryOut is forward_query false: the visitor's query is not
	// passed on to the destination. The zero value passes it on.
	KeepQueryOut bool
	// QueryPrecedence says whose value a parameter named both in the
	// visitor's query and in the destination's keeps; empty is
	// QueryDestination.
	QueryPrecedence QueryPrecedence
}

// QueryPrecedence is a link's query_precedence: which of a parameter's
// values goes on when the visitor's query and the destination's both name
// it. The visitor's other parameters are added either way.
type QueryPrecedence string

// The query precedences.
const (
	QueryDestination QueryPrecedence = "destination"
	QueryVisitor     QueryPrecedence = "visitor"
)

// QueryPrecedences are the values query_precedence takes.
var QueryPrecedences = []QueryPrecedence{QueryDestination, QueryVisitor}

// Protected reports whether the link asks for a password.
func (f Features) Protected() bool { return f.PasswordHash != "" }

// Decided reports whether each click must be decided at the origin:
// a password, a click limit, rules or targets. Such a link's answers are
// never cached for one viewer and served to another.
func (f Features) Decided() bool {
	return f.PasswordHash != "" || f.MaxClicks > 0 || len(f.Rules) > 0 || len(f.Targets) > 0
}

// Clone is f with its own copy of every list, so that changing one never
// changes the other.
func (f Features) Clone() Features {
	if f.Rules != nil {
		rules := make([]Rule, len(f.Rules))
		for i, r := range f.Rules {
			rules[i] = r.Clone()
		}
		f.Rules = rules
	}
	f.Targets = slices.Clone(f.Targets)
	return f
}

// Equal reports whether f and g are the same features; nil and empty
// lists are the same.
func (f Features) Equal(g Features) bool {
	return f.PasswordHash == g.PasswordHash && f.MaxClicks == g.MaxClicks && f.ExpiredURL == g.ExpiredURL &&
		f.KeepQueryOut == g.KeepQueryOut && f.QueryPrecedence == g.QueryPrecedence &&
		slices.Equal(f.Targets, g.Targets) && slices.EqualFunc(f.Rules, g.Rules, Rule.Equal)
}
