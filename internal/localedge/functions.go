package localedge

import (
	"errors"
	"net"
	"net/http"
	"strconv"

	"github.com/shortlink-dev/shortener/internal/cloudfrontjs"
	"github.com/shortlink-dev/shortener/shared/edgespec"
)

// NonCanonicalPathBody is the answer's body to a percent-encoded redirect
// path, from the canonical-path function or the web ACL
// (edgespec.NonCanonicalPathBody).
const NonCanonicalPathBody = edgespec.NonCanonicalPathBody

// ResultFunctionGeneratedResponse is x-edge-result-type for an answer a
// viewer-request function generated. The local edge logs it for a
// generated answer below 400; at 400 and above it logs ResultError, as
// the web ACL's refusal of the same request is logged.
const ResultFunctionGeneratedResponse = "FunctionGeneratedResponse"

// localDistributionID is the context.distributionId the local edge's
// functions see.
const localDistributionID = "ELOCALEDGE0000"

// runViewerRequest runs a behaviour's viewer-request function fn on r
// (the redirects': the canonical-path JavaScript infra deploys with WAF
// off, edgespec.CanonicalPathFunction), before the cache, as CloudFront
// does. It returns the request to go
// on with (r itself when the function left it alone), or answered with the
// status and x-edge-result-type when the function generated the answer or
// failed: a failure is CloudFront's 503 (execution error) or 502
// (validation error), logged here with the reason.
func (e *Edge) runViewerRequest(w http.ResponseWriter, r *http.Request, id string, fn *cloudfrontjs.Function) (next *http.Request, status int, result string, answered bool) {
	req := cloudfrontjs.RequestFromHTTP(r)
	ev := viewerEvent(r, id)
	ev.Request = req
	res, err := fn.ViewerRequest(r.Context(), ev)
	switch {
	case err != nil:
		status = cloudfrontjs.StatusFor(err)
		e.log.Warn("localedge: viewer-request function failed", "function", fn.Name(), "status", status, "error", err)
		writeFunctionError(w, status, err)
		return r, status, ResultError, true
	case res.Response != nil:
		status, result = res.Response.StatusCode, ResultFunctionGeneratedResponse
		if status >= 400 {
			result = ResultError
		}
		w.Header()["X-Cache"] = []string{result + " from cloudfront"}
		res.Response.WriteTo(w, r.Method == http.MethodHead)
		return r, status, result, true
	case requestUnchanged(&req, res.Request):
		return r, 0, "", false
	default:
		return cloudfrontjs.ApplyRequest(r, &req, res.Request), 0, "", false
	}
}

// requestUnchanged reports whether the function returned the request as
// it got it, the redirect hit's common case, without building a new one.
func requestUnchanged(before, after *cloudfrontjs.Request) bool {
	if before.URI != after.URI || len(before.Querystring) != len(after.Querystring) ||
		len(before.Headers) != len(after.Headers) || len(before.Cookies) != len(after.Cookies) {
		return false
	}
	same := func(a, b cloudfrontjs.Values) bool {
		for k, v := range a {
			w, ok := b[k]
			if !ok || v.Value != w.Value || len(v.MultiValue) != len(w.MultiValue) {
				return false
			}
			for i := range v.MultiValue {
				if v.MultiValue[i].Value != w.MultiValue[i].Value {
					return false
				}
			}
		}
		return true
	}
	return same(before.Querystring, after.Querystring) && same(before.Headers, after.Headers) && same(before.Cookies, after.Cookies)
}

// viewerIP is event.viewer.ip for a connection from remoteAddr.
func viewerIP(remoteAddr string) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		return remoteAddr
	}
	return host
}

// writeFunctionError is CloudFront's answer when a function fails
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/http-503-service-unavailable.html#http-503-function-execution-error,
// https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/http-502-bad-gateway.html#http-502-function-validation-error).
// The viewer gets no detail; the log has it.
func writeFunctionError(w http.ResponseWriter, status int, err error) {
	reason := "The CloudFront function associated with the cache behavior failed (FunctionExecutionError)."
	if errors.Is(err, cloudfrontjs.ErrInvalidResult) {
		reason = "The CloudFront function returned an invalid value (FunctionValidationError)."
	}
	body := strconv.Itoa(status) + " ERROR\nThe request could not be satisfied.\n" + reason + "\n"
	h := w.Header()
	h.Set("Content-Type", "text/plain")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Server", "CloudFront")
	h["X-Cache"] = []string{ResultError + " from cloudfront"}
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}

// responseFunctionWriter runs a behaviour's viewer-response function fn
// on the answer written through it, from the cache or the origin, as
// CloudFront does: when the status and headers are written, before the
// body, and not for a status of 400 or above, on which CloudFront does not
// run it
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/edge-function-restrictions-all.html#function-restrictions-status-codes).
// The function's headers replace the answer's, but for those CloudFront
// never shows a function (X-Cache, X-Amz-Cf-Id), which stay. A function
// that fails is CloudFront's 503 or 502 and the answer's body is dropped.
type responseFunctionWriter struct {
	http.ResponseWriter
	e      *Edge
	r      *http.Request
	id     string
	fn     *cloudfrontjs.Function
	code   int
	failed bool
}

func (w *responseFunctionWriter) WriteHeader(status int) {
	if w.code != 0 {
		return
	}
	w.code = status
	if status < 400 {
		w.code, w.failed = w.e.runViewerResponse(w.ResponseWriter, w.r, w.id, w.fn, status)
		if w.failed {
			return
		}
	}
	w.ResponseWriter.WriteHeader(w.code)
}

func (w *responseFunctionWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.failed {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *responseFunctionWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// runViewerResponse runs fn on the answer of status whose headers are in
// w, sets the headers it returns and returns the status to send, or
// answers the function's failure itself (failed).
func (e *Edge) runViewerResponse(w http.ResponseWriter, r *http.Request, id string, fn *cloudfrontjs.Function, status int) (int, bool) {
	h := w.Header()
	resp := cloudfrontjs.ResponseFromHTTP(status, h)
	ev := viewerEvent(r, id)
	ev.Request, ev.Response = cloudfrontjs.RequestFromHTTP(r), &resp
	out, err := fn.ViewerResponse(r.Context(), ev)
	if err != nil {
		status = cloudfrontjs.StatusFor(err)
		e.log.Warn("localedge: viewer-response function failed", "function", fn.Name(), "status", status, "error", err)
		for k := range h {
			if !cloudfrontjs.DisallowedHeader(k) && k != "Via" {
				delete(h, k)
			}
		}
		writeFunctionError(w, status, err)
		return status, true
	}
	for k := range h {
		if !cloudfrontjs.DisallowedHeader(k) {
			delete(h, k)
		}
	}
	for k, vs := range out.Header() {
		h[k] = vs
	}
	return out.StatusCode, false
}

// viewerEvent is the part of a function's event that r and its request ID
// give, the same for a viewer request and a viewer response.
func viewerEvent(r *http.Request, id string) cloudfrontjs.Event {
	return cloudfrontjs.Event{
		Context: cloudfrontjs.Context{DistributionDomainName: r.Host, DistributionID: localDistributionID, RequestID: id},
		Viewer:  cloudfrontjs.Viewer{IP: viewerIP(r.RemoteAddr)},
	}
}
