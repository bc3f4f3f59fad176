package managefn

import (
	"strconv"
	"strings"

	"github.com/shortlink-dev/shortener/shared/link"
)

// etag is a version as the ETag header carries it.
func etag(version int64) string { return `"` + strconv.FormatInt(version, 10) + `"` }

// precondition is a parsed If-Match header; nil when the request has none.
type precondition struct {
	any      bool    // "*": any current version
	versions []int64 // the versions named
}

// parseIfMatch reads If-Match: a comma-separated list of entity tags or
// "*". Besides the strong "3" it accepts W/"3" (a proxy may weaken an ETag,
// and the version means the same either way) and a bare 3. A tag that is
// not one of ours is kept as matching nothing, so it fails with 412 as
// RFC 9110 says; only a header with no tag at all is a 400.
func parseIfMatch(header string) (*precondition, error) {
	if strings.TrimSpace(header) == "" {
		return nil, nil
	}
	p := &precondition{}
	tags := 0
	for _, tag := range strings.Split(header, ",") {
		tag = strings.TrimSpace(tag)
		if tag == "" {
			continue
		}
		tags++
		if tag == "*" {
			p.any = true
			continue
		}
		tag = strings.TrimPrefix(tag, "W/")
		if len(tag) >= 2 && tag[0] == '"' && tag[len(tag)-1] == '"' {
			tag = tag[1 : len(tag)-1]
		}
		if v, err := strconv.ParseInt(tag, 10, 64); err == nil && v > 0 {
			p.versions = append(p.versions, v)
		}
	}
	if tags == 0 {
		return nil, &link.FieldError{Field: "If-Match", Reason: `must name the version to change, such as "3", or *`}
	}
	return p, nil
}

// matches reports whether a link at version may be changed; a nil
// precondition allows any.
func (p *precondition) matches(version int64) bool {
	if p == nil || p.any {
		return true
	}
	for _, v := range p.versions {
		if v == version {
			return true
		}
	}
	return false
}
