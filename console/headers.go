package console

// PathPrefix is where the console is served on the distribution, and
// AssetsPrefix the folder of its content-hashed assets below it.
const (
	PathPrefix   = "/console/"
	AssetsPrefix = "/console/assets/"
)

// BuildDir is where build.mjs writes the console, relative to the
// repository root: index.html and assets/ with hashed names.
const BuildDir = "build/console"

// ContentSecurityPolicy is the policy of every console answer. Scripts
// and styles come only from the console's own files (no inline script or
// style element, no eval); the API is called on the same origin; the QR
// preview is a blob: URL made from the API's image. Frames, plugins,
// form posts and <base> are off.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; " +
	"img-src 'self' blob: data:; connect-src 'self'; font-src 'self'; manifest-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'"

// Cache-Control of the HTML (never kept, so a deploy is seen at once) and
// of the hashed assets (a new build has new names, so an old one may be
// kept for a year).
const (
	HTMLCacheControl  = "no-store"
	AssetCacheControl = "public, max-age=31536000, immutable"
)

// SecurityHeaders are the headers besides the CSP that the response
// headers policy sets on console answers, as CloudFront's security
// headers behaviour writes them.
var SecurityHeaders = map[string]string{
	"Strict-Transport-Security": "max-age=63072000; includeSubDomains",
	"X-Content-Type-Options":    "nosniff",
	"X-Frame-Options":           "DENY",
	"Referrer-Policy":           "no-referrer",
}
