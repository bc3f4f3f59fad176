package clicklog

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Record is one real-time log record: the fields listed in Fields, decoded.
// An empty string is a field CloudFront logged as "-".
type Record struct {
	// Time is when the edge finished responding (timestamp), UTC, to the
	// millisecond.
	Time time.Time
	// ClientIP is the viewer's address (c-ip). It is read only to hash it,
	// with the User-Agent, under a salt that lives 48 hours, for the
	// unique-visitor estimate; it is never stored. Empty in a record of an
	// older layout or when it is not an address's text.
	ClientIP string
	// Status is the status the edge answered (sc-status); 0 when the viewer
	// hung up before the answer ("000").
	Status int
	// Method is the request method (cs-method).
	Method string
	// Host is the Host header the viewer sent (cs-host).
	Host string
	// URI is the request path with its query string (cs-uri-stem; in
	// real-time logs, unlike standard logs, it includes the query).
	URI string
	// RequestID identifies the request (x-edge-request-id); CloudFront
	// also returns it as x-amz-cf-id.
	RequestID string
	// UserAgent is the User-Agent header (cs-user-agent).
	UserAgent string
	// Referer is the Referer header (cs-referer).
	Referer string
	// ResponseResultType is how the edge classified its answer just before
	// sending it (x-edge-response-result-type): Hit, RefreshHit, Miss,
	// Redirect (its own 301 to https), Error, ...; empty in a record of the
	// PreviousFields layout.
	ResponseResultType string
	// ResultType is how the edge classified its answer once the last byte
	// left it (x-edge-result-type): the same values, but Error when the
	// viewer hung up before the end of an answer it had started to get.
	ResultType string
	// ContentType is the Content-Type of the answer (sc-content-type); a
	// decided link's redirect names its destination in it.
	ContentType string
	// Country is the viewer's country code (c-country), from its IP address.
	Country string
}

// ErrMalformed matches every error Parse returns, with errors.Is.
var ErrMalformed = errors.New("malformed log record")

// ParseError says which field of a record is malformed.
type ParseError struct {
	// Field is a name from Fields, or "record" for the layout as a whole.
	Field  string
	Reason string
}

func (e *ParseError) Error() string { return "log record: " + e.Field + ": " + e.Reason }

// Is makes a ParseError match ErrMalformed.
func (e *ParseError) Is(target error) bool { return target == ErrMalformed }

func malformed(field int, reason string) *ParseError {
	return &ParseError{Field: Fields[field], Reason: reason}
}

// maxStackRecord is the size of the string fields Parse decodes on the
// stack; longer records, rare, take one more allocation.
const maxStackRecord = 512

// Parse reads one record laid out by Fields, or by PreviousFields. A trailing
// newline is ignored.
// It allocates once: every string field is a substring of one string that
// holds the decoded fields back to back. A consumer parsing many records
// uses a Parser.
func Parse(line []byte) (Record, error) {
	var (
		p     Parser
		stack [maxStackRecord]byte
	)
	r, _, err := p.parse(line, 0, stack[:])
	return r, err
}

// Parser parses records into strings cut from shared blocks of memory, so
// that most records take no allocation at all. The zero value is ready to
// use; a Parser is not safe for concurrent use. Records never change once
// returned, but one record keeps its whole block (ParserBlockSize) alive:
// parse a batch whose records go together with one Parser, and a record to
// be kept on its own with Parse.
type Parser struct {
	block strings.Builder
	// scratch is where a record's fields are decoded before they are
	// copied into the block.
	scratch []byte
}

// ParserBlockSize is the size of a Parser's blocks: about fifty records.
const ParserBlockSize = 16 << 10

// Parse reads one record as the function Parse does.
func (p *Parser) Parse(line []byte) (Record, error) {
	r, scratch, err := p.parse(line, ParserBlockSize, p.scratch)
	p.scratch = scratch
	return r, err
}

