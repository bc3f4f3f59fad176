// Package managefn answers the management API: GET /v1/links (the caller's
// links, newest first) and GET, PATCH and DELETE /v1/links/{code}. A caller
// sees and changes only its own links; anyone else's, an absent one and a
// tombstone are all 404, so existence never leaks. Changes are conditional
// on the version the caller read (If-Match, 412 on a lost update), and every
// change asks CloudFront to drop the link's cached redirect. The Lambda in
// functions/manage and the local gateway run this same handler.
//
// Reads go through the store's eventually consistent Get. Right after a
// change a read may still see the previous version; a conditional change
// made on it then answers 412 (retry after a GET), never overwrites.
package managefn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/audit"
	"github.com/shortlink-dev/shortener/shared/edgecache"
	"github.com/shortlink-dev/shortener/shared/edgemarks"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkapi"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/password"
	"github.com/shortlink-dev/shortener/shared/workspace"
)

// Store is what the management API needs of linkstore.Store.
type Store interface {
	Get(ctx context.Context, code string) (link.Link, error)
	Update(ctx context.Context, l link.Link, expect int64) error
	List(ctx context.Context, owner string, limit int, cursor string) ([]link.Link, string, error)
	Delete(ctx context.Context, owner, code string, expect int64, t link.Tombstone) error
	// GetTombstone reads a dead code's tombstone, for PATCH to tell its
	// former owner 410 rather than 404.
	GetTombstone(ctx context.Context, code string) (link.Tombstone, error)
}

var _ Store = (linkstore.Store)(nil)

// API Gateway resources the handler serves.
const (
	ResourceLinks = "/v1/links"
	ResourceLink  = "/v1/links/{code}"
	ResourceTags  = "/v1/tags"
)

// Page sizes of GET /v1/links.
const (
	DefaultPageSize = 20
	MaxPageSize     = linkstore.MaxPage
)

// Handler serves the management routes. The zero values of Grace and
// EdgeTimeout mean their defaults; Metrics may be nil.
type Handler struct {
	Store   Store
	Edge    edgecache.Invalidator
	Rules   link.Rules
	Present linkapi.Presenter
	// Grace is how long a deleted link's code is held back from reuse;
	// link.DefaultTombstoneGrace when zero.
	Grace time.Duration
	// EdgeTimeout bounds the wait for an invalidation;
	// edgecache.DefaultPurgeTimeout when zero.
	EdgeTimeout time.Duration
	// EdgeSettle is how long after a change the invalidation is sent
	// (config.InvalidationSettle; see edgecache.Purger), and EdgeSleep
	// waits it out (time.Sleep when nil).
	EdgeSettle time.Duration
	EdgeSleep  func(time.Duration)
	Now        func() time.Time
	Log        *slog.Logger
	Metrics    *metrics.Emitter
	// Owners resolves the caller's API key to its owner (the keys table).
	Owners apigw.Owners
	// Members is the members table, for the members API; nil answers its
	// routes 404.
	Members workspace.Store
	// Keys is the keys table, for the keys API; nil answers its routes
	// 404. KeyRandom draws new keys (crypto/rand when nil).
	Keys      apikey.Store
	KeyRandom io.Reader
	// HashPassword hashes a link's new password; password.Hash when nil.
	HashPassword func(pw string) (string, error)
	// BaseURL, when set, gives the short links' base URL per request in
	// place of Present's (the distribution's host, learnt at run time); a
	// failure answers 503.
	BaseURL linkapi.BaseURLFunc
	// EdgeHosts, when set, gives per request the hosts the edge answers
	// on besides the base URL's (the distribution's own name beside a
	// custom domain), refused as long URLs; a failure answers 503.
	EdgeHosts linkapi.HostsFunc
	// Marks, when set, are the edge marks of every Region whose redirect
	// serves the edge. Each change fences them (so no Region's redirect
	// gives the old data a long edge life from then on, whatever its
	// replica lags) and is invalidated only when one of them said an edge
	// may still hold the link, or could not be fenced
	// (docs/lifecycle.md, "Which changes need an invalidation"). nil:
	// every change is invalidated.
	Marks *edgemarks.Check
	// Audit records each edit and delete (shared/audit); nil records none.
	Audit audit.Recorder
	// AuditLog reads the audit log for GET /v1/audit; nil answers 404.
	AuditLog audit.Reader

	// entry is the audit entry of this request's change as the request
	// names it (who, from where), set on the request's copy of the
	// handler (route).
	entry audit.Entry
}

