package originauthfn

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"log/slog"
	"strings"

	"github.com/aws/aws-lambda-go/events"
)

// HeaderName is the origin custom header CloudFront adds to each request it
// sends to the redirect origin, and the authorizer's identity source.
const HeaderName = "X-Origin-Verify"

// IdentitySource is HeaderName as an HTTP API identity source expression.
const IdentitySource = "$request.header." + HeaderName

// Secrets gives the values the origin accepts now: the current one and,
// after a rotation, the previous one.
type Secrets interface {
	Values(ctx context.Context) ([]string, error)
}

// Options are what New builds a Handler from: the values the origin accepts
// and the log.
type Options struct {
	Secrets Secrets
	Log     *slog.Logger
}

// Handler answers HTTP API Lambda authorizer events (payload format 2.0,
// simple responses).
type Handler struct {
	Options
}

// New builds a handler from o.
func New(o Options) *Handler { return &Handler{Options: o} }

// Handle allows the request when its HeaderName value equals an accepted
// secret. It returns an error, which API Gateway answers with 500 and does
// not cache, only when no secret can be read at all; a wrong value is a
// plain deny (403), cached like an allow.
func (h *Handler) Handle(ctx context.Context, req events.APIGatewayV2CustomAuthorizerV2Request) (events.APIGatewayV2CustomAuthorizerSimpleResponse, error) {
	secrets, err := h.Secrets.Values(ctx)
	if err != nil {
		return events.APIGatewayV2CustomAuthorizerSimpleResponse{}, fmt.Errorf("origin secret: %w", err)
	}
	got := header(req.Headers, HeaderName)
	ok := Match(got, secrets)
	if !ok && h.Log != nil {
		// Never the value: a near miss must not leak the secret to the logs.
		h.Log.WarnContext(ctx, "origin request refused: wrong origin secret",
			"route", req.RouteKey, "request_id", req.RequestContext.RequestID, "source_ip", req.RequestContext.HTTP.SourceIP)
	}
	return events.APIGatewayV2CustomAuthorizerSimpleResponse{IsAuthorized: ok}, nil
}

// Match reports whether got equals one of secrets, without telling through
// its timing how much of got was right or how long a secret is: it compares
// SHA-256 digests in constant time, every one of them. An empty got or an
// empty secret never matches.
func Match(got string, secrets []string) bool {
	if got == "" {
		return false
	}
	g := sha256.Sum256([]byte(got))
	found := 0
	for _, s := range secrets {
		if s == "" {
			continue
		}
		d := sha256.Sum256([]byte(s))
		found |= subtle.ConstantTimeCompare(g[:], d[:])
	}
	return found == 1
}

// header reads name from an HTTP API event's headers, which API Gateway
// lower-cases in payload format 2.0; any spelling is accepted.
func header(h map[string]string, name string) string {
	if v, ok := h[strings.ToLower(name)]; ok {
		return v
	}
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}