// parse reads a record, decoding its fields in scratch first, which it
// grows if need be and returns, and copying them into a block of at least
// blockSize bytes.
func (p *Parser) parse(line []byte, blockSize int, scratch []byte) (Record, []byte, error) {
	var raw [numFields][]byte
	n := 0
	for rest := line; ; n++ {
		if n == numFields {
			return Record{}, scratch, &ParseError{Field: "record", Reason: "has more than " + strconv.Itoa(numFields) + " tab-separated fields"}
		}
		i := bytes.IndexByte(rest, '\t')
		if i < 0 {
			raw[n] = rest
			n++
			break
		}
		raw[n], rest = rest[:i], rest[i+1:]
	}
	// The line ends with the last field; trimming its newline here rather
	// than first reads the record front to back, once.
	last := raw[n-1]
	if k := len(last); k > 0 && last[k-1] == '\n' {
		last = last[:k-1]
	}
	if k := len(last); k > 0 && last[k-1] == '\r' {
		last = last[:k-1]
	}
	raw[n-1] = last
	if bytes.IndexByte(last, '\n') >= 0 {
		return Record{}, scratch, &ParseError{Field: "record", Reason: "holds more than one line"}
	}
	if n != numFields {
		// An older layout: put each field where Fields has it, and leave
		// the fields it lacks empty.
		idx := layoutIndex(n)
		if idx == nil {
			return Record{}, scratch, &ParseError{Field: "record", Reason: "has " + strconv.Itoa(n) + " tab-separated fields, want " + strconv.Itoa(numFields) +
				" (or " + strconv.Itoa(len(NoIPFields)) + ", " + strconv.Itoa(len(PreviousFields)) + " or " + strconv.Itoa(len(OldestFields)) + " in the previous layouts)"}
		}
		var moved [numFields][]byte
		for i, f := range idx {
			moved[f] = raw[i]
		}
		raw = moved
	}

	var r Record
	ms, ok := parseTimestamp(raw[fieldTimestamp])
	if !ok {
		return Record{}, scratch, malformed(fieldTimestamp, "is not epoch seconds such as 1700000000.123")
	}
	r.Time = time.UnixMilli(ms).UTC()
	if r.Status, ok = parseStatus(raw[fieldStatus]); !ok {
		return Record{}, scratch, malformed(fieldStatus, "is not a three-digit status")
	}

	// Decode the string fields back to back into scratch and copy them into
	// the block once; each field is a substring of what was copied.
	if !validIP(raw[fieldClientIP]) {
		// An address we cannot read adds no visitor; the click still counts.
		raw[fieldClientIP] = nil
	}
	size := 0
	for _, f := range stringFields {
		size += len(raw[f])
	}
	if cap(scratch) < size {
		scratch = make([]byte, max(size, maxStackRecord))
	}
	buf := scratch[:size]
	var starts, ends [numFields]int
	w := 0
	for _, f := range stringFields {
		starts[f] = w
		if v := raw[f]; !(len(v) == 1 && v[0] == '-') {
			if w, ok = unescape(buf, w, v); !ok {
				return Record{}, scratch, malformed(f, "has a malformed %-escape")
			}
		}
		ends[f] = w
	}
	// A strings.Builder never changes the bytes it has handed out as
	// strings, so records can share its block.
	if p.block.Cap()-p.block.Len() < w {
		p.block = strings.Builder{}
		p.block.Grow(max(w, blockSize))
	}
	start := p.block.Len()
	p.block.Write(buf[:w])
	s := p.block.String()[start:]
	field := func(f int) string { return s[starts[f]:ends[f]] }
	r.ClientIP = field(fieldClientIP)
	r.Method = field(fieldMethod)
	r.Host = field(fieldHost)
	r.URI = field(fieldURI)
	r.RequestID = field(fieldRequestID)
	r.UserAgent = field(fieldUserAgent)
	r.Referer = field(fieldReferer)
	r.ResponseResultType = field(fieldResponseResultType)
	r.ResultType = field(fieldResultType)
	r.ContentType = field(fieldContentType)
	r.Country = field(fieldCountry)
	return r, scratch, nil
}

// stringFields are the fields Parse decodes as strings, in record order.
var stringFields = [...]int{fieldClientIP, fieldMethod, fieldHost, fieldURI, fieldRequestID, fieldUserAgent,
	fieldReferer, fieldResponseResultType, fieldResultType, fieldContentType, fieldCountry}

// layouts maps the field count of each older layout to where its fields
// sit in Fields.
var layouts = func() map[int][]int {
	m := map[int][]int{}
	for _, layout := range [][]string{NoIPFields, PreviousFields, OldestFields} {
		idx := make([]int, len(layout))
		for i, name := range layout {
			idx[i] = slices.Index(Fields, name)
		}
		m[len(layout)] = idx
	}
	return m
}()

func layoutIndex(n int) []int { return layouts[n] }

// maxIPBytes is the longest text form of an IPv6 address.
const maxIPBytes = 45

// validIP reports whether v can be a c-ip value: IPv4 or IPv6 text
// (digits, hex letters, '.' and ':'). "-" (none) is not.
func validIP(v []byte) bool {
	if len(v) < 2 || len(v) > maxIPBytes {
		return false
	}
	for _, c := range v {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == '.' || c == ':') {
			return false
		}
	}
	return true
}

// maxSecondsDigits bounds the timestamp's whole seconds: twelve digits
// reach the year 33658 and cannot overflow milliseconds in an int64.
const maxSecondsDigits = 12

