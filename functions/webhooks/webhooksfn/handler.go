// Package webhooksfn answers the webhook subscriptions API: POST and GET
// /v1/webhooks, DELETE /v1/webhooks/{id} and GET
// /v1/webhooks/{id}/deliveries. Subscriptions are owner-scoped like links:
// a caller sees and deletes only its own, and anyone else's is 404. The
// signing secret is drawn here and shown once, in the 201; it is kept in
// the webhooks table (encrypted at rest) for the delivery function to sign
// with, and never logged. A receiver URL is checked by the SSRF guard
// (after DNS resolution) before anything is stored. The Lambda in
// functions/webhooks and the local gateway run this same handler.
package webhooksfn

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/audit"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/webhook"
)

// API Gateway resources the handler serves.
const (
	ResourceWebhooks   = "/v1/webhooks"
	ResourceWebhook    = "/v1/webhooks/{id}"
	ResourceDeliveries = "/v1/webhooks/{id}/deliveries"
)

// DeliveriesPage is how many recent attempts GET .../deliveries lists.
const DeliveriesPage = 50

// URLChecker checks a receiver URL; webhook.Guard satisfies it.
type URLChecker interface {
	CheckURL(ctx context.Context, raw string) error
}

var _ URLChecker = webhook.Guard{}

// Options build a Handler.
type Options struct {
	Store  webhook.Store
	Owners apigw.Owners
	Guard  URLChecker
	// Rand draws IDs and secrets; crypto/rand when nil.
	Rand    io.Reader
	Now     func() time.Time
	Log     *slog.Logger
	Metrics *metrics.Emitter
	// Audit records each subscription created or deleted; nil records
	// none. The DynamoDB store writes the entry in the change's own
	// transaction (dynamo.WebhookStore.Audited).
	Audit audit.Recorder
}

// Handler serves the webhook routes.
type Handler struct{ o Options }

