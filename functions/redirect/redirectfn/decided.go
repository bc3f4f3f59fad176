package redirectfn

import (
	"context"
	"encoding/base64"
	"errors"
	"html"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/clicklog"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkcounter"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/missbudget"
	"github.com/shortlink-dev/shortener/shared/viewer"
)

// PasswordVerifier checks pw against a stored password hash
// (shared/password's Verify).
type PasswordVerifier func(encoded, pw string) (bool, error)

// DestinationParam is the media type parameter by which a decided
// redirect's Content-Type names its destination (link.Destination.Label),
// for example "text/plain; charset=utf-8; destination=rule-2". CloudFront
// real-time logs carry the response's Content-Type (sc-content-type) and
// not its Location, so this is how the click pipeline learns where each
// decided click went, from the same record that counts it.
const DestinationParam = "destination"

// maxFormBytes bounds the password form's body: a 128-character password,
// percent-encoded, fits with room to spare.
const maxFormBytes = 4096

// decide answers a click of a link decided at the origin (a password, a
// click limit, rules or targets). Every answer is no-store: it was made
// for this viewer and this click, and neither the edge nor a browser may
// give it to anyone else or keep it.
//
// A link with a click limit gives its destination only with a click it
// uses: "exactly max_clicks redirects" must hold whatever the client
// chooses to send. A HEAD, or a bot or link previewer by its User-Agent
// (clicklog's list, the one the click counts use), follows nothing and
// uses no click, so it gets a page that names no destination (see
// lookOnly); a client that claims to be a browser uses a click like one.
func (h *Handler) decide(ctx context.Context, req *events.APIGatewayProxyRequest, l link.Link, now time.Time) events.APIGatewayProxyResponse {
	get := headerLookup(req)
	human := req.HTTPMethod != http.MethodHead && !clicklog.IsBotAgent(get("User-Agent"))
	status := decidedStatus(l.RedirectStatus)
	switch {
	case l.Protected() && req.HTTPMethod != http.MethodPost:
		h.Metrics.Add("PasswordForms", metrics.Count, 1)
		return formPage(http.StatusOK, unlockAction(req, l), "")
	case l.Protected():
		if resp, ok := h.checkPassword(ctx, req, l, now); !ok {
			return resp
		}
		status = http.StatusSeeOther // the answer to a POST is a GET of the target
	case req.HTTPMethod == http.MethodPost:
		return methodNotAllowed()
	}
	if l.MaxClicks > 0 {
		if !human {
			return h.lookOnly(ctx, l)
		}
		if resp, ok := h.useClick(ctx, l); !ok {
			return resp
		}
	}
	d := l.Choose(l.URL, viewer.FromHeaders(get), h.Draw())
	h.Metrics.Add("DecidedRedirects", metrics.Count, 1)
	headers := map[string]string{
		"Location":      link.LocationURL(d.URL),
		"Cache-Control": "no-store",
		"Content-Type":  "text/plain; charset=utf-8; " + DestinationParam + "=" + d.Label(),
	}
	// The password form's POST (/unlock/*) carries the visitor's query
	// back (unlockAction), and its behaviour runs the same query-forward
	// function as the redirects.
	headers = withQueryChoice(headers, l)
	return events.APIGatewayProxyResponse{StatusCode: status, Headers: headers}
}

// decidedStatus keeps a decided link's redirects temporary: a browser
// keeps a 301 or 308 for good and would never ask again, skipping the
// password, the click limit and the rules.
func decidedStatus(s int) int {
	switch s {
	case http.StatusMovedPermanently:
		return http.StatusFound
	case http.StatusPermanentRedirect:
		return http.StatusTemporaryRedirect
	}
	return s
}