// Handle answers one API Gateway proxy event.
func (h *Handler) Handle(ctx context.Context, req events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	return apigw.Serve(ctx, h.Log, h.Metrics, &req, h.route), nil
}

func (h *Handler) route(ctx context.Context, req *events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	// Links: reads need a viewer, changes an editor; members and the
	// audit log need an admin. Checked before anything is read, so a
	// refusal says nothing of the link or member.
	need := apigw.ReadOrWrite(req.HTTPMethod)
	keys := req.Resource == ResourceKeys || req.Resource == ResourceKey || req.Resource == ResourceKeyRotate
	if req.Resource == ResourceMembers || req.Resource == ResourceMember || req.Resource == ResourceAudit || keys {
		need = apigw.RoleAdmin
	}
	p, err := apigw.Authorize(ctx, req, h.Owners, need)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	caller := p // who the audit log names
	if req.Resource == ResourceAudit {
		return h.auditLog(ctx, req, caller)
	}
	if keys {
		return h.keys(ctx, req, p)
	}
	if need == apigw.RoleAdmin {
		return h.members(ctx, req, p)
	}
	owner := p.Owner
	if h, err = h.underBaseURL(ctx); err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	// (h is this request's copy.)
	h.entry = apigw.AuditEntry(req, caller, time.Time{})
	switch req.Resource {
	case ResourceLinks:
		if req.HTTPMethod == http.MethodGet {
			return h.list(ctx, req, owner)
		}
		// POST is the create function's method on the same resource.
		return events.APIGatewayProxyResponse{}, methodNotAllowed("GET, POST")
	case ResourceLink:
		code := req.PathParameters["code"]
		switch req.HTTPMethod {
		case http.MethodGet:
			return h.get(ctx, owner, code)
		case http.MethodPatch:
			return h.patch(ctx, req, owner, code)
		case http.MethodDelete:
			return h.delete(ctx, req, owner, code)
		}
		return events.APIGatewayProxyResponse{}, methodNotAllowed("GET, PATCH, DELETE")
	case ResourceQR:
		return h.qr(ctx, req, owner)
	case ResourceTags:
		if req.HTTPMethod == http.MethodGet {
			return h.tags(ctx, owner)
		}
		return events.APIGatewayProxyResponse{}, methodNotAllowed("GET")
	}
	return events.APIGatewayProxyResponse{}, fmt.Errorf("no route %s %s: %w", req.HTTPMethod, req.Resource, link.ErrNotFound)
}

// underBaseURL is a copy of h presenting and validating under the base
// URL BaseURL gives and refusing the hosts EdgeHosts gives (linkapi.Serving).
func (h *Handler) underBaseURL(ctx context.Context) (*Handler, error) {
	c := *h
	var err error
	c.Present, c.Rules, err = linkapi.Serving(ctx, h.BaseURL, h.EdgeHosts, h.Present, h.Rules)
	return &c, err
}

func (h *Handler) get(ctx context.Context, owner, code string) (events.APIGatewayProxyResponse, error) {
	l, err := h.owned(ctx, owner, code)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	return h.detail(l), nil
}

func (h *Handler) list(ctx context.Context, req *events.APIGatewayProxyRequest, owner string) (events.APIGatewayProxyResponse, error) {
	limit, err := pageSize(query(req, "limit"))
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	cursor := query(req, "cursor")
	// Checked here too, so a bad cursor is a 400 naming it whatever the
	// store does with one.
	if _, err := linkstore.DecodeCursor(cursor); err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	q := query(req, "q")
	if utf8.RuneCountInString(q) > linkstore.MaxQueryLen {
		return events.APIGatewayProxyResponse{}, &link.FieldError{Field: "q", Reason: fmt.Sprintf("must be at most %d characters", linkstore.MaxQueryLen)}
	}
	tags, err := tagFilter(req)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	var lister linkstore.Lister = h.Store
	if len(tags) > 0 {
		tagged, ok := h.Store.(linkstore.Tagged)
		if !ok {
			return events.APIGatewayProxyResponse{}, fmt.Errorf("list by tag: the store keeps no tags: %w", link.ErrUnavailable)
		}
		lister = linkstore.TaggedLister{Store: tagged, Tags: tags}
	}
	var links []link.Link
	var next string
	if q == "" {
		links, next, err = lister.List(ctx, owner, limit, cursor)
	} else {
		// Through the owner's own list: a search never sees another
		// owner's links.
		links, next, err = linkstore.Search(ctx, lister, owner, q, limit, cursor)
	}
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	return apigw.JSON(http.StatusOK, h.Present.Page(links, next), nil), nil
}

