package edgecache

import (
	"context"
	"fmt"
	"strings"
)

// Clean turns paths into the form CloudFront's CreateInvalidation wants,
// in their first-seen order, without duplicates:
//
//   - a path gets a leading "/" when it lacks one;
//   - non-ASCII bytes, control characters and the characters RFC 1738 calls
//     unsafe (space < > " # % { } | \ ^ ~ [ ] `) are percent-encoded, and
//     nothing else is: CloudFront's guide warns that encoding any other
//     character keeps the old object from being invalidated;
//   - "*" is only allowed as the last character, where it makes the path a
//     prefix; anywhere else it is an error, as CloudFront would refuse it.
//
// Paths are taken unescaped, as a link's code is written (a code or alias
// never needs escaping; the rules are here so no caller can send CloudFront
// a path it rejects or silently fails to match). Query strings ("?...") are
// kept as they are.
func Clean(paths []string) ([]string, error) {
	out := make([]string, 0, len(paths))
	seen := make(map[string]struct{}, len(paths))
	for _, p := range paths {
		c, err := cleanPath(p)
		if err != nil {
			return nil, err
		}
		if _, dup := seen[c]; dup {
			continue
		}
		seen[c] = struct{}{}
		out = append(out, c)
	}
	return out, nil
}

// request is what an Invalidate of paths under ctx asks for, alike in
// both implementations: nothing once ctx has ended (its error), nothing
// and an error for an invalid path, else the paths cleaned (Clean), which
// may be none.
func request(ctx context.Context, paths []string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return Clean(paths)
}

func cleanPath(p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("edgecache: empty invalidation path")
	}
	if i := strings.IndexByte(p, '*'); i >= 0 && i != len(p)-1 {
		return "", fmt.Errorf("edgecache: invalidation path %q: '*' is only allowed at the end", p)
	}
	var b strings.Builder
	b.Grow(len(p) + 1)
	if p[0] != '/' {
		b.WriteByte('/')
	}
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(p); i++ {
		c := p[i]
		if needsEscape(c) {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xF])
			continue
		}
		b.WriteByte(c)
	}
	return b.String(), nil
}

// needsEscape reports whether CloudFront wants c percent-encoded in an
// invalidation path: non-ASCII, control, or unsafe in the sense of RFC 1738
// section 2.2.
func needsEscape(c byte) bool {
	if c <= 0x20 || c >= 0x7f {
		return true
	}
	return strings.IndexByte(`<>"#%{}|\^~[]`+"`", c) >= 0
}
