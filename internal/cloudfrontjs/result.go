package cloudfrontjs

import (
	"encoding/base64"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
)

// The parsers below read what a handler returned, exported from the
// engine as Go values (map[string]any for an object, []any for an array,
// int64 or float64 for a number), and check it as CloudFront validates a
// function's result: every field the right type, names and values that
// cannot smuggle a second header or cookie, no disallowed header, no
// change to a read-only one. Anything else is ErrInvalidResult, never a
// panic: the input is whatever the function's code made.

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidResult, fmt.Sprintf(format, args...))
}

// kindOf names a value's JavaScript type for an error message.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null or undefined"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64, float64, int, int32:
		return "a number"
	default:
		if reflect.TypeOf(v).Kind() == reflect.Func {
			return "a function"
		}
		return fmt.Sprintf("a %T", v)
	}
}

// parseRequestResult reads a viewer-request handler's result: a response
// when it has a statusCode, else the request, which must still be orig's
// request (same method, read-only headers untouched).
func parseRequestResult(v any, orig *Request) (RequestResult, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return RequestResult{}, invalid("the handler returned %s, not a request or a response", kindOf(v))
	}
	if _, ok := m["statusCode"]; ok {
		resp, err := parseResponse(m, EventViewerRequest, nil)
		if err != nil {
			return RequestResult{}, err
		}
		return RequestResult{Response: resp}, nil
	}
	req, err := parseRequest(m, orig)
	if err != nil {
		return RequestResult{}, err
	}
	return RequestResult{Request: req}, nil
}

func parseRequest(m map[string]any, orig *Request) (*Request, error) {
	req := &Request{Method: orig.Method}
	if v, ok := m["method"]; ok {
		s, ok := v.(string)
		if !ok || s != orig.Method {
			return nil, invalid("request.method cannot be changed (%s)", describe(v))
		}
	}
	uri, ok := m["uri"].(string)
	if !ok {
		return nil, invalid("request.uri is %s, not a string", kindOf(m["uri"]))
	}
	if err := checkURI(uri); err != nil {
		return nil, err
	}
	req.URI = uri
	var err error
	if req.Querystring, err = parseQuerystring(m["querystring"]); err != nil {
		return nil, err
	}
	if req.Headers, err = parseValues(m["headers"], "request.headers", headerField); err != nil {
		return nil, err
	}
	if err := checkHeaders(req.Headers, EventViewerRequest, "request.headers", visibleHeaders(orig.Headers)); err != nil {
		return nil, err
	}
	if req.Cookies, err = parseValues(m["cookies"], "request.cookies", cookieField); err != nil {
		return nil, err
	}
	return req, nil
}

// parseQuerystring reads request.querystring: the event's object, or the
// string cloudfront-js-2.0 also takes there ("a=1&b=2", a leading "?"
// allowed), as the functions that rebuild a query string set it
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/functions-javascript-runtime-20.html).
func parseQuerystring(v any) (Values, error) {
	s, ok := v.(string)
	if !ok {
		return parseValues(v, "request.querystring", queryField)
	}
	q := parseRawQuery(strings.TrimPrefix(s, "?"))
	for name, val := range q {
		where := func() string { return fmt.Sprintf("request.querystring %q", s) }
		if err := checkName(queryField, where(), name); err != nil {
			return nil, err
		}
		for _, one := range val.All() {
			if err := checkValue(queryField, where, one); err != nil {
				return nil, err
			}
		}
	}
	return q, nil
}

// parseResponse reads a response: one a viewer-request function generated
// (orig nil, eventType EventViewerRequest), with an optional body, or the
// viewer-response function's answer to orig, which has none.
func parseResponse(v any, eventType string, orig *Response) (*Response, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, invalid("the handler returned %s, not a response", kindOf(v))
	}
	code, ok := integer(m["statusCode"])
	if !ok || code < 200 || code > 599 {
		return nil, invalid("response.statusCode is %s, not a status from 200 to 599", describe(m["statusCode"]))
	}
	resp := &Response{StatusCode: int(code)}
	if d, ok := m["statusDescription"]; ok && d != nil {
		s, ok := d.(string)
		if !ok || !printable(s) {
			return nil, invalid("response.statusDescription is %s, not a line of text", describe(d))
		}
		resp.StatusDescription = s
	}
	var err error
	if resp.Headers, err = parseValues(m["headers"], "response.headers", headerField); err != nil {
		return nil, err
	}
	var before Values
	if orig != nil {
		before = visibleHeaders(orig.Headers)
	}
	if err := checkHeaders(resp.Headers, eventType, "response.headers", before); err != nil {
		return nil, err
	}
	if resp.Cookies, err = parseResponseCookies(m["cookies"]); err != nil {
		return nil, err
	}
	if b, ok := m["body"]; ok && b != nil {
		if eventType != EventViewerRequest {
			return nil, invalid("response.body: a viewer-response function cannot set the body")
		}
		if resp.Body, err = parseBody(b); err != nil {
			return nil, err
		}
	}
	if eventType == EventViewerRequest {
		if n := generatedSize(resp); n > MaxGeneratedResponseBytes {
			return nil, invalid("the generated response is %d bytes, over CloudFront's %d", n, MaxGeneratedResponseBytes)
		}
	}
	return resp, nil
}

