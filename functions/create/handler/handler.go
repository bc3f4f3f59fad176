// Package handler answers POST /v1/links: it validates the request, draws a
// code or normalises the alias, writes the link with a conditional put, and
// makes the request safe to retry under an Idempotency-Key. The Lambda in
// functions/create and the local gateway run this same handler.
package handler

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/edgecache"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkapi"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/metrics"
)

// Codes draws generated codes.
type Codes interface {
	Next() (string, error)
	Length() int
}

// DefaultMaxAttempts bounds the draws for one generated code. At 30 B links
// in a 7-character space one draw in 117 collides, so five in a row happen
// once in 2e10 creates: reaching the bound means the generator is broken,
// and issuance stops with a 500 rather than loop.
const DefaultMaxAttempts = 5

// Handler creates links.
type Handler struct {
	Store       linkstore.Store
	Codes       Codes
	Rules       link.Rules
	Present     linkapi.Presenter
	Now         func() time.Time
	Log         *slog.Logger
	Metrics     *metrics.Emitter
	MaxAttempts int
	// Edge is invalidated when a custom alias is created, since a 404 for
	// it may sit in the edge's negative cache (seed 003). Nil: no edge.
	Edge edgecache.Invalidator
}

// Handle answers one API Gateway proxy event.
func (h *Handler) Handle(ctx context.Context, req events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	resp, err := h.create(ctx, &req)
	if err != nil {
		resp = apigw.Error(ctx, h.Log, &req, err)
	}
	if ferr := h.Metrics.Flush(); ferr != nil {
		h.Log.WarnContext(ctx, "flush metrics", "error", ferr.Error())
	}
	return resp, nil
}

func (h *Handler) create(ctx context.Context, req *events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	owner, err := apigw.Owner(req)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	if req.HTTPMethod != http.MethodPost {
		return apigw.ProblemMethod.With("use POST to create a link").Response(), nil
	}
	var wire linkapi.CreateRequest
	if err := apigw.DecodeJSON(req, &wire); err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	domainReq, err := wire.Domain()
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	now := h.Now().UTC()
	v, err := h.Rules.Validate(domainReq, now)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}

	var idem *linkstore.Idempotency
	if key := apigw.Header(req, "Idempotency-Key"); key != "" {
		if err := checkIdempotencyKey(key); err != nil {
			return events.APIGatewayProxyResponse{}, err
		}
		idem = &linkstore.Idempotency{Owner: owner, Key: key, RequestHash: fingerprint(wire), ExpiresAt: now.Add(linkstore.IdempotencyWindow)}
		if resp, done, err := h.replay(ctx, idem); done || err != nil {
			return resp, err
		}
	}

	l := link.Link{
		Owner:          owner,
		URL:            v.URL,
		Alias:          v.Alias,
		CreatedAt:      now.Truncate(time.Millisecond),
		UpdatedAt:      now.Truncate(time.Millisecond),
		ExpiresAt:      v.ExpiresAt.Truncate(time.Second),
		Status:         link.StatusActive,
		Version:        1,
		RedirectStatus: v.RedirectStatus,
	}
	attempts := h.MaxAttempts
	if attempts <= 0 {
		attempts = DefaultMaxAttempts
	}
	for range attempts {
		if l.Code = v.AliasKey; l.Code == "" {
			if l.Code, err = h.draw(); err != nil {
				return events.APIGatewayProxyResponse{}, err
			}
		}
		body, err := json.Marshal(h.Present.Link(l))
		if err != nil {
			return events.APIGatewayProxyResponse{}, err
		}
		if idem != nil {
			idem.Code, idem.Response = l.Code, body
		}
		err = h.Store.Create(ctx, l, idem)
		var taken *linkstore.ConflictError
		switch {
		case err == nil:
			if l.CustomAlias() {
				edgecache.Purger{Edge: h.Edge, Log: h.Log, Metrics: h.Metrics}.
					Purge(ctx, req.RequestContext.RequestID, l.EdgePaths(h.Present.CodeLength)...)
			}
			return created(l.Code, body, false), nil
		case !errors.As(err, &taken):
			return events.APIGatewayProxyResponse{}, err
		case taken.Taken == linkstore.TakenIdempotencyKey || idem != nil && v.AliasKey != "":
			// A concurrent request with the same key won the race (for an
			// alias it may show as the alias being taken): answer as it did.
			if resp, done, err := h.replay(ctx, idem); done || err != nil {
				return resp, err
			}
			if taken.Taken == linkstore.TakenIdempotencyKey {
				return events.APIGatewayProxyResponse{}, fmt.Errorf("idempotency record vanished: %w", link.ErrUnavailable)
			}
			return apigw.ProblemConflict.With(fmt.Sprintf("the alias %q is already taken", v.Alias)).Response(), nil
		case v.AliasKey != "":
			// An alias is never silently changed into another.
			return apigw.ProblemConflict.With(fmt.Sprintf("the alias %q is already taken", v.Alias)).Response(), nil
		}
		h.Metrics.Add("CodeCollisions", metrics.Count, 1)
		h.Log.WarnContext(ctx, "generated code collided", "code_length", h.Codes.Length())
	}
	return events.APIGatewayProxyResponse{}, fmt.Errorf("%d generated codes in a row were taken; refusing to issue more", attempts)
}

// draw returns a generated code that does not spell a reserved path.
func (h *Handler) draw() (string, error) {
	for {
		code, err := h.Codes.Next()
		if err != nil || !link.IsReserved(code) {
			return code, err
		}
	}
}

// replay answers a request whose Idempotency-Key was seen before: the
// first answer again for the same body, 422 for another. done is false
// when the key is unused.
func (h *Handler) replay(ctx context.Context, idem *linkstore.Idempotency) (resp events.APIGatewayProxyResponse, done bool, err error) {
	rec, err := h.Store.GetIdempotency(ctx, idem.Owner, idem.Key)
	switch {
	case errors.Is(err, link.ErrNotFound):
		return resp, false, nil
	case err != nil:
		return resp, false, err
	case rec.RequestHash != idem.RequestHash:
		return resp, false, apigw.ErrIdempotencyMismatch
	}
	return created(rec.Code, rec.Response, true), true, nil
}

func created(code string, body []byte, replayed bool) events.APIGatewayProxyResponse {
	h := map[string]string{"Location": "/v1/links/" + code}
	if replayed {
		h["Idempotent-Replayed"] = "true"
	}
	return apigw.Raw(http.StatusCreated, body, h)
}

// fingerprint hashes the decoded request, not its bytes, so the same
// request sent with other spacing or key order is still the same request.
func fingerprint(r linkapi.CreateRequest) string {
	b, _ := json.Marshal(r) // plain strings and numbers always marshal
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func checkIdempotencyKey(k string) error {
	if len(k) > 255 {
		return &link.FieldError{Field: "Idempotency-Key", Reason: "must be at most 255 characters"}
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return &link.FieldError{Field: "Idempotency-Key", Reason: "must be printable ASCII without spaces"}
		}
	}
	return nil
}
