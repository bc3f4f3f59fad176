package localedge

import (
	"errors"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"time"

	"github.com/shortlink-dev/shortener/shared/edgespec"
)

// CloudFront's custom origin timeouts, at their defaults
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/DownloadDistValuesOrigin.html):
// 10 s to connect, 30 s for the origin's answer.
const (
	OriginConnectTimeout  = 10 * time.Second
	OriginResponseTimeout = 30 * time.Second
)

// FailoverStatusCodes are the origin group's failover criteria, as the
// description sets them (edgespec.FailoverStatusCodes); New refuses a
// group with others.
var FailoverStatusCodes = slices.Clone(edgespec.FailoverStatusCodes)

// HTTPOrigin is a custom origin CloudFront reaches over the network: a
// Region's API, served on its own address by the multi-Region local run.
// Requests go to target with their path as the viewer sent it and their
// headers (Host and X-Forwarded-* included, as the in-process origin gets
// them); an origin that cannot be reached gets the viewer CloudFront's
// 502, one that does not answer in time its 504
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/http-502-bad-gateway.html,
// .../http-504-gateway-timeout.html).
func HTTPOrigin(target *url.URL) http.Handler {
	transport := &http.Transport{
		DialContext:           (&net.Dialer{Timeout: OriginConnectTimeout}).DialContext,
		ResponseHeaderTimeout: OriginResponseTimeout,
		MaxIdleConnsPerHost:   64,
	}
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Host = pr.In.Host
			for _, h := range []string{"X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto"} {
				if v, ok := pr.In.Header[h]; ok {
					pr.Out.Header[h] = v
				}
			}
		},
		Transport: transport,
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			status := http.StatusBadGateway
			if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
				status = http.StatusGatewayTimeout
			}
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(status)
			_, _ = w.Write([]byte(http.StatusText(status) + ": CloudFront could not reach the origin\n"))
		},
	}
}

// OriginGroup plays a CloudFront origin group: GET, HEAD and OPTIONS
// requests go to primary, and again to secondary when primary's answer has one of
// FailoverStatusCodes (a connection failure or time-out is one: HTTPOrigin
// answers it 502 or 504). Other methods go to primary only, as CloudFront
// fails over no other
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/high_availability_origin_failover.html).
func OriginGroup(primary, secondary http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodOptions {
			primary.ServeHTTP(w, r)
			return
		}
		first := &captureWriter{header: http.Header{}}
		primary.ServeHTTP(first, r)
		if slices.Contains(FailoverStatusCodes, first.status()) {
			secondary.ServeHTTP(w, r)
			return
		}
		first.replay(w)
	})
}