// patch applies a partial change. Validation comes first and needs no
// lookup, so a 400 says nothing about whether the code exists.
func (h *Handler) patch(ctx context.Context, req *events.APIGatewayProxyRequest, owner, code string) (events.APIGatewayProxyResponse, error) {
	var body linkapi.PatchRequest
	if err := apigw.DecodeJSON(req, &body); err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	if err := body.ImportedClicksRefused(); err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	if body.Empty() {
		return events.APIGatewayProxyResponse{}, &link.FieldError{Field: "body",
			Reason: "names nothing to change; send url, expires_at, ttl_seconds, redirect_status, status, password, max_clicks, rules, targets, expired_url, forward_query, query_precedence, title, notes or tags"}
	}
	now := h.Now().UTC()
	ch, err := h.validate(body, now)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	cond, err := parseIfMatch(apigw.Header(req, "If-Match"))
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}

	old, err := h.owned(ctx, owner, code)
	if errors.Is(err, link.ErrNotFound) {
		if gone, terr := h.tombstoned(ctx, owner, code); terr != nil {
			return events.APIGatewayProxyResponse{}, terr
		} else if gone {
			return events.APIGatewayProxyResponse{}, &link.DetailError{Kind: link.ErrGone, Detail: "the link has expired or was deleted; create a new one"}
		}
	}
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	if old.Status == link.StatusDeleted || !now.Before(old.ExpiresAt) {
		// An expired link is already on its way to a tombstone (the
		// reclaim run's expiry step, or TTL and the stream consumer);
		// reviving it would race that, so it stays dead.
		return events.APIGatewayProxyResponse{}, &link.DetailError{Kind: link.ErrGone, Detail: "the link has expired or was deleted; create a new one"}
	}
	if !cond.matches(old.Version) {
		return events.APIGatewayProxyResponse{}, preconditionFailed(old.Version)
	}

	l := ch.apply(old)
	if ch.password != nil && *ch.password != "" {
		// Hashed only now, past every check that could refuse the patch:
		// a hash costs tens of milliseconds of CPU.
		hash := h.HashPassword
		if hash == nil {
			hash = password.Hash
		}
		if l.PasswordHash, err = hash(*ch.password); err != nil {
			return events.APIGatewayProxyResponse{}, fmt.Errorf("hash the link's password: %w", err)
		}
	}
	redirectSame := l.URL == old.URL && l.ExpiresAt.Equal(old.ExpiresAt) && l.RedirectStatus == old.RedirectStatus && l.Status == old.Status &&
		l.Features.Equal(old.Features)
	if redirectSame && l.Meta.Equal(old.Meta) {
		return h.detail(old), nil // nothing changes: no write, no version, no invalidation
	}
	l.Version = old.Version + 1
	l.UpdatedAt = changedAt(now, old)
	// Conditional on the version read, with or without If-Match: a writer
	// that read the same version and wrote first makes this one a 412,
	// never a silent overwrite.
	actx, pending := h.pendingEntry(ctx, audit.ActionUpdate, old.Code, l.UpdatedAt, audit.Link(old), audit.Link(l))
	if err := h.Store.Update(actx, l, old.Version); err != nil {
		if errors.Is(err, link.ErrPrecondition) {
			return events.APIGatewayProxyResponse{}, &link.DetailError{Kind: link.ErrPrecondition,
				Detail: "the link changed since it was read (version " + strconv.FormatInt(old.Version, 10) + "); GET it and retry"}
		}
		return events.APIGatewayProxyResponse{}, err
	}
	apigw.FlushAudit(ctx, h.Log, h.Metrics, h.Audit, pending)
	if !redirectSame {
		// A new title, notes or tags change no redirect: nothing at the
		// edge is stale.
		h.invalidate(ctx, req, l, l.UpdatedAt)
	}
	return h.detail(l), nil
}