// checkPassword checks the form's password. The attempt is counted
// first against the viewer's own budget (linkcounter.ViewerLimit, keyed
// on the address CloudFront writes, which a viewer cannot forge), then
// against the code's (linkcounter.CodeLimit), both before the password is
// checked, so that even a burst of guesses sent at once gets no more than
// the limits verified. One viewer spends its own budget long before the
// code's, so it cannot lock everyone else out; only guessing spread over
// many addresses reaches the code's cap. A right password is forgiven on
// both, and an attempt the code refused is given back to the viewer: it
// was never checked.
func (h *Handler) checkPassword(ctx context.Context, req *events.APIGatewayProxyRequest, l link.Link, now time.Time) (events.APIGatewayProxyResponse, bool) {
	if h.Counters == nil || h.Verify == nil {
		return unavailable(), false
	}
	// A request without the header did not come through the edge; all
	// such share one budget rather than have none.
	viewerKey := linkcounter.ViewerKey(l.Code, missbudget.Client(apigw.Header(req, missbudget.ViewerAddressHeader)))
	codeKey := linkcounter.CodeKey(l.Code)
	retry, err := h.Counters.Attempt(ctx, viewerKey, linkcounter.ViewerLimit, now)
	switch {
	case errors.Is(err, linkcounter.ErrLimited):
		h.Metrics.Add("PasswordViewerLimited", metrics.Count, 1)
		return tooManyAttempts(req, l, retry), false
	case err != nil:
		h.Log.ErrorContext(ctx, "count a viewer's password attempt", "code", l.Code, "error", err.Error())
		return unavailable(), false
	}
	retry, err = h.Counters.Attempt(ctx, codeKey, linkcounter.CodeLimit, now)
	if err != nil {
		h.forgive(ctx, l, viewerKey, now)
		if errors.Is(err, linkcounter.ErrLimited) {
			h.Metrics.Add("PasswordLimited", metrics.Count, 1)
			return tooManyAttempts(req, l, retry), false
		}
		h.Log.ErrorContext(ctx, "count a password attempt", "code", l.Code, "error", err.Error())
		return unavailable(), false
	}
	pw, ok := formPassword(req)
	right := false
	if ok {
		if right, err = h.Verify(l.PasswordHash, pw); err != nil {
			h.Log.ErrorContext(ctx, "verify a password", "code", l.Code, "error", err.Error())
			return unavailable(), false
		}
	}
	if !right {
		h.Metrics.Add("PasswordWrong", metrics.Count, 1)
		return formPage(http.StatusForbidden, unlockAction(req, l), "Wrong password."), false
	}
	h.forgive(ctx, l, viewerKey, now)
	h.forgive(ctx, l, codeKey, now)
	return events.APIGatewayProxyResponse{}, true
}

// forgive gives an attempt on key back. A failure costs only one attempt
// of that budget, so it is logged, without the key: a ViewerKey holds the
// viewer's address.
func (h *Handler) forgive(ctx context.Context, l link.Link, key string, now time.Time) {
	if err := h.Counters.Forgive(ctx, key, now); err != nil {
		h.Log.WarnContext(ctx, "forgive a password attempt", "code", l.Code, "error", err.Error())
	}
}

// tooManyAttempts is the form again, 429 with Retry-After until the
// window that refused the attempt ends (RFC 6585, section 4).
func tooManyAttempts(req *events.APIGatewayProxyRequest, l link.Link, retry time.Duration) events.APIGatewayProxyResponse {
	secs := max(int((retry+time.Second-1)/time.Second), 1)
	wait := "a minute"
	if mins := (secs + 59) / 60; mins > 1 {
		wait = strconv.Itoa(mins) + " minutes"
	}
	resp := formPage(http.StatusTooManyRequests, unlockAction(req, l), "Too many attempts. Try again in "+wait+".")
	resp.Headers["Retry-After"] = strconv.Itoa(secs)
	return resp
}

// useClick takes one of the link's clicks for a human about to be given
// its destination.
func (h *Handler) useClick(ctx context.Context, l link.Link) (events.APIGatewayProxyResponse, bool) {
	if h.Counters == nil {
		return unavailable(), false
	}
	// Forgotten a day after the link's expiry, when nothing reads it.
	left, err := h.Counters.UseClick(ctx, linkcounter.ClickKey(l.Code, l.CreatedAt), l.MaxClicks, l.ExpiresAt.Add(24*time.Hour))
	if err != nil {
		h.Log.ErrorContext(ctx, "use a click", "code", l.Code, "error", err.Error())
		return unavailable(), false
	}
	if !left {
		return h.limitReached(), false
	}
	return events.APIGatewayProxyResponse{}, true
}

// lookOnly answers a HEAD, a bot or a link previewer asking for a link
// with a click limit: it uses no click, so it gets no destination, in no
// header and no body. 200 with a small page while a click is left (a
// link checker sees the link alive, a previewer shows a title), 410 once
// none is; no-store, like every decided answer. It is no redirect, so the
// click log does not count it (shared/clicklog counts only a link's
// redirects). RFC 9110 asks a HEAD for the header fields a GET would get
// (section 9.3.2, a SHOULD): a HEAD does not follow the link, and the
// GET's Location is the one thing the click limit holds back.
func (h *Handler) lookOnly(ctx context.Context, l link.Link) events.APIGatewayProxyResponse {
	if h.Counters == nil {
		return unavailable()
	}
	used, err := h.Counters.ClicksUsed(ctx, linkcounter.ClickKey(l.Code, l.CreatedAt))
	if err != nil {
		h.Log.ErrorContext(ctx, "read the clicks used", "code", l.Code, "error", err.Error())
		return unavailable()
	}
	if used >= l.MaxClicks {
		return h.limitReached()
	}
	h.Metrics.Add("ClickLimitLooks", metrics.Count, 1)
	return events.APIGatewayProxyResponse{StatusCode: http.StatusOK,
		Headers: map[string]string{"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store",
			"X-Robots-Tag": "noindex"},
		Body: lookPage}
}

func (h *Handler) limitReached() events.APIGatewayProxyResponse {
	h.Metrics.Add("ClickLimitReached", metrics.Count, 1)
	return events.APIGatewayProxyResponse{StatusCode: http.StatusGone,
		Headers: map[string]string{"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"},
		Body:    limitPage}
}

