// Package webconsole is the web console's part of the AWS estate: a
// private S3 bucket that only the distribution may read (an origin access
// control), the console's build deployed into it, and the behaviours that
// serve it at /console/ on the same distribution as the redirects and the
// /v1 API, with the headers the console package defines: a strict
// Content-Security-Policy with no inline script, the HTML never cached,
// the content-hashed assets cached for a year as immutable. The behaviours
// and their response headers policies are as shared/edgespec describes
// them; infra/edge adds the behaviours to the distribution from there.
package webconsole
