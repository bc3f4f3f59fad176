package viewer

import (
	"strconv"
	"strings"

	"github.com/shortlink-dev/shortener/shared/link"
)

// The headers CloudFront adds to an origin request when the origin request
// policy names them
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/adding-cloudfront-headers.html).
// CloudFront derives the device headers from the User-Agent and sends each
// as "true" or "false"; the country from the viewer's address.
const (
	CountryHeader = "CloudFront-Viewer-Country"
	MobileHeader  = "CloudFront-Is-Mobile-Viewer"
	TabletHeader  = "CloudFront-Is-Tablet-Viewer"
	DesktopHeader = "CloudFront-Is-Desktop-Viewer"
	SmartTVHeader = "CloudFront-Is-SmartTV-Viewer"
	IOSHeader     = "CloudFront-Is-IOS-Viewer"
	AndroidHeader = "CloudFront-Is-Android-Viewer"
)

// DeviceHeaders are CloudFront's device type headers, in the order the
// page above lists them.
var DeviceHeaders = []string{AndroidHeader, DesktopHeader, IOSHeader, MobileHeader, SmartTVHeader, TabletHeader}

// OriginHeaders are exactly the viewer headers the redirect origin reads:
// the ones the rules need (country, device and OS headers,
// Accept-Language) and User-Agent, from which the origin tells bots and
// link previewers (which never use up a click limit) from people, and
// Windows, macOS and Linux apart (CloudFront has headers for iOS and
// Android only). The edge forwards these and no others; none of them is in
// the cache key, so links without rules keep one cache entry per path.
// CloudFront-Is-SmartTV-Viewer is left out: no rule names smart TVs, and
// without it a smart TV (never desktop, mobile or tablet) matches no
// device condition all the same; with it the redirect behaviour's origin
// request policy (these, Content-Type and CloudFront-Viewer-Address) would
// pass CloudFront's quota of 10 headers per origin request policy
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/cloudfront-limits.html).
// Treat it as read-only.
var OriginHeaders = []string{
	CountryHeader,
	AndroidHeader, DesktopHeader, IOSHeader, MobileHeader, TabletHeader,
	"Accept-Language",
	"User-Agent",
}

// FromHeaders reads the viewer from a request's headers; get looks a
// header up by name, ignoring case (API Gateway's HTTP APIs lower-case
// header names).
func FromHeaders(get func(name string) string) link.Viewer {
	var v link.Viewer
	if c := get(CountryHeader); len(c) == 2 && isUpper(c[0]) && isUpper(c[1]) {
		v.Country = c
	}
	is := func(h string) bool { return strings.EqualFold(get(h), "true") }
	switch {
	case is(TabletHeader): // first: a tablet may be marked mobile too
		v.Device = "tablet"
	case is(MobileHeader):
		v.Device = "mobile"
	case is(SmartTVHeader):
		v.Device = "smarttv"
	case is(DesktopHeader):
		v.Device = "desktop"
	}
	switch {
	case is(IOSHeader):
		v.OS = "ios"
	case is(AndroidHeader):
		v.OS = "android"
	default:
		v.OS = desktopOS(get("User-Agent"))
	}
	v.Language = PrimaryLanguage(get("Accept-Language"))
	return v
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

// desktopOS tells Windows, macOS and Linux apart by the tokens browsers
// put in their User-Agent; "" when it is none of them. iOS and Android
// come from CloudFront's headers.
func desktopOS(ua string) string {
	switch {
	case strings.Contains(ua, "Windows NT"):
		return "windows"
	case strings.Contains(ua, "Macintosh"):
		return "macos"
	case strings.Contains(ua, "Linux") && !strings.Contains(ua, "Android"):
		return "linux"
	}
	return ""
}

// PrimaryLanguage is the primary subtag, lower case, of the language
// Accept-Language (RFC 9110, section 12.5.4) prefers most: the highest
// q-value, the first listed among equals; "" for none, "*" or garbage. A
// language with q=0 is refused, never chosen.
func PrimaryLanguage(header string) string {
	best, bestQ := "", 0
	for part := range strings.SplitSeq(header, ",") {
		tag, params, _ := strings.Cut(part, ";")
		tag = strings.TrimSpace(tag)
		q := 1000
		if params != "" {
			var ok bool
			if q, ok = qValue(params); !ok {
				continue
			}
		}
		primary, _, _ := strings.Cut(tag, "-")
		if !isAlpha(primary) || len(primary) < 2 || len(primary) > 8 || q <= bestQ {
			continue
		}
		best, bestQ = strings.ToLower(primary), q
	}
	return best
}

// qValue reads ";q=0.8" (whitespace allowed around it) as thousandths.
func qValue(params string) (int, bool) {
	name, val, ok := strings.Cut(strings.TrimSpace(params), "=")
	if !ok || !strings.EqualFold(strings.TrimSpace(name), "q") {
		return 0, false
	}
	val = strings.TrimSpace(val)
	whole, frac, _ := strings.Cut(val, ".")
	if (whole != "0" && whole != "1") || len(frac) > 3 {
		return 0, false
	}
	for len(frac) < 3 {
		frac += "0"
	}
	n, err := strconv.Atoi(frac)
	if err != nil || frac[0] == '+' || frac[0] == '-' {
		return 0, false
	}
	if whole == "1" {
		if n != 0 {
			return 0, false
		}
		return 1000, true
	}
	return n, true
}

func isAlpha(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
