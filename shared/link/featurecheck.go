package link

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/language"
)

// Values a rule's device and os conditions may hold.
var (
	Devices = []string{"mobile", "tablet", "desktop"}
	OSes    = []string{"ios", "android", "windows", "macos", "linux"}
)

// MaxConditionValues caps the values of one condition of a rule. Country,
// device and os can hold no more distinct valid values anyway; the cap
// bounds language, and with MaxRules the size of the stored item.
const MaxConditionValues = 250

// FeaturesRequest is the per-click part of a create request. A nil
// pointer or an empty list means the link does not have the feature.
type FeaturesRequest struct {
	// Password is the plain password; it is checked here and hashed by
	// the caller (shared/password), never stored.
	Password   *string
	MaxClicks  *int64
	Rules      []Rule
	Targets    []Target
	ExpiredURL string
	// ForwardQuery nil is the default, true.
	ForwardQuery *bool
	// QueryPrecedence "" is the default, QueryDestination.
	QueryPrecedence string
}

// ValidatedFeatures is a FeaturesRequest that passed every check,
// normalised: Features without the hash (PasswordHash is empty) and the
// password to hash, "" for none.
type ValidatedFeatures struct {
	Features
	Password string
}

// ValidateFeatures checks f, returning a *FieldError naming the first
// field that is wrong, in the order the fields are documented.
func (r Rules) ValidateFeatures(f FeaturesRequest) (ValidatedFeatures, error) {
	var v ValidatedFeatures
	var err error
	if f.Password != nil {
		if err = CheckPassword(*f.Password); err != nil {
			return v, err
		}
		v.Password = *f.Password
	}
	if f.MaxClicks != nil {
		if err = CheckMaxClicks(*f.MaxClicks); err != nil {
			return v, err
		}
		v.MaxClicks = *f.MaxClicks
	}
	if v.Rules, err = r.NormalizeRules(f.Rules); err != nil {
		return v, err
	}
	if v.Targets, err = r.NormalizeTargets(f.Targets); err != nil {
		return v, err
	}
	if f.ExpiredURL != "" {
		if v.ExpiredURL, err = r.NormalizeURLField(f.ExpiredURL, "expired_url"); err != nil {
			return v, err
		}
	}
	v.KeepQueryOut = f.ForwardQuery != nil && !*f.ForwardQuery
	if v.QueryPrecedence, err = CheckQueryPrecedence(f.QueryPrecedence); err != nil {
		return v, err
	}
	return v, nil
}

// CheckQueryPrecedence checks a query_precedence and returns it as the
// link keeps it: empty for the default, QueryDestination.
func CheckQueryPrecedence(p string) (QueryPrecedence, error) {
	switch QueryPrecedence(p) {
	case "", QueryDestination:
		return "", nil
	case QueryVisitor:
		return QueryVisitor, nil
	}
	return "", invalid("query_precedence", "must be %q or %q, got %q", QueryDestination, QueryVisitor, p)
}

// CheckPassword checks a link password: MinPasswordLength to
// MaxPasswordLength characters (Unicode code points), valid UTF-8, no
// control characters, which no visitor could type into the form.
func CheckPassword(pw string) error {
	if !utf8.ValidString(pw) {
		return invalid("password", "is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(pw); n < MinPasswordLength || n > MaxPasswordLength {
		return invalid("password", "must be %d to %d characters, got %d", MinPasswordLength, MaxPasswordLength, n)
	}
	for _, c := range pw {
		if unicode.IsControl(c) {
			return invalid("password", "must not contain control characters (U+%04X)", c)
		}
	}
	return nil
}

// CheckMaxClicks checks a click limit: at least 1 (0 would be a link that
// never answers; no limit is the field's absence).
func CheckMaxClicks(n int64) error {
	if n < 1 {
		return invalid("max_clicks", "must be at least 1, got %d", n)
	}
	return nil
}

// NormalizeURLField is NormalizeURL for a URL that sits in field rather
// than in url: the same checks and form, the error naming field.
func (r Rules) NormalizeURLField(raw, field string) (string, error) {
	u, err := r.NormalizeURL(raw)
	var fe *FieldError
	if errors.As(err, &fe) {
		return "", &FieldError{Field: field, Reason: fe.Reason}
	}
	return u, err
}

// NormalizeRules checks a link's rules and returns them normalised: URLs
// as NormalizeURL stores them, countries upper-cased, devices, systems
// and languages lower-cased (so "de" and "DE" are both accepted for
// either). nil or empty means no rules, and comes back nil.
func (r Rules) NormalizeRules(rules []Rule) ([]Rule, error) {
	if len(rules) == 0 {
		return nil, nil
	}
	if len(rules) > MaxRules {
		return nil, invalid("rules", "must hold at most %d rules, got %d", MaxRules, len(rules))
	}
	out := make([]Rule, len(rules))
	for i, rule := range rules {
		at := fmt.Sprintf("rules[%d]", i)
		var err error
		if out[i].URL, err = r.NormalizeURLField(rule.URL, at+".url"); err != nil {
			return nil, err
		}
		for _, c := range Conditions {
			if *c.Values(&out[i]), err = condition(*c.Values(&rule), at+"."+c.Name, c.normalize); err != nil {
				return nil, err
			}
		}
		if !out[i].hasCondition() {
			return nil, invalid(at, "has no condition; give at least one of %s (a rule that matches everyone would hide the link's url)", conditionNames())
		}
	}
	return out, nil
}

func (r Rule) hasCondition() bool {
	for _, c := range Conditions {
		if len(*c.Values(&r)) > 0 {
			return true
		}
	}
	return false
}

// conditionNames lists the conditions' names for a message: "a, b and c".
func conditionNames() string {
	names := make([]string, len(Conditions))
	for i, c := range Conditions {
		names[i] = c.Name
	}
	last := len(names) - 1
	if last < 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:last], ", ") + " and " + names[last]
}