// delete turns the caller's link into a tombstone; the redirect answers 410
// and the code is not issued again until the grace period has passed.
func (h *Handler) delete(ctx context.Context, req *events.APIGatewayProxyRequest, owner, code string) (events.APIGatewayProxyResponse, error) {
	cond, err := parseIfMatch(apigw.Header(req, "If-Match"))
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	// Read first even without If-Match: the alias's display spelling is
	// one of the paths to invalidate.
	l, err := h.owned(ctx, owner, code)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	if !cond.matches(l.Version) {
		return events.APIGatewayProxyResponse{}, preconditionFailed(l.Version)
	}
	var expect int64 // any version, without a precondition or with If-Match: *
	if cond != nil && !cond.any {
		expect = l.Version
	}
	t := link.NewTombstone(l.Code, owner, link.ReasonDeleted, changedAt(h.Now().UTC(), l), h.Grace)
	actx, pending := h.pendingEntry(ctx, audit.ActionDelete, l.Code, t.TombstonedAt, audit.Link(l), audit.Tombstone(t))
	if err := h.Store.Delete(actx, owner, l.Code, expect, t); err != nil {
		if errors.Is(err, link.ErrPrecondition) {
			return events.APIGatewayProxyResponse{}, &link.DetailError{Kind: link.ErrPrecondition, Detail: "the link changed since it was read; GET it and retry"}
		}
		return events.APIGatewayProxyResponse{}, err
	}
	apigw.FlushAudit(ctx, h.Log, h.Metrics, h.Audit, pending)
	h.invalidate(ctx, req, l, t.TombstonedAt)
	return events.APIGatewayProxyResponse{StatusCode: http.StatusNoContent, Headers: map[string]string{"Cache-Control": "no-store"}}, nil
}

// pendingEntry is ctx carrying the audit entry of a change to the link
// code at at, for a store that writes it in the change's transaction,
// and the entry for apigw.FlushAudit to write if none did; ctx alone
// without an audit log. (The link store's edits and deletes are single
// PutItems: the entry is written right after.)
func (h *Handler) pendingEntry(ctx context.Context, action, code string, at time.Time, before, after json.RawMessage) (context.Context, *audit.Pending) {
	if h.Audit == nil {
		return ctx, nil
	}
	e := h.entry
	e.At, e.Action, e.Target, e.TargetID, e.Before, e.After = at, action, audit.TargetLink, code, before, after
	return audit.WithPending(ctx, e)
}

// owned returns the caller's live link named by code; see linkstore.GetOwned.
func (h *Handler) owned(ctx context.Context, owner, code string) (link.Link, error) {
	return linkstore.GetOwned(ctx, h.Store, owner, code)
}

// tombstoned reports whether segment names a code whose tombstone was
// owner's link: deleted, or expired and tombstoned, and held back from
// reuse. Another owner's tombstone, like any other owner's link, is not
// told apart from a code that never was (404), so PATCH's 410 says
// nothing about other owners.
func (h *Handler) tombstoned(ctx context.Context, owner, segment string) (bool, error) {
	for _, key := range link.LookupKeys(segment) {
		t, err := h.Store.GetTombstone(ctx, key)
		if errors.Is(err, link.ErrNotFound) {
			continue
		}
		if err != nil {
			return false, fmt.Errorf("tombstone %q: %w", key, err)
		}
		if t.PrevOwner == owner {
			return true, nil
		}
	}
	return false, nil
}

// changes is a validated patch.
type changes struct {
	url            *string
	expiresAt      *time.Time
	redirectStatus *int
	status         *link.Status
	// password is the new password, "" to remove it; nil leaves it.
	password   *string
	maxClicks  *int64
	rules      *[]link.Rule
	targets    *[]link.Target
	expiredURL *string
	// keepQueryOut and queryPrecedence: nil leaves them; null in the
	// patch sets the defaults back (false, "").
	keepQueryOut    *bool
	queryPrecedence *link.QueryPrecedence
	// title, notes and tags: "" and nil remove them.
	title *string
	notes *string
	tags  *[]string
}

