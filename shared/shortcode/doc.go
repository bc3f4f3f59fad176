// Package shortcode draws generated short codes: a cryptographically secure
// random 64-bit integer, rejection-sampled into [0, 62^n) so that every code
// is equally likely (no modulo bias), base62-encoded to exactly the chosen
// length. Codes are never sequential and never derived from the URL, so they
// reveal neither creation order nor destination.
package shortcode