// condition normalises each value of one condition with norm, refusing
// bad and repeated values; empty comes back nil.
func condition(values []string, field string, norm func(string) (string, string)) ([]string, error) {
	if len(values) == 0 {
		return nil, nil
	}
	if len(values) > MaxConditionValues {
		return nil, invalid(field, "must hold at most %d values, got %d", MaxConditionValues, len(values))
	}
	out := make([]string, 0, len(values))
	for j, raw := range values {
		at := fmt.Sprintf("%s[%d]", field, j)
		v, why := norm(raw)
		if why != "" {
			return nil, invalid(at, "%s", why)
		}
		if slices.Contains(out, v) {
			return nil, invalid(at, "%q is listed twice", v)
		}
		out = append(out, v)
	}
	return out, nil
}

// oneOf normalises a value that must be one of allowed, in any case.
func oneOf(allowed []string) func(string) (string, string) {
	return func(raw string) (string, string) {
		v := strings.ToLower(raw)
		if !slices.Contains(allowed, v) {
			return "", fmt.Sprintf("must be one of %s, got %q", strings.Join(allowed, ", "), clip(raw))
		}
		return v, ""
	}
}

// normalizeCountry upper-cases an ISO 3166-1 alpha-2 code and checks it
// is assigned: CloudFront-Viewer-Country carries the viewer's country in
// that form
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/adding-cloudfront-headers.html#cloudfront-headers-viewer-location),
// so anything else ("UK", "EU", "DEU") could never match.
func normalizeCountry(raw string) (string, string) {
	v := strings.ToUpper(raw)
	if len(v) != 2 || !strings.Contains(countryCodes, " "+v+" ") {
		hint := ""
		if v == "UK" {
			hint = " (the United Kingdom is GB)"
		}
		return "", fmt.Sprintf("must be an ISO 3166-1 alpha-2 country code such as DE, got %q%s", clip(raw), hint)
	}
	return v, ""
}

// normalizeLanguage turns a language into the primary subtag
// Accept-Language is matched on: an ISO 639 code of two or three letters
// that the BCP 47 registry knows, lower-cased, in its shortest form ("deu"
// becomes "de"). A full tag such as "de-AT" is refused rather than cut,
// since only the primary subtag is compared.
func normalizeLanguage(raw string) (string, string) {
	v := strings.ToLower(raw)
	bad := fmt.Sprintf("must be a primary language subtag such as de or fr (ISO 639), got %q", clip(raw))
	if len(v) < 2 || len(v) > 3 || strings.IndexFunc(v, func(c rune) bool { return c < 'a' || c > 'z' }) >= 0 {
		return "", bad
	}
	b, err := language.ParseBase(v)
	if err != nil || b.String() == "und" {
		return "", bad
	}
	return b.String(), ""
}

// NormalizeTargets checks a weighted split: MinTargets to MaxTargets
// targets, each URL valid and each weight 1-100, the weights summing to
// 100. nil or empty means no split, and comes back nil.
func (r Rules) NormalizeTargets(targets []Target) ([]Target, error) {
	if len(targets) == 0 {
		return nil, nil
	}
	if len(targets) < MinTargets || len(targets) > MaxTargets {
		return nil, invalid("targets", "must hold %d to %d targets, got %d", MinTargets, MaxTargets, len(targets))
	}
	out := make([]Target, len(targets))
	sum := 0
	for i, t := range targets {
		at := fmt.Sprintf("targets[%d]", i)
		u, err := r.NormalizeURLField(t.URL, at+".url")
		if err != nil {
			return nil, err
		}
		if t.Weight < 1 || t.Weight > 100 {
			return nil, invalid(at+".weight", "must be 1 to 100, got %d", t.Weight)
		}
		out[i] = Target{URL: u, Weight: t.Weight}
		sum += t.Weight
	}
	if sum != 100 {
		return nil, invalid("targets", "weights must sum to 100, got %d", sum)
	}
	return out, nil
}

// clip shortens a refused value for an error message.
func clip(s string) string {
	if len(s) <= 32 {
		return s
	}
	cut := 32
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// countryCodes are the ISO 3166-1 alpha-2 codes officially assigned
// (https://www.iso.org/iso-3166-country-codes.html, the Online Browsing
// Platform's list), space-separated with a space at either end, plus XK,
// the user-assigned code geolocation databases use for Kosovo.
const countryCodes = " " +
	"AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ " +
	"BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ " +
	"CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ " +
	"DE DJ DK DM DO DZ " +
	"EC EE EG EH ER ES ET " +
	"FI FJ FK FM FO FR " +
	"GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY " +
	"HK HM HN HR HT HU " +
	"ID IE IL IM IN IO IQ IR IS IT " +
	"JE JM JO JP " +
	"KE KG KH KI KM KN KP KR KW KY KZ " +
	"LA LB LC LI LK LR LS LT LU LV LY " +
	"MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ " +
	"NA NC NE NF NG NI NL NO NP NR NU NZ " +
	"OM " +
	"PA PE PF PG PH PK PL PM PN PR PS PT PW PY " +
	"QA " +
	"RE RO RS RU RW " +
	"SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ " +
	"TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ " +
	"UA UG UM US UY UZ " +
	"VA VC VE VG VI VN VU " +
	"WF WS " +
	"YE YT " +
	"ZA ZM ZW " +
	"XK "
