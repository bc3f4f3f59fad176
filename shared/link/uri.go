package link

import "strings"

// The character classes of RFC 3986 (https://www.rfc-editor.org/rfc/rfc3986#section-2),
// byte by byte: every byte outside them, non-ASCII ones included, is sent
// percent-encoded.
const (
	unreservedChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
	subDelimChars   = "!$&'()*+,;="
	genDelimChars   = ":/?#[]@"
)

// byteSet is a set of ASCII bytes.
type byteSet [256]bool

func newByteSet(chars ...string) *byteSet {
	var s byteSet
	for _, cs := range chars {
		for i := 0; i < len(cs); i++ {
			s[cs[i]] = true
		}
	}
	return &s
}

var (
	// pathChars: pchar and "/" (RFC 3986 section 3.3).
	pathChars = newByteSet(unreservedChars, subDelimChars, ":@/")
	// queryChars, fragmentChars: pchar, "/" and "?" (sections 3.4, 3.5).
	queryChars    = newByteSet(unreservedChars, subDelimChars, ":@/?")
	fragmentChars = queryChars
	// uriChars: every character a URI may hold somewhere (section 2).
	uriChars = newByteSet(unreservedChars, subDelimChars, genDelimChars)
)

const upperHex = "0123456789ABCDEF"

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// isEscape reports whether s[i:] starts with a %HH escape.
func isEscape(s string, i int) bool {
	return s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2])
}

// encodeComponent keeps the bytes of s that allowed holds and the %HH
// escapes already there, and percent-encodes every other byte: non-ASCII
// UTF-8 bytes, characters the component may not hold, and a "%" that
// starts no escape (it becomes "%25"). It returns s itself, without
// allocating, when nothing needs encoding, and it is idempotent.
func encodeComponent(s string, allowed *byteSet) string {
	i := 0
	for i < len(s) && (allowed[s[i]] || isEscape(s, i)) {
		if s[i] == '%' {
			i += 2
		}
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case isEscape(s, i):
			b.WriteString(s[i : i+3])
			i += 2
		case allowed[c]:
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&15])
		}
	}
	return b.String()
}

// fixStrayPercents turns every "%" that starts no %HH escape into "%25",
// the escape of "%" itself: "100%" is a URL people paste, and a stray "%"
// is the one character a parser cannot take literally.
func fixStrayPercents(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte(s[i])
		if s[i] == '%' && !isEscape(s, i) {
			b.WriteString("25")
		}
	}
	return b.String()
}

// LocationURL is the Location header for a stored long URL: the URL
// itself when every character is one RFC 3986 allows in a URI, which is
// always so for URLs NormalizeURL stored, and otherwise the URL with each
// other byte percent-encoded. Links stored before NormalizeURL encoded
// non-ASCII characters and stray "%" hold them raw; the redirect sends
// them through this so its Location is a valid URI either way, at the
// cost of one scan of the string for the rest. Reserved characters are
// kept, so the URL's structure (host, path, query, fragment) is unchanged.
func LocationURL(stored string) string {
	return encodeComponent(stored, uriChars)
}
