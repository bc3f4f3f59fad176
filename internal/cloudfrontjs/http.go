package cloudfrontjs

import (
	"fmt"
	"net/http"
	"net/textproto"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// RequestFromHTTP is the event's request for the viewer's r, as CloudFront
// builds it: the path and the query string as the viewer spelt them (not
// decoded), header names in lower case with Host among them, the Cookie
// header as cookies instead. Disallowed headers are left in; the function
// never sees them. Everything is UTF-8, as CloudFront hands functions
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/edge-function-restrictions-all.html#function-restrictions-encoding):
// a query string byte that is not is percent-encoded, a header's becomes
// U+FFFD.
func RequestFromHTTP(r *http.Request) Request {
	req := Request{
		Method:      r.Method,
		URI:         r.URL.EscapedPath(), // escapes what is not ASCII
		Querystring: parseRawQuery(escapeInvalidUTF8(r.URL.RawQuery)),
		Headers:     Values{},
		Cookies:     Values{},
	}
	if r.Host != "" {
		req.Headers.Add("host", r.Host)
	}
	for name, vs := range r.Header {
		lower := strings.ToLower(name)
		for _, v := range vs {
			if lower == "cookie" {
				addCookies(req.Cookies, v)
				continue
			}
			req.Headers.Add(lower, strings.ToValidUTF8(v, "\uFFFD"))
		}
	}
	return req
}

// escapeInvalidUTF8 percent-encodes the bytes of s that are not UTF-8.
func escapeInvalidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			fmt.Fprintf(&b, "%%%02X", s[i])
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func parseRawQuery(raw string) Values {
	q := Values{}
	for pair := range strings.SplitSeq(raw, "&") {
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		q.Add(k, v)
	}
	return q
}

// addCookies adds the pairs of one Cookie header (RFC 6265, section 4.2).
func addCookies(c Values, header string) {
	for part := range strings.SplitSeq(header, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, value, _ := strings.Cut(part, "=")
		if name = strings.TrimSpace(name); isToken(name) {
			c.Add(name, strings.ToValidUTF8(strings.TrimSpace(value), "\uFFFD"))
		}
	}
}

// ApplyRequest returns a copy of r changed as the function changed its
// request orig into req: path, query string (kept as sent when the
// function left it alone), headers and cookies. The headers the function
// could not see are kept.
func ApplyRequest(r *http.Request, orig, req *Request) *http.Request {
	out := r.Clone(r.Context())
	if req.URI != orig.URI {
		u := *out.URL
		u.RawPath = req.URI
		if p, err := url.PathUnescape(req.URI); err == nil {
			u.Path = p
		} else {
			u.Path = req.URI
		}
		if u.EscapedPath() != req.URI {
			u.RawPath = ""
		}
		out.URL = &u
	}
	if !reflect.DeepEqual(orig.Querystring, req.Querystring) {
		var parts []string
		for _, name := range sortedKeys(req.Querystring) {
			for _, v := range req.Querystring[name].All() {
				parts = append(parts, name+"="+v)
			}
		}
		out.URL.RawQuery = strings.Join(parts, "&")
	}
	out.RequestURI = out.URL.RequestURI()
	if !reflect.DeepEqual(orig.Headers, req.Headers) || !reflect.DeepEqual(orig.Cookies, req.Cookies) {
		h := http.Header{}
		for name, vs := range out.Header {
			if DisallowedHeader(name) {
				h[name] = vs
			}
		}
		for _, name := range sortedKeys(req.Headers) {
			if name == "host" {
				continue // read-only: out.Host stays
			}
			key := textproto.CanonicalMIMEHeaderKey(name)
			h[key] = append(h[key], req.Headers[name].All()...)
		}
		var pairs []string
		for _, name := range sortedKeys(req.Cookies) {
			for _, v := range req.Cookies[name].All() {
				pairs = append(pairs, name+"="+v)
			}
		}
		if len(pairs) > 0 {
			h["Cookie"] = []string{strings.Join(pairs, "; ")}
		}
		out.Header = h
	}
	return out
}

// ResponseFromHTTP is the event's response for an answer with status and
// header h: header names in lower case, Set-Cookie as cookies instead.
func ResponseFromHTTP(status int, h http.Header) Response {
	resp := Response{StatusCode: status, StatusDescription: http.StatusText(status), Headers: Values{}, Cookies: ResponseCookies{}}
	for name, vs := range h {
		lower := strings.ToLower(name)
		for _, v := range vs {
			if lower != "set-cookie" {
				resp.Headers.Add(lower, v)
				continue
			}
			pair, attrs, _ := strings.Cut(v, ";")
			cname, cvalue, _ := strings.Cut(pair, "=")
			cname = strings.TrimSpace(cname)
			c := Cookie{Value: strings.TrimSpace(cvalue), Attributes: strings.TrimSpace(attrs)}
			switch cur, ok := resp.Cookies[cname]; {
			case !ok:
				resp.Cookies[cname] = c
			case len(cur.MultiValue) == 0:
				resp.Cookies[cname] = Cookie{Value: cur.Value, Attributes: cur.Attributes, MultiValue: []Cookie{cur, c}}
			default:
				cur.MultiValue = append(cur.MultiValue, c)
				resp.Cookies[cname] = cur
			}
		}
	}
	return resp
}

// Header is the response's header as net/http files it, Set-Cookie lines
// included. It has no Content-Length; WriteTo sets it.
func (r *Response) Header() http.Header {
	h := http.Header{}
	for _, name := range sortedKeys(r.Headers) {
		key := textproto.CanonicalMIMEHeaderKey(name)
		h[key] = append(h[key], r.Headers[name].All()...)
	}
	for _, name := range sortedKeys(r.Cookies) {
		for _, c := range r.Cookies[name].all() {
			line := name + "=" + c.Value
			if c.Attributes != "" {
				line += "; " + c.Attributes
			}
			h["Set-Cookie"] = append(h["Set-Cookie"], line)
		}
	}
	return h
}

// WriteTo answers w with the generated response r; head leaves the body
// out, as for a HEAD request.
func (r *Response) WriteTo(w http.ResponseWriter, head bool) {
	h := w.Header()
	for k, vs := range r.Header() {
		h[k] = vs
	}
	body := r.Body.Bytes()
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(r.StatusCode)
	if !head {
		_, _ = w.Write(body) // the viewer went away; nothing to tell it
	}
}
