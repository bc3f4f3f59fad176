package localedge

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/shortlink-dev/shortener/shared/edgespec"
)

// Policy is a cache policy's TTL bounds and the distribution's error
// caching minimum, in the terms CloudFront uses.
type Policy struct {
	// MinTTL, DefaultTTL and MaxTTL bound how long a 2xx or 3xx answer is
	// kept; DefaultTTL applies when the origin sends no max-age or
	// s-maxage.
	MinTTL, DefaultTTL, MaxTTL time.Duration
	// ErrorCachingMinTTL is the least time a cacheable error is kept,
	// whatever a smaller s-maxage says: CloudFront keeps a 404 the larger
	// of its max-age/s-maxage and this minimum
	// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/HTTPStatusCodes.html).
	// A new alias's freshness counts on it being no longer than 10 s
	// (docs/lifecycle.md, section 6), and its tests on it being no shorter.
	ErrorCachingMinTTL time.Duration
}

// The deployed redirect behaviour: the RedirectCache policy
// (edgespec.RedirectCache) and CloudFront's default error caching minimum.
const (
	DefaultMinTTL             = edgespec.RedirectMinTTLSeconds * time.Second
	DefaultDefaultTTL         = edgespec.RedirectDefaultTTLSeconds * time.Second
	DefaultMaxTTL             = edgespec.RedirectMaxTTLSeconds * time.Second
	DefaultErrorCachingMinTTL = edgespec.DefaultErrorCachingMinTTLSeconds * time.Second
)

// DeployedPolicy is the policy of the deployed redirect behaviour.
func DeployedPolicy() Policy {
	return Policy{
		MinTTL:             DefaultMinTTL,
		DefaultTTL:         DefaultDefaultTTL,
		MaxTTL:             DefaultMaxTTL,
		ErrorCachingMinTTL: DefaultErrorCachingMinTTL,
	}
}

// cacheControl is what the edge reads of a response's Cache-Control.
type cacheControl struct {
	present                   bool
	noStore, noCache, private bool
	sMaxAge, maxAge           int // seconds; -1 when absent
}

// parseCacheControl reads every Cache-Control value of h. A directive
// with a malformed number is ignored, as a cache ignores what it cannot
// read.
func parseCacheControl(h http.Header) cacheControl {
	cc := cacheControl{sMaxAge: -1, maxAge: -1}
	for _, v := range h.Values("Cache-Control") {
		cc.present = true
		for d := range strings.SplitSeq(v, ",") {
			name, arg, _ := strings.Cut(strings.TrimSpace(d), "=")
			arg = strings.Trim(strings.TrimSpace(arg), `"`)
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "no-store":
				cc.noStore = true
			case "no-cache":
				cc.noCache = true
			case "private":
				cc.private = true
			case "s-maxage":
				if n, err := strconv.Atoi(arg); err == nil && n >= 0 {
					cc.sMaxAge = n
				}
			case "max-age":
				if n, err := strconv.Atoi(arg); err == nil && n >= 0 {
					cc.maxAge = n
				}
			}
		}
	}
	return cc
}

// age is s-maxage, which beats max-age for a shared cache, else max-age,
// else -1.
func (cc cacheControl) age() int {
	if cc.sMaxAge >= 0 {
		return cc.sMaxAge
	}
	return cc.maxAge
}

func (cc cacheControl) forbids() bool { return cc.noStore || cc.noCache || cc.private }

// TTL is how long CloudFront keeps a GET answered with status and header
// under p; 0 means not at all.
func (p Policy) TTL(status int, header http.Header) time.Duration {
	cc := parseCacheControl(header)
	secs := func(n int) time.Duration { return time.Duration(n) * time.Second }
	errorTTL := func() time.Duration {
		if a := cc.age(); a >= 0 {
			return max(secs(a), p.ErrorCachingMinTTL)
		}
		return p.ErrorCachingMinTTL
	}
	switch status {
	case 200, 203, 300, 301, 302, 303, 307, 308:
		if (status == 307 || status == 308) && !cc.present {
			return 0
		}
		if cc.forbids() {
			// With a Min TTL above zero CloudFront keeps it anyway.
			return p.MinTTL
		}
		ttl := p.DefaultTTL
		if a := cc.age(); a >= 0 {
			ttl = secs(a)
		}
		return min(max(ttl, p.MinTTL), p.MaxTTL)
	case 404, 410, 414, 501:
		if cc.forbids() {
			return 0
		}
		return errorTTL()
	case 500, 502, 503, 504:
		return errorTTL()
	case 400, 403, 405, 412, 415:
		if !cc.present {
			return 0
		}
		return errorTTL()
	}
	return 0
}