func parseBody(v any) (*Body, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, invalid("response.body is %s, not {encoding, data}", kindOf(v))
	}
	data, ok := m["data"].(string)
	if !ok {
		return nil, invalid("response.body.data is %s, not a string", kindOf(m["data"]))
	}
	b := &Body{Encoding: "text", Data: data}
	if e, ok := m["encoding"]; ok && e != nil {
		s, ok := e.(string)
		if !ok || (s != "text" && s != "base64") {
			return nil, invalid(`response.body.encoding is %s, not "text" or "base64"`, describe(e))
		}
		b.Encoding = s
	}
	if b.Encoding == "base64" {
		if _, err := base64.StdEncoding.DecodeString(data); err != nil {
			return nil, invalid("response.body.data is not base64: %v", err)
		}
	}
	return b, nil
}

// Bytes is the body's content.
func (b *Body) Bytes() []byte {
	if b == nil {
		return nil
	}
	if b.Encoding == "base64" {
		out, _ := base64.StdEncoding.DecodeString(b.Data) // checked when parsed
		return out
	}
	return []byte(b.Data)
}

func generatedSize(r *Response) int {
	n := len(r.StatusDescription) + len(r.Body.Bytes())
	for name, v := range r.Headers {
		for _, s := range v.All() {
			n += len(name) + len(s) + 4 // ": " and CRLF
		}
	}
	for name, c := range r.Cookies {
		for _, one := range c.all() {
			n += len("set-cookie: ") + len(name) + 1 + len(one.Value) + len(one.Attributes) + 4
		}
	}
	return n
}

// field says how a parseValues entry's name and value are checked.
type field int

const (
	queryField field = iota
	headerField
	cookieField
)

func parseValues(v any, where string, f field) (Values, error) {
	out := Values{}
	if v == nil {
		return out, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, invalid("%s is %s, not an object", where, kindOf(v))
	}
	for name, e := range m {
		key := name
		if f == headerField {
			key = strings.ToLower(name)
			if _, dup := out[key]; dup {
				return nil, invalid("%s has %q twice, in different cases", where, key)
			}
		}
		if err := checkName(f, where, name); err != nil {
			return nil, err
		}
		val, err := parseValue(e, where, name, f)
		if err != nil {
			return nil, err
		}
		out[key] = val
	}
	return out, nil
}

// parseValue reads the entry name of the object in (request.headers, say);
// the entry's path for messages is built only for an error, as a hit's
// result has a dozen entries and no error.
func parseValue(v any, in, name string, f field) (Value, error) {
	where := func() string { return fmt.Sprintf("%s[%q]", in, name) }
	m, ok := v.(map[string]any)
	if !ok {
		return Value{}, invalid("%s is %s, not {value}", where(), kindOf(v))
	}
	var out Value
	if mv, ok := m["multiValue"]; ok && mv != nil {
		items, ok := mv.([]any)
		if !ok {
			return Value{}, invalid("%s.multiValue is %s, not an array", where(), kindOf(mv))
		}
		for i, it := range items {
			im, ok := it.(map[string]any)
			if !ok {
				return Value{}, invalid("%s.multiValue[%d] is %s, not {value}", where(), i, kindOf(it))
			}
			s, ok := im["value"].(string)
			if !ok {
				return Value{}, invalid("%s.multiValue[%d].value is %s, not a string", where(), i, kindOf(im["value"]))
			}
			if err := checkValue(f, where, s); err != nil {
				return Value{}, err
			}
			out.MultiValue = append(out.MultiValue, Value{Value: s})
		}
	}
	switch s, ok := m["value"].(string); {
	case ok:
		if err := checkValue(f, where, s); err != nil {
			return Value{}, err
		}
		out.Value = s
	case len(out.MultiValue) > 0 && m["value"] == nil:
		out.Value = out.MultiValue[0].Value
	default:
		return Value{}, invalid("%s.value is %s, not a string", where(), kindOf(m["value"]))
	}
	return out, nil
}

