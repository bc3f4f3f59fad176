package clicklog

import (
	"net/url"
	"strings"
	"unicode/utf8"
)

// MaxCampaignValue is the most bytes of a campaign parameter's value kept;
// a longer one is cut at a character boundary.
const MaxCampaignValue = 50

// Campaign holds the campaign parameters of a click's request; a field is
// empty when the query did not carry it.
type Campaign struct {
	Source, Medium, Name string // utm_source, utm_medium, utm_campaign
}

// IsZero reports whether the request carried none of the parameters.
func (c Campaign) IsZero() bool { return c == Campaign{} }

// CampaignSeparator joins a campaign's three values into one breakdown
// value (Campaign.Key); ParseCampaign never leaves it in a value.
const CampaignSeparator = "\x1f"

// Key is c as one breakdown value: source, medium and name joined by
// CampaignSeparator.
func (c Campaign) Key() string {
	return c.Source + CampaignSeparator + c.Medium + CampaignSeparator + c.Name
}

// CampaignFromKey reads a value Key made; a value of another shape (the
// store's "other") is the source, the medium and the name.
func CampaignFromKey(k string) Campaign {
	src, rest, ok := strings.Cut(k, CampaignSeparator)
	if !ok {
		return Campaign{Source: k, Medium: k, Name: k}
	}
	med, name, _ := strings.Cut(rest, CampaignSeparator)
	return Campaign{Source: src, Medium: med, Name: name}
}

// ParseCampaign reads utm_source, utm_medium and utm_campaign from the
// query of uri (a request path as cs-uri-stem logs it, query included).
// Parameter names match case-insensitively and the first of each wins;
// values are form-decoded ('+' is a space), stripped of control
// characters, made valid UTF-8, trimmed and cut to MaxCampaignValue bytes.
// A value that does not decode is taken as sent.
func ParseCampaign(uri string) Campaign {
	_, q, ok := strings.Cut(uri, "?")
	if !ok || !strings.Contains(q, "utm_") && !strings.Contains(q, "UTM_") && !strings.Contains(q, "Utm_") {
		return Campaign{}
	}
	if i := strings.IndexByte(q, '#'); i >= 0 {
		q = q[:i]
	}
	var c Campaign
	for q != "" {
		var pair string
		pair, q, _ = strings.Cut(q, "&")
		name, value, _ := strings.Cut(pair, "=")
		var dst *string
		switch {
		case strings.EqualFold(name, "utm_source"):
			dst = &c.Source
		case strings.EqualFold(name, "utm_medium"):
			dst = &c.Medium
		case strings.EqualFold(name, "utm_campaign"):
			dst = &c.Name
		default:
			continue
		}
		if *dst == "" {
			*dst = campaignValue(value)
		}
	}
	return c
}

func campaignValue(v string) string {
	if d, err := url.QueryUnescape(v); err == nil {
		v = d
	}
	v = strings.ToValidUTF8(v, "\uFFFD")
	v = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return -1
		}
		return r
	}, v)
	v = strings.TrimSpace(v)
	if len(v) > MaxCampaignValue {
		n := MaxCampaignValue
		for n > 0 && !utf8.RuneStart(v[n]) {
			n--
		}
		v = strings.TrimSpace(v[:n])
	}
	return v
}
