package localgw

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
)

// The fixed parts of every event: there is one local account, API and stage.
const (
	AccountID = "000000000000"
	APIID     = "local"
	Stage     = "local"
)

// requestTimeLayout is requestContext.requestTime's layout, as in
// "15/May/2020:06:01:09 +0000".
const requestTimeLayout = "02/Jan/2006:15:04:05 -0700"

// Event builds the REST API proxy event API Gateway would send for r on
// route. body is r's body, already read. apiKeyID is the ID of the
// request's API key when the route needs one (it becomes
// identity.apiKeyId, and the key itself identity.apiKey), or "".
// requestID becomes requestContext.requestId.
//
// The gateway is addressed like a custom domain: there is no stage in the
// path, so path and requestContext.path are both the path as called:
// percent-encoded on a REST API route, decoded on an HTTP API one.
func Event(r *http.Request, body []byte, route Route, apiKeyID string, requestID string) events.APIGatewayProxyRequest {
	now := time.Now().UTC()
	path := r.URL.EscapedPath()
	stage := Stage
	if route.API == HTTPAPI {
		// An HTTP API decodes the path (httpapi.go); the gateway has
		// already answered 400 where it cannot. Its stage is $default.
		if decoded, ok := httpAPIPath(path); ok {
			path = decoded
		}
		stage = "$default"
	}
	params, _ := route.params(path)
	headers, multi := eventHeaders(r)

	ev := events.APIGatewayProxyRequest{
		Resource:          route.resource(),
		Path:              path,
		HTTPMethod:        r.Method,
		Headers:           headers,
		MultiValueHeaders: multi,
		PathParameters:    params,
		RequestContext: events.APIGatewayProxyRequestContext{
			AccountID:         AccountID,
			ResourceID:        resourceID(route.resource()),
			Stage:             stage,
			DomainName:        hostOnly(r.Host),
			DomainPrefix:      strings.SplitN(hostOnly(r.Host), ".", 2)[0],
			RequestID:         requestID,
			ExtendedRequestID: extendedRequestID(requestID),
			Protocol:          r.Proto,
			Identity: events.APIGatewayRequestIdentity{
				SourceIP:  hostOnly(r.RemoteAddr),
				UserAgent: r.UserAgent(),
			},
			ResourcePath:     route.resource(),
			Path:             path,
			HTTPMethod:       r.Method,
			RequestTime:      now.Format(requestTimeLayout),
			RequestTimeEpoch: now.UnixMilli(),
			APIID:            APIID,
		},
	}
	if apiKeyID != "" {
		ev.RequestContext.Identity.APIKeyID = apiKeyID
		ev.RequestContext.Identity.APIKey = lastValue(r.Header, "X-Api-Key")
	}
	if q := r.URL.Query(); len(q) > 0 {
		// API Gateway decodes query parameters (but not the path).
		ev.QueryStringParameters = make(map[string]string, len(q))
		ev.MultiValueQueryStringParameters = make(map[string][]string, len(q))
		for k, vs := range q {
			ev.QueryStringParameters[k] = vs[len(vs)-1]
			ev.MultiValueQueryStringParameters[k] = slices.Clone(vs)
		}
	}
	if utf8.Valid(body) {
		ev.Body = string(body)
	} else {
		ev.Body = base64.StdEncoding.EncodeToString(body)
		ev.IsBase64Encoded = true
	}
	return ev
}