// validate checks each named field with the same rules create uses.
func (h *Handler) validate(body linkapi.PatchRequest, now time.Time) (changes, error) {
	var ch changes
	if body.URL != nil {
		u, err := h.Rules.NormalizeURL(*body.URL)
		if err != nil {
			return ch, err
		}
		ch.url = &u
	}
	if body.ExpiresAt != nil || body.TTLSeconds != nil {
		at, err := body.ExpiresAtTime()
		if err != nil {
			return ch, err
		}
		exp, err := h.Rules.Expiry(at, body.TTLSeconds, now)
		if err != nil {
			return ch, err
		}
		exp = exp.Truncate(time.Second) // the TTL attribute's precision, as on create
		ch.expiresAt = &exp
	}
	if body.RedirectStatus != nil {
		s, err := link.RedirectStatus(body.RedirectStatus)
		if err != nil {
			return ch, err
		}
		ch.redirectStatus = &s
	}
	if body.Status != nil {
		s, err := link.SettableStatus(body.Status)
		if err != nil {
			return ch, err
		}
		ch.status = &s
	}
	if err := h.validateFeatures(body, &ch); err != nil {
		return ch, err
	}
	return ch, validateMeta(body, &ch)
}

// validateMeta checks the title, notes and tags a patch names, with the
// rules create uses; null removes one.
func validateMeta(body linkapi.PatchRequest, ch *changes) error {
	var err error
	if ch.title, err = nullable(body.Title, link.ValidateTitle); err != nil {
		return err
	}
	if ch.notes, err = nullable(body.Notes, link.ValidateNotes); err != nil {
		return err
	}
	ch.tags, err = nullable(body.Tags, link.NormalizeTags)
	return err
}

// validateFeatures checks the redirect-rule fields a patch names, with the
// rules create uses; null (and [] for the lists) removes a field.
func (h *Handler) validateFeatures(body linkapi.PatchRequest, ch *changes) error {
	var err error
	if ch.password, err = nullable(body.Password, func(pw string) (string, error) { return pw, link.CheckPassword(pw) }); err != nil {
		return err
	}
	if ch.maxClicks, err = nullable(body.MaxClicks, func(n int64) (int64, error) { return n, link.CheckMaxClicks(n) }); err != nil {
		return err
	}
	if r := body.Rules; r.Set {
		rules, err := h.Rules.NormalizeRules(r.Value)
		if err != nil {
			return err
		}
		ch.rules = &rules
	}
	if t := body.Targets; t.Set {
		targets, err := h.Rules.NormalizeTargets(t.Value)
		if err != nil {
			return err
		}
		ch.targets = &targets
	}
	if ch.expiredURL, err = nullable(body.ExpiredURL, func(u string) (string, error) { return h.Rules.NormalizeURLField(u, "expired_url") }); err != nil {
		return err
	}
	if f := body.ForwardQuery; f.Set {
		out := !f.Null && !f.Value
		ch.keepQueryOut = &out
	}
	if f := body.QueryPrecedence; f.Set {
		var p link.QueryPrecedence
		if !f.Null {
			if p, err = link.CheckQueryPrecedence(f.Value); err != nil {
				return err
			}
		}
		ch.queryPrecedence = &p
	}
	return nil
}

// nullable is the change a nullable field of a patch asks for: nil when
// the patch leaves the field out, the zero value (the field removed) when
// it sends null, and otherwise the value sent as accept takes it.
func nullable[T any](f linkapi.Nullable[T], accept func(T) (T, error)) (*T, error) {
	if !f.Set {
		return nil, nil
	}
	var v T
	if !f.Null {
		var err error
		if v, err = accept(f.Value); err != nil {
			return nil, err
		}
	}
	return &v, nil
}

func (ch changes) apply(l link.Link) link.Link {
	replace(&l.URL, ch.url)
	replace(&l.ExpiresAt, ch.expiresAt)
	replace(&l.RedirectStatus, ch.redirectStatus)
	replace(&l.Status, ch.status)
	if ch.password != nil && *ch.password == "" {
		l.PasswordHash = "" // a new password is hashed by patch
	}
	replace(&l.MaxClicks, ch.maxClicks)
	replace(&l.Rules, ch.rules)
	replace(&l.Targets, ch.targets)
	replace(&l.ExpiredURL, ch.expiredURL)
	replace(&l.KeepQueryOut, ch.keepQueryOut)
	replace(&l.QueryPrecedence, ch.queryPrecedence)
	replace(&l.Title, ch.title)
	replace(&l.Notes, ch.notes)
	replace(&l.Tags, ch.tags)
	return l
}

// replace sets *field to the patch's value v, when the patch names the
// field (v is not nil).
func replace[T any](field, v *T) {
	if v != nil {
		*field = *v
	}
}