// New returns a handler.
func New(o Options) *Handler {
	if o.Rand == nil {
		o.Rand = rand.Reader
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	return &Handler{o: o}
}

// Handle answers one API Gateway proxy event.
func (h *Handler) Handle(ctx context.Context, req events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	resp, err := h.route(ctx, &req)
	if err != nil {
		resp = apigw.Error(ctx, h.o.Log, &req, err)
	}
	if ferr := h.o.Metrics.Flush(); ferr != nil {
		h.o.Log.WarnContext(ctx, "flush metrics", "error", ferr.Error())
	}
	return resp, nil
}

func (h *Handler) route(ctx context.Context, req *events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	// Webhooks send a workspace's events elsewhere: an admin's to manage,
	// and to list (a listing shows where they go).
	p, err := apigw.Authorize(ctx, req, h.o.Owners, apigw.RoleAdmin)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	caller := p // who the audit log names
	owner := p.Owner
	id := req.PathParameters["id"]
	switch {
	case req.Resource == ResourceWebhooks && req.HTTPMethod == http.MethodPost:
		return h.create(ctx, req, caller)
	case req.Resource == ResourceWebhooks && req.HTTPMethod == http.MethodGet:
		return h.list(ctx, owner)
	case req.Resource == ResourceWebhook && req.HTTPMethod == http.MethodDelete:
		return h.delete(ctx, req, caller, id)
	case req.Resource == ResourceDeliveries && req.HTTPMethod == http.MethodGet:
		return h.deliveries(ctx, owner, id)
	}
	return events.APIGatewayProxyResponse{}, fmt.Errorf("no route %s %s: %w", req.HTTPMethod, req.Resource, link.ErrNotFound)
}

// createRequest is the body of POST /v1/webhooks.
type createRequest struct {
	URL       *string  `json:"url"`
	Events    []string `json:"events"`
	HumanOnly bool     `json:"human_only"`
}

// Subscription is a subscription as the API lists it. It has no secret
// field at all, so no listing can carry one.
type Subscription struct {
	ID        string   `json:"id"`
	URL       string   `json:"url"`
	Events    []string `json:"events"`
	HumanOnly bool     `json:"human_only"`
	Disabled  bool     `json:"disabled"`
	CreatedAt string   `json:"created_at"`
}

// Created is the answer to a subscription's creation: the only answer
// that shows its signing secret.
type Created struct {
	Subscription
	Secret string `json:"secret"`
}

func present(s webhook.Subscription) Subscription {
	evs := append([]string(nil), s.Events...)
	webhook.SortEvents(evs)
	return Subscription{ID: s.ID, URL: s.URL, Events: evs, HumanOnly: s.HumanOnly, Disabled: s.Disabled,
		CreatedAt: s.CreatedAt.UTC().Format(time.RFC3339Nano)}
}

// pendingEntry is ctx carrying the audit entry of a change to the
// subscription id, for the store to write in the change's transaction,
// and the entry for apigw.FlushAudit to write if it did not; ctx alone
// without an audit log. The snapshots are the listing's form, which has
// no secret field (and Redact would catch one).
func (h *Handler) pendingEntry(ctx context.Context, req *events.APIGatewayProxyRequest, caller apigw.Principal, action, id string, before, after *webhook.Subscription) (context.Context, *audit.Pending) {
	if h.o.Audit == nil {
		return ctx, nil
	}
	e := apigw.AuditEntry(req, caller, h.o.Now())
	e.Action, e.Target, e.TargetID = action, audit.TargetWebhook, id
	if before != nil {
		e.Before = audit.Snapshot(present(*before))
	}
	if after != nil {
		e.After = audit.Snapshot(present(*after))
	}
	return audit.WithPending(ctx, e)
}

// delete answers DELETE /v1/webhooks/{id}. It reads the subscription
// first, for the audit entry's before.
func (h *Handler) delete(ctx context.Context, req *events.APIGatewayProxyRequest, caller apigw.Principal, id string) (events.APIGatewayProxyResponse, error) {
	if !validID(id) {
		return events.APIGatewayProxyResponse{}, fmt.Errorf("webhook %q: %w", id, link.ErrNotFound)
	}
	var before *webhook.Subscription
	if h.o.Audit != nil {
		sub, err := h.o.Store.Get(ctx, caller.Owner, id)
		if err != nil {
			return events.APIGatewayProxyResponse{}, err
		}
		before = &sub
	}
	actx, pending := h.pendingEntry(ctx, req, caller, audit.ActionDelete, id, before, nil)
	if err := h.o.Store.Delete(actx, caller.Owner, id); err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	apigw.FlushAudit(ctx, h.o.Log, h.o.Metrics, h.o.Audit, pending)
	return events.APIGatewayProxyResponse{StatusCode: http.StatusNoContent, Headers: map[string]string{"Cache-Control": "no-store"}}, nil
}

func (h *Handler) create(ctx context.Context, req *events.APIGatewayProxyRequest, caller apigw.Principal) (events.APIGatewayProxyResponse, error) {
	owner := caller.Owner
	var in createRequest
	if err := apigw.DecodeJSON(req, &in); err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	if in.URL == nil || *in.URL == "" {
		return events.APIGatewayProxyResponse{}, &link.FieldError{Field: "url", Reason: "is required"}
	}
	if err := webhook.ValidateEvents(in.Events); err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	if err := h.o.Guard.CheckURL(ctx, *in.URL); err != nil {
		if errors.Is(err, webhook.ErrForbiddenAddress) {
			h.o.Metrics.Add("ReceiverRefused", metrics.Count, 1)
		}
		return events.APIGatewayProxyResponse{}, err
	}
	id, err := h.newID()
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	secret, err := webhook.NewSecret(h.o.Rand)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	evs := append([]string(nil), in.Events...)
	webhook.SortEvents(evs)
	sub := webhook.Subscription{ID: id, Owner: owner, URL: *in.URL, Events: evs, HumanOnly: in.HumanOnly,
		Secret: secret, CreatedAt: h.o.Now().UTC().Truncate(time.Millisecond)}
	actx, pending := h.pendingEntry(ctx, req, caller, audit.ActionCreate, id, nil, &sub)
	if err := h.o.Store.Create(actx, sub); err != nil {
		if errors.Is(err, link.ErrConflict) {
			return apigw.ProblemConflict.With(fmt.Sprintf("an API key's owner has at most %d webhooks; delete one first", webhook.MaxSubscriptions)).Response(), nil
		}
		return events.APIGatewayProxyResponse{}, err
	}
	apigw.FlushAudit(ctx, h.o.Log, h.o.Metrics, h.o.Audit, pending)
	h.o.Metrics.Add("WebhookCreated", metrics.Count, 1)
	out := Created{Subscription: present(sub), Secret: secret}
	return apigw.JSON(http.StatusCreated, out, map[string]string{"Location": ResourceWebhooks + "/" + id}), nil
}

func (h *Handler) list(ctx context.Context, owner string) (events.APIGatewayProxyResponse, error) {
	subs, err := h.o.Store.List(ctx, owner)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	out := struct {
		Webhooks []Subscription `json:"webhooks"`
	}{Webhooks: make([]Subscription, 0, len(subs))}
	for _, s := range subs {
		out.Webhooks = append(out.Webhooks, present(s))
	}
	return apigw.JSON(http.StatusOK, out, nil), nil
}

// Delivery is one attempt as the API shows it.
type Delivery struct {
	EventID      string `json:"event_id"`
	Event        string `json:"event"`
	Attempt      int    `json:"attempt"`
	Status       string `json:"status"`
	ResponseCode int    `json:"response_code,omitempty"`
	At           string `json:"at"`
	NextRetry    string `json:"next_retry,omitempty"`
}

func (h *Handler) deliveries(ctx context.Context, owner, id string) (events.APIGatewayProxyResponse, error) {
	if !validID(id) {
		return events.APIGatewayProxyResponse{}, fmt.Errorf("webhook %q: %w", id, link.ErrNotFound)
	}
	// The subscription first, so another owner's is 404 like a missing one.
	if _, err := h.o.Store.Get(ctx, owner, id); err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	ds, err := h.o.Store.Deliveries(ctx, owner, id, DeliveriesPage)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	out := struct {
		Deliveries []Delivery `json:"deliveries"`
	}{Deliveries: make([]Delivery, 0, len(ds))}
	for _, d := range ds {
		o := Delivery{EventID: d.EventID, Event: d.Event, Attempt: d.Attempt, Status: d.Status,
			ResponseCode: d.ResponseCode, At: d.At.UTC().Format(time.RFC3339Nano)}
		if !d.NextRetry.IsZero() {
			o.NextRetry = d.NextRetry.UTC().Format(time.RFC3339Nano)
		}
		out.Deliveries = append(out.Deliveries, o)
	}
	return apigw.JSON(http.StatusOK, out, nil), nil
}

// idEncoding writes IDs in lower-case base32 without padding.
var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// newID draws "wh_" + 26 base32 characters (128 bits).
func (h *Handler) newID() (string, error) {
	b := make([]byte, 16)
	if _, err := io.ReadFull(h.o.Rand, b); err != nil {
		return "", fmt.Errorf("draw webhook id: %w", err)
	}
	return "wh_" + idEncoding.EncodeToString(b), nil
}

var idPattern = regexp.MustCompile(`^wh_[a-z2-7]{26}$`)

// validID checks a path's ID before any lookup, so junk never reaches
// the table's key.
func validID(id string) bool {
	return idPattern.MatchString(id)
}