// expired answers a link past its expiry that has an expired URL: a 302
// there, the same for everyone, kept at the edge as briefly as the 410 it
// stands for (ttl).
func expired(l link.Link, ttl int) events.APIGatewayProxyResponse {
	d := link.Destination{Kind: link.ToExpired, URL: l.ExpiredURL}
	return events.APIGatewayProxyResponse{
		StatusCode: http.StatusFound,
		Headers: withQueryChoice(map[string]string{
			"Location":      link.LocationURL(d.URL),
			"Cache-Control": sharedMaxAge(ttl),
			"Content-Type":  "text/plain; charset=utf-8; " + DestinationParam + "=" + d.Label(),
		}, l),
	}
}

// headerLookup is apigw.Header on req, as viewer.FromHeaders takes it:
// API Gateway's HTTP APIs lower-case header names, REST APIs keep the
// viewer's.
func headerLookup(req *events.APIGatewayProxyRequest) func(string) string {
	return func(name string) string { return apigw.Header(req, name) }
}

// formPassword reads the field password of a form POST; ok is false for
// any other body.
func formPassword(req *events.APIGatewayProxyRequest) (string, bool) {
	ct := apigw.Header(req, "Content-Type")
	if mt, _, _ := strings.Cut(ct, ";"); !strings.EqualFold(strings.TrimSpace(mt), "application/x-www-form-urlencoded") {
		return "", false
	}
	body := req.Body
	if req.IsBase64Encoded {
		b, err := base64.StdEncoding.DecodeString(body)
		if err != nil {
			return "", false
		}
		body = string(b)
	}
	if len(body) > maxFormBytes {
		return "", false
	}
	vals, err := url.ParseQuery(body)
	if err != nil {
		return "", false
	}
	pw := vals.Get("password")
	if pw == "" || len(pw) > link.MaxPasswordLength*4 {
		return "", false
	}
	return pw, true
}

// defaultDraw draws a target: uniform in [0, 100).
func defaultDraw() int { return rand.IntN(100) }

func unavailable() events.APIGatewayProxyResponse {
	return events.APIGatewayProxyResponse{StatusCode: http.StatusServiceUnavailable,
		Headers: map[string]string{"Cache-Control": "no-store", "Retry-After": "1", "Content-Type": "text/plain; charset=utf-8"},
		Body:    "temporarily unavailable, try again\n"}
}

func methodNotAllowed() events.APIGatewayProxyResponse {
	return events.APIGatewayProxyResponse{StatusCode: http.StatusMethodNotAllowed,
		Headers: map[string]string{"Allow": "GET, HEAD", "Cache-Control": "no-store"}}
}

// unlockAction is where the form posts: the unlock path of the segment
// the viewer used (link.LookupKeys accepted it, so it needs no escaping
// in a path), or the link's own path when the request named none, with
// the visitor's query. The edge's query-forward function merges a
// redirect's query from the request it answers, and the form's POST is
// that request, so the query rides in the action; a link that keeps the
// query out carries none. API Gateway hands the query decoded and by name,
// so it is encoded again in name order.
func unlockAction(req *events.APIGatewayProxyRequest, l link.Link) string {
	action := link.UnlockPath(l.Path())
	if seg := req.PathParameters["code"]; seg != "" {
		action = link.UnlockPath(seg)
	}
	if l.KeepQueryOut || len(req.MultiValueQueryStringParameters) == 0 {
		return action
	}
	return action + "?" + url.Values(req.MultiValueQueryStringParameters).Encode()
}

// formPage is the password form: it names neither the target nor the
// link's owner, and posts to action (link.UnlockPath).
func formPage(status int, action, message string) events.APIGatewayProxyResponse {
	msg := ""
	if message != "" {
		msg = `<p role="alert">` + html.EscapeString(message) + `</p>`
	}
	// The edge keeps this page's CSP and Referrer-Policy. form-action
	// governs the POST and the 303 after it to the destination, which this
	// page may not name: 'self' and any http(s) URL (shared/edgespec
	// RedirectSecurityHeadersPolicy).
	return events.APIGatewayProxyResponse{
		StatusCode: status,
		Headers: map[string]string{
			"Content-Type":            "text/html; charset=utf-8",
			"Cache-Control":           "no-store",
			"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self' https: http:",
			"Referrer-Policy":         "no-referrer",
		},
		Body: formHead + msg + `<form method="post" action="` + html.EscapeString(action) + `">` + formTail,
	}
}

const formHead = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><meta name="viewport" content="width=device-width"><title>Password required</title></head>
<body><h1>This link is protected</h1>`

const formTail = `<label>Password <input type="password" name="password" required minlength="8" maxlength="128" autocomplete="current-password" autofocus></label> <button type="submit">Continue</button></form></body></html>
`

const lookPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>Limited link</title></head>
<body><h1>Limited link</h1><p>This link may be followed a limited number of times. Open it in a browser to follow it.</p></body></html>
`

const limitPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>Click limit reached</title></head>
<body><h1>Click limit reached</h1><p>This link has been followed as many times as its owner allowed.</p></body></html>
`
