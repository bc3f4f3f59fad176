package createfn

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
	"github.com/shortlink-dev/shortener/shared/audit"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkapi"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/password"
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
	// Owners resolves the caller's API key to its owner (the keys table).
	Owners apigw.Owners
	// BaseURL, when set, gives the short links' base URL per request in
	// place of Present's (the distribution's host, learnt at run time); a
	// failure answers 503.
	BaseURL linkapi.BaseURLFunc
	// EdgeHosts, when set, gives per request the hosts the edge answers
	// on besides the base URL's (the distribution's own name beside a
	// custom domain), refused as long URLs; a failure answers 503.
	EdgeHosts linkapi.HostsFunc
	// HashPassword hashes a link's password; password.Hash when nil.
	HashPassword func(pw string) (string, error)
	// Audit records each link created (shared/audit); nil records none.
	// A create under an Idempotency-Key writes its entry in its own
	// transaction when the store can (dynamo.LinkConfig.Audit).
	Audit audit.Recorder
}

// MaxConcurrentHashes bounds the password hashes one instance computes at
// once: each takes password.Default.Memory (19 MiB), so the eight items a
// batch writes at a time would otherwise ask for 152 MiB of a 256 MB
// function.
const MaxConcurrentHashes = 2

// hashSlots holds one token per hash running in this process (a Lambda
// instance), whichever Handler value runs it: underBaseURL copies the
// handler per request.
var hashSlots = make(chan struct{}, MaxConcurrentHashes)