// parseTimestamp reads epoch seconds with an optional fraction of up to
// nine digits, to whole milliseconds (CloudFront writes three).
func parseTimestamp(v []byte) (ms int64, ok bool) {
	i := 0
	for ; i < len(v) && v[i] >= '0' && v[i] <= '9'; i++ {
		ms = ms*10 + int64(v[i]-'0')
	}
	if i == 0 || i > maxSecondsDigits {
		return 0, false
	}
	ms *= 1000
	if i == len(v) {
		return ms, true
	}
	if v[i] != '.' {
		return 0, false
	}
	frac := v[i+1:]
	if len(frac) == 0 || len(frac) > 9 {
		return 0, false
	}
	scale := int64(100)
	for _, c := range frac {
		if c < '0' || c > '9' {
			return 0, false
		}
		ms += int64(c-'0') * scale
		scale /= 10
	}
	return ms, true
}

func parseStatus(v []byte) (int, bool) {
	if len(v) != 3 {
		return 0, false
	}
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// unescape decodes v's %XX escapes into dst from position n and returns
// the position after it; dst has room for v. A '+' stays a '+': CloudFront
// percent-encodes, it does not form-encode. A value without escapes is one
// copy. A User-Agent has a %20 every few bytes: the loop moves the bytes
// between escapes eight at a time, finding the next '%' with a word test.
func unescape(dst []byte, n int, v []byte) (int, bool) {
	i := bytes.IndexByte(v, '%')
	if i < 0 {
		return n + copy(dst[n:], v), true
	}
	n += copy(dst[n:], v[:i])
	for i < len(v) {
		if len(v)-i >= 8 && len(dst)-n >= 8 {
			x := binary.LittleEndian.Uint64(v[i:])
			// All eight bytes are stored; only those before a '%' count.
			binary.LittleEndian.PutUint64(dst[n:], x)
			m := percents(x)
			if m == 0 {
				i += 8
				n += 8
				continue
			}
			k := bits.TrailingZeros64(m) / 8
			i += k
			n += k
		}
		c := v[i]
		if c == '%' {
			if i+2 >= len(v) {
				return n, false
			}
			hi, ok1 := unhex(v[i+1])
			lo, ok2 := unhex(v[i+2])
			if !ok1 || !ok2 {
				return n, false
			}
			c = hi<<4 | lo
			i += 2
		}
		dst[n] = c
		n++
		i++
	}
	return n, true
}

// percents marks the bytes of x that are '%' with their high bit; the
// lowest mark is exact, higher ones may be false. It is the classic test
// for a zero byte, applied to x with every '%' turned into zero.
func percents(x uint64) uint64 {
	const ones, highs, pct = 0x0101010101010101, 0x8080808080808080, 0x2525252525252525
	y := x ^ pct
	return (y - ones) &^ y & highs
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// Format writes r as CloudFront would: the fields of Fields, tab-separated,
// URL-encoded, "-" for empty, ending with a newline. For every record Parse
// returns, Parse(Format(r)) gives r back.
func Format(r Record) []byte {
	return Append(make([]byte, 0, 256), r)
}

// Append appends r formatted as by Format to dst.
func Append(dst []byte, r Record) []byte {
	ms := r.Time.UnixMilli()
	dst = strconv.AppendInt(dst, ms/1000, 10)
	frac := ms % 1000
	dst = append(dst, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10), '\t')
	dst = appendValue(dst, r.ClientIP)
	dst = append(dst, '\t')
	if r.Status >= 0 && r.Status <= 999 {
		dst = append(dst, byte('0'+r.Status/100), byte('0'+r.Status/10%10), byte('0'+r.Status%10))
	} else {
		dst = strconv.AppendInt(dst, int64(r.Status), 10)
	}
	for _, v := range [...]string{r.Method, r.Host, r.URI, r.RequestID, r.UserAgent, r.Referer, r.ResponseResultType, r.ResultType, r.ContentType, r.Country} {
		dst = append(dst, '\t')
		dst = appendValue(dst, v)
	}
	return append(dst, '\n')
}

const hexDigits = "0123456789ABCDEF"

// appendValue URL-encodes v: controls, space, '%', DEL and every non-ASCII
// byte become %XX; a value that is just "-" is escaped so it does not read
// back as empty.
func appendValue(dst []byte, v string) []byte {
	switch v {
	case "":
		return append(dst, '-')
	case "-":
		return append(dst, "%2D"...)
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c <= ' ' || c >= 0x7f || c == '%' {
			dst = append(dst, '%', hexDigits[c>>4], hexDigits[c&15])
			continue
		}
		dst = append(dst, c)
	}
	return dst
}