// invalidate asks the edge to drop l's cached answers, when its marks say
// an edge may hold one; see edgecache.Purger. changed is the change's
// time as saved: the new UpdatedAt, or the tombstone's time.
//
// The marks are read by fencing them, at once and before the settle time
// (edgemarks.Check.Fence): from then on no Region's redirect can give a
// long edge life to an answer built from the data before the change,
// however far its replica lags behind this one, and every such answer
// marked earlier is in what the fence returns. The settle time then lets
// those answers reach the edge before the invalidation is sent
// (docs/lifecycle.md, "A replica that lags").
func (h *Handler) invalidate(ctx context.Context, req *events.APIGatewayProxyRequest, l link.Link, changed time.Time) {
	p := edgecache.Purger{Edge: h.Edge, Settle: h.EdgeSettle, Sleep: h.EdgeSleep, Timeout: h.EdgeTimeout, Log: h.Log, Metrics: h.Metrics}
	if h.Marks != nil {
		// Not cut short by the request's cancellation: the change is saved.
		held, err := h.Marks.Fence(context.WithoutCancel(ctx), l.Code, changed, h.Now())
		p.Held = func(context.Context) (bool, error) { return held, err }
	}
	p.Purge(ctx, req.RequestContext.RequestID, l.EdgePaths()...)
}

// changedAt is the time a change of old saved at now carries: now, to the
// store's millisecond, or just after old's own when that is later (another
// clock's, by a hair). A link's times only rise, so an answer built from
// old data is always older than the fence of a change since
// (shared/edgemarks).
func changedAt(now time.Time, old link.Link) time.Time {
	at := now.Truncate(time.Millisecond)
	if next := old.UpdatedAt.Truncate(time.Millisecond).Add(time.Millisecond); at.Before(next) {
		return next
	}
	return at
}

func (h *Handler) detail(l link.Link) events.APIGatewayProxyResponse {
	return apigw.JSON(http.StatusOK, h.Present.Detail(l), map[string]string{"ETag": etag(l.Version)})
}

// preconditionFailed is the 412 of an If-Match that names another version.
func preconditionFailed(version int64) error {
	return &link.DetailError{Kind: link.ErrPrecondition,
		Detail: "If-Match does not name the link's current version " + etag(version) + "; GET it and retry"}
}

// methodNotAllowed is the 405 of a resource that answers allow.
func methodNotAllowed(allow string) error {
	return &apigw.MethodError{Allow: allow, Detail: "this resource answers " + allow}
}

// query reads a query string parameter; API Gateway puts the last of
// repeated values in QueryStringParameters.
func query(req *events.APIGatewayProxyRequest, name string) string {
	if v, ok := req.QueryStringParameters[name]; ok {
		return v
	}
	if vs := req.MultiValueQueryStringParameters[name]; len(vs) > 0 {
		return vs[len(vs)-1]
	}
	return ""
}

func pageSize(v string) (int, error) {
	if v == "" {
		return DefaultPageSize, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > MaxPageSize {
		return 0, &link.FieldError{Field: "limit", Reason: fmt.Sprintf("must be a whole number from 1 to %d", MaxPageSize)}
	}
	return n, nil
}

// tagFilter reads a listing's tag parameter: one or several tags,
// comma-separated (tag=a,b: links carrying any of them). A repeated
// parameter is refused rather than read as its last value, which is all
// API Gateway's single-value map keeps.
func tagFilter(req *events.APIGatewayProxyRequest) ([]string, error) {
	if len(req.MultiValueQueryStringParameters["tag"]) > 1 {
		return nil, &link.FieldError{Field: "tag", Reason: "is given once; name several tags comma-separated, as tag=a,b"}
	}
	v := query(req, "tag")
	if v == "" {
		return nil, nil
	}
	return linkstore.ParseTagFilter([]string{v})
}

// tags answers GET /v1/tags: the caller's tags with their link counts.
func (h *Handler) tags(ctx context.Context, owner string) (events.APIGatewayProxyResponse, error) {
	tagged, ok := h.Store.(linkstore.Tagged)
	if !ok {
		return events.APIGatewayProxyResponse{}, fmt.Errorf("count tags: the store keeps no tags: %w", link.ErrUnavailable)
	}
	counts, err := tagged.TagCounts(ctx, owner)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	out := linkapi.TagList{Tags: make([]linkapi.TagCount, 0, len(counts))}
	for _, c := range counts {
		out.Tags = append(out.Tags, linkapi.TagCount{Tag: c.Tag, Links: c.Links})
	}
	return apigw.JSON(http.StatusOK, out, nil), nil
}