func parseResponseCookies(v any) (ResponseCookies, error) {
	out := ResponseCookies{}
	if v == nil {
		return out, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, invalid("response.cookies is %s, not an object", kindOf(v))
	}
	one := func(v any, where string) (Cookie, error) {
		cm, ok := v.(map[string]any)
		if !ok {
			return Cookie{}, invalid("%s is %s, not {value, attributes}", where, kindOf(v))
		}
		var c Cookie
		s, ok := cm["value"].(string)
		if !ok {
			return Cookie{}, invalid("%s.value is %s, not a string", where, kindOf(cm["value"]))
		}
		if err := checkValue(cookieField, func() string { return where }, s); err != nil {
			return Cookie{}, err
		}
		c.Value = s
		if a, ok := cm["attributes"]; ok && a != nil {
			as, ok := a.(string)
			if !ok || !printable(as) {
				return Cookie{}, invalid("%s.attributes is %s, not a line of text", where, describe(a))
			}
			c.Attributes = as
		}
		return c, nil
	}
	for name, e := range m {
		if err := checkName(cookieField, "response.cookies", name); err != nil {
			return nil, err
		}
		where := fmt.Sprintf("response.cookies[%q]", name)
		c, err := one(e, where)
		if err != nil {
			return nil, err
		}
		if mv, ok := e.(map[string]any)["multiValue"]; ok && mv != nil {
			items, ok := mv.([]any)
			if !ok {
				return nil, invalid("%s.multiValue is %s, not an array", where, kindOf(mv))
			}
			for i, it := range items {
				mc, err := one(it, fmt.Sprintf("%s.multiValue[%d]", where, i))
				if err != nil {
					return nil, err
				}
				c.MultiValue = append(c.MultiValue, mc)
			}
		}
		out[name] = c
	}
	return out, nil
}

// all returns each Set-Cookie of the cookie: MultiValue's, or itself.
func (c Cookie) all() []Cookie {
	if len(c.MultiValue) == 0 {
		return []Cookie{c}
	}
	return c.MultiValue
}

// checkHeaders refuses disallowed headers and any change to the read-only
// headers of eventType, against before (the event's headers; nil for a
// generated response, which may set none of them).
func checkHeaders(h Values, eventType, where string, before Values) error {
	for name := range h {
		if DisallowedHeader(name) {
			return invalid("%s: %s is a header edge functions cannot set", where, name)
		}
	}
	for _, name := range readOnlyHeaders[eventType] {
		was, had := before[name]
		now, has := h[name]
		if had != has || !sameValue(was, now) {
			return invalid("%s: %s is read-only", where, name)
		}
	}
	return nil
}

// sameValue reports whether a and b hold the same values.
func sameValue(a, b Value) bool {
	if len(a.MultiValue) == 0 && len(b.MultiValue) == 0 {
		return a.Value == b.Value
	}
	return slices.Equal(a.All(), b.All())
}

// checkURI keeps the URI a path: CloudFront sends it to the origin as the
// request line's target, so it cannot hold a query, a fragment, spaces or
// control characters.
func checkURI(uri string) error {
	if !strings.HasPrefix(uri, "/") {
		return invalid("request.uri %q does not start with /", uri)
	}
	if strings.ContainsAny(uri, "?# ") || !printable(uri) {
		return invalid("request.uri %q holds a character a path cannot", uri)
	}
	return nil
}

func checkName(f field, where, name string) error {
	switch f {
	case headerField, cookieField:
		if !isToken(name) {
			return invalid("%s: %q is not a valid name", where, name)
		}
	case queryField:
		// "" is a name: "?=x" has it.
		if strings.ContainsAny(name, "&=# ") || !printable(name) {
			return invalid("%s: %q is not a valid name", where, name)
		}
	}
	return nil
}

func checkValue(f field, where func() string, s string) error {
	ok := printable(s)
	switch f {
	case queryField:
		ok = ok && !strings.ContainsAny(s, "&# ")
	case cookieField:
		// A viewer's quoted or comma-holding value must pass through
		// untouched; only ";" would start another cookie.
		ok = ok && !strings.Contains(s, ";")
	}
	if !ok {
		return invalid("%s: %q is not a valid value", where(), s)
	}
	return nil
}

// printable reports whether s has no control character but tab: nothing
// that could end a header line (RFC 9110, section 5.5).
func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// isToken reports whether s is an RFC 9110 token (section 5.6.2), as a
// header or cookie name must be.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return true
}

// integer reads a JavaScript number that is a whole number.
func integer(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<53 {
			return int64(n), true
		}
	}
	return 0, false
}

// describe is a value for an error message, short.
func describe(v any) string {
	switch s := v.(type) {
	case string:
		if len(s) > 64 {
			s = s[:64] + "..."
		}
		return fmt.Sprintf("%q", s)
	case int64, float64, bool:
		return fmt.Sprint(s)
	}
	return kindOf(v)
}