// eventHeaders copies r's headers into both maps and adds the ones API
// Gateway adds. Host is not in r.Header: net/http moves it to r.Host.
func eventHeaders(r *http.Request) (map[string]string, map[string][]string) {
	multi := make(map[string][]string, len(r.Header)+4)
	for k, vs := range r.Header {
		multi[k] = slices.Clone(vs)
	}
	if r.Host != "" {
		multi["Host"] = []string{r.Host}
	}
	// API Gateway appends the caller's address to X-Forwarded-For and says
	// which port and scheme the caller used.
	if ip := hostOnly(r.RemoteAddr); ip != "" {
		if prior := r.Header.Values("X-Forwarded-For"); len(prior) > 0 {
			multi["X-Forwarded-For"] = []string{strings.Join(prior, ", ") + ", " + ip}
		} else {
			multi["X-Forwarded-For"] = []string{ip}
		}
	}
	proto := "http"
	if r.TLS != nil {
		proto = "https"
	}
	multi["X-Forwarded-Port"] = []string{localPort(r, proto)}
	multi["X-Forwarded-Proto"] = []string{proto}

	single := make(map[string]string, len(multi))
	for k, vs := range multi {
		if len(vs) > 0 {
			single[k] = vs[len(vs)-1] // API Gateway: the last value wins
		}
	}
	return single, multi
}

// localPort is the port the caller connected to.
func localPort(r *http.Request, proto string) string {
	if addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		if _, port, err := net.SplitHostPort(addr.String()); err == nil {
			return port
		}
	}
	if _, port, err := net.SplitHostPort(r.Host); err == nil && port != "" {
		return port
	}
	if proto == "https" {
		return "443"
	}
	return "80"
}

// hostOnly drops the port from "host:port"; anything else is returned as is.
func hostOnly(hostport string) string {
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		return host
	}
	return hostport
}

// lastValue is the header's last value, the one API Gateway keeps.
func lastValue(h http.Header, name string) string {
	vs := h.Values(name)
	if len(vs) == 0 {
		return ""
	}
	return vs[len(vs)-1]
}

// resourceID stands in for API Gateway's resource id: six base-36
// characters, stable for a resource.
func resourceID(resource string) string {
	sum := sha256.Sum256([]byte(resource))
	id := new(big.Int).SetBytes(sum[:8]).Text(36)
	for len(id) < 6 {
		id = "0" + id
	}
	return id[:6]
}

// extendedRequestID stands in for API Gateway's extended request id, eleven
// bytes in base64 such as "TWegAcC4EowCHnA=", derived from the request id.
func extendedRequestID(requestID string) string {
	sum := sha256.Sum256([]byte(requestID))
	return base64.StdEncoding.EncodeToString(sum[:11])
}

// Write sends resp as API Gateway would: Headers and MultiValueHeaders
// merged (a value in both is sent once), the status code, and the body,
// base64-decoded when IsBase64Encoded. A response API Gateway would refuse
// (no valid status, a body that is not base64 though it says so) is a 502.
func Write(w http.ResponseWriter, resp events.APIGatewayProxyResponse) {
	body := []byte(resp.Body)
	if resp.IsBase64Encoded {
		var err error
		if body, err = base64.StdEncoding.DecodeString(resp.Body); err != nil {
			writeMessage(w, http.StatusBadGateway, "Internal server error")
			return
		}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 599 {
		writeMessage(w, http.StatusBadGateway, "Internal server error")
		return
	}
	h := w.Header()
	for k, vs := range resp.MultiValueHeaders {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	for k, v := range resp.Headers {
		if !slices.Contains(h.Values(k), v) {
			h.Add(k, v)
		}
	}
	if h.Get("Content-Length") == "" && bodyAllowed(resp.StatusCode) {
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	w.WriteHeader(resp.StatusCode)
	if bodyAllowed(resp.StatusCode) {
		_, _ = w.Write(body) // the client went away; nothing to tell it
	}
}

// bodyAllowed is false for the statuses HTTP forbids a body on.
func bodyAllowed(status int) bool {
	return status != http.StatusNoContent && status != http.StatusNotModified
}

// writeMessage answers like API Gateway's own errors: {"message": "..."}.
func writeMessage(w http.ResponseWriter, status int, message string) {
	body, _ := json.Marshal(map[string]string{"message": message}) // a map of strings always marshals
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	if status == http.StatusBadGateway {
		h["x-amzn-ErrorType"] = []string{"InternalServerErrorException"} // spelt as AWS does
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