// hashPassword hashes pw for storage, at most MaxConcurrentHashes at a time.
func (h *Handler) hashPassword(ctx context.Context, pw string) (string, error) {
	select {
	case hashSlots <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	defer func() { <-hashSlots }()
	hash := h.HashPassword
	if hash == nil {
		hash = password.Hash
	}
	enc, err := hash(pw)
	if err != nil {
		return "", fmt.Errorf("hash the link's password: %w", err)
	}
	return enc, nil
}

// API Gateway resources the handler serves.
const (
	ResourceLinks = "/v1/links"
	ResourceBatch = "/v1/links/batch"
)

// Handle answers one API Gateway proxy event.
func (h *Handler) Handle(ctx context.Context, req events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	return apigw.Serve(ctx, h.Log, h.Metrics, &req, h.route), nil
}

// route answers POST /v1/links/batch with batch, the rest with single.
func (h *Handler) route(ctx context.Context, req *events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	h, err := h.underBaseURL(ctx)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	if req.Resource == ResourceBatch {
		return h.batch(ctx, req)
	}
	return h.single(ctx, req)
}

// underBaseURL is a copy of h presenting and validating under the base
// URL BaseURL gives and refusing the hosts EdgeHosts gives (linkapi.Serving).
func (h *Handler) underBaseURL(ctx context.Context) (*Handler, error) {
	c := *h
	var err error
	c.Present, c.Rules, err = linkapi.Serving(ctx, h.BaseURL, h.EdgeHosts, h.Present, h.Rules)
	return &c, err
}

// single answers POST /v1/links.
func (h *Handler) single(ctx context.Context, req *events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	p, err := apigw.Authorize(ctx, req, h.Owners, apigw.RoleEditor)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	caller := p // who the audit log names
	owner := p.Owner
	if req.HTTPMethod != http.MethodPost {
		return events.APIGatewayProxyResponse{}, &apigw.MethodError{Detail: "use POST to create a link"}
	}
	var wire linkapi.CreateRequest
	if err := apigw.DecodeJSON(req, &wire); err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	now := h.Now().UTC()
	r := request{owner: owner, wire: wire, audit: apigw.AuditEntry(req, caller, now)}
	if key := apigw.Header(req, "Idempotency-Key"); key != "" {
		if err := checkIdempotencyKey(key); err != nil {
			return events.APIGatewayProxyResponse{}, err
		}
		r.idem = &linkstore.Idempotency{Owner: owner, Key: key, RequestHash: fingerprint(wire), ExpiresAt: now.Add(linkstore.IdempotencyWindow)}
	}
	c, err := h.create(ctx, r, now, true)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	return createdResponse(c), nil
}

// request is one create request as both POST /v1/links and each item of
// a batch hand it to create.
type request struct {
	owner string
	wire  linkapi.CreateRequest
	// idem, when set, makes the create exactly-once under idem.Key:
	// Owner, Key, RequestHash and ExpiresAt are filled in.
	idem *linkstore.Idempotency
	// audit is the create's audit entry as the request names it (who,
	// from where, when); create adds the link.
	audit audit.Entry
}

// created is a link this request wrote or, replayed, the one an earlier
// request with the same Idempotency-Key wrote.
type created struct {
	code     string
	body     []byte // the link as the API shows it
	replayed bool
}

// aliasTaken is the 409 whose detail names the alias.
func aliasTaken(alias string) error {
	return &link.DetailError{Kind: link.ErrConflict, Detail: fmt.Sprintf("the alias %q is already taken", alias)}
}

// create validates r and writes its link: the one path a single create
// and every item of a batch take, so both keep the same rules and the
// same uniqueness. With lookFirst, a request under an Idempotency-Key
// first looks for the key's record; the batch, which has already looked,
// passes false.
func (h *Handler) create(ctx context.Context, r request, now time.Time, lookFirst bool) (created, error) {
	domainReq, err := r.wire.Domain()
	if err != nil {
		return created{}, err
	}
	v, err := h.Rules.Validate(domainReq, now)
	if err != nil {
		return created{}, err
	}
	idem := r.idem
	if idem != nil && lookFirst {
		if c, done, err := h.replay(ctx, idem); done || err != nil {
			return c, err
		}
	}

	l := link.Link{
		Owner:          r.owner,
		URL:            v.URL,
		Alias:          v.Alias,
		CreatedAt:      now.Truncate(time.Millisecond),
		UpdatedAt:      now.Truncate(time.Millisecond),
		ExpiresAt:      v.ExpiresAt.Truncate(time.Second),
		Status:         v.Status,
		Version:        1,
		RedirectStatus: v.RedirectStatus,
		Features:       v.Features.Features,
		ImportedClicks: v.ImportedClicks,
		Meta:           v.Meta,
	}
	if v.Features.Password != "" {
		if l.PasswordHash, err = h.hashPassword(ctx, v.Features.Password); err != nil {
			return created{}, err
		}
	}
	attempts := h.MaxAttempts
	if attempts <= 0 {
		attempts = DefaultMaxAttempts
	}
	for range attempts {
		if l.Code = v.AliasKey; l.Code == "" {
			if l.Code, err = h.draw(); err != nil {
				return created{}, err
			}
		}
		body, err := json.Marshal(h.Present.Link(l))
		if err != nil {
			return created{}, err
		}
		if idem != nil {
			idem.Code, idem.Response = l.Code, body
		}
		actx, pending := h.pendingEntry(ctx, r.audit, l)
		err = h.Store.Create(actx, l, idem)
		var taken *linkstore.ConflictError
		switch {
		case err == nil:
			// Nothing to invalidate, not even for a custom alias whose 404
			// the edge may hold: that 404 leaves by itself within the
			// promise (package doc, "A new alias at the edge").
			apigw.FlushAudit(ctx, h.Log, h.Metrics, h.Audit, pending)
			return created{code: l.Code, body: body}, nil
		case !errors.As(err, &taken):
			return created{}, err
		case taken.Taken == linkstore.TakenIdempotencyKey || idem != nil && v.AliasKey != "":
			// A concurrent request with the same key won the race (for an
			// alias it may show as the alias being taken): answer as it did.
			if c, done, err := h.replay(ctx, idem); done || err != nil {
				return c, err
			}
			if taken.Taken == linkstore.TakenIdempotencyKey {
				return created{}, fmt.Errorf("idempotency record vanished: %w", link.ErrUnavailable)
			}
			return created{}, aliasTaken(v.Alias)
		case v.AliasKey != "":
			// An alias is never silently changed into another.
			return created{}, aliasTaken(v.Alias)
		}
		h.Metrics.Add("CodeCollisions", metrics.Count, 1)
		h.Log.WarnContext(ctx, "generated code collided", "code_length", h.Codes.Length())
	}
	return created{}, fmt.Errorf("%d generated codes in a row were taken; refusing to issue more", attempts)
}

// pendingEntry is ctx carrying the audit entry of l's create, for a store
// that writes it in the create's transaction, and the entry for
// apigw.FlushAudit to write if none did; ctx alone without an audit log.
func (h *Handler) pendingEntry(ctx context.Context, e audit.Entry, l link.Link) (context.Context, *audit.Pending) {
	if h.Audit == nil {
		return ctx, nil
	}
	e.Action, e.Target, e.TargetID, e.After = audit.ActionCreate, audit.TargetLink, l.Code, audit.Link(l)
	return audit.WithPending(ctx, e)
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
func (h *Handler) replay(ctx context.Context, idem *linkstore.Idempotency) (c created, done bool, err error) {
	rec, err := h.Store.GetIdempotency(ctx, idem.Owner, idem.Key)
	switch {
	case errors.Is(err, link.ErrNotFound):
		return c, false, nil
	case err != nil:
		return c, false, err
	case rec.RequestHash != idem.RequestHash:
		return c, false, apigw.ErrIdempotencyMismatch
	}
	return created{code: rec.Code, body: rec.Response, replayed: true}, true, nil
}

func createdResponse(c created) events.APIGatewayProxyResponse {
	h := map[string]string{"Location": "/v1/links/" + c.code}
	if c.replayed {
		h["Idempotent-Replayed"] = "true"
	}
	return apigw.Raw(http.StatusCreated, c.body, h)
}

// fingerprint hashes the decoded request, not its bytes, so the same
// request sent with other spacing or key order is still the same request.
func fingerprint(r linkapi.CreateRequest) string {
	sum := sha256.Sum256(canonicalJSON(r))
	return hex.EncodeToString(sum[:])
}

// canonicalJSON is the request as its fingerprint sees it: the password
// only as present or not. A fast hash of it, kept in the idempotency
// record for a day, would be a password guessable offline, which the
// link's slow hash exists to prevent; so a retry under the same key is
// compared without its password, and answered with the first link.
func canonicalJSON(r linkapi.CreateRequest) []byte {
	if r.Password != nil {
		r.Password = &redacted
	}
	b, _ := json.Marshal(r) // plain strings, numbers and lists of them always marshal
	return b
}

// redacted stands for any password in a fingerprint.
var redacted = "(password)"

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
