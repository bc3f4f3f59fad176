package managefn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/audit"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/workspace"
)

// API Gateway resources of the keys API: a workspace's admins create,
// list, rotate and revoke its API keys (docs/api.md, "Keys: /v1/keys").
const (
	ResourceKeys      = "/v1/keys"
	ResourceKey       = "/v1/keys/{id}"
	ResourceKeyRotate = "/v1/keys/{id}/rotate"
)

// Bounds of POST /v1/keys.
const (
	// DefaultKeyRole is the role of a key created without one: editor,
	// what a script that makes links needs, and no more; an admin key
	// is asked for by name.
	DefaultKeyRole   = workspace.RoleEditor
	MaxKeyNoteLength = 100
	MaxKeyDays       = 3650
)

// KeyInfo is a key as the keys API lists it: never the key, never its
// full hash.
type KeyInfo struct {
	ID     string `json:"id"`
	Role   string `json:"role"`
	Note   string `json:"note,omitempty"`
	Status string `json:"status"`
	// CreatedAt is absent for a key whose item has no creation time.
	CreatedAt string `json:"created_at,omitempty"`
	ExpiresAt string `json:"expires_at,omitempty"`
	RevokedAt string `json:"revoked_at,omitempty"`
}

// KeyCreated is a new key, the only answer that ever holds it.
type KeyCreated struct {
	// Key is the API key itself, shown once.
	Key string `json:"key"`
	KeyInfo
	// Replaces is the ID of the key a rotation revoked.
	Replaces string `json:"replaces,omitempty"`
	// Warning says what is left to do when a rotation's new key works
	// but the old one could not be revoked.
	Warning string `json:"warning,omitempty"`
}

// KeyList is GET /v1/keys's answer, oldest key first.
type KeyList struct {
	Workspace string    `json:"workspace"`
	Keys      []KeyInfo `json:"keys"`
}

// createKeyRequest is POST /v1/keys's body; every field is optional.
type createKeyRequest struct {
	Role          *string `json:"role"`
	Note          *string `json:"note"`
	ExpiresInDays *int    `json:"expires_in_days"`
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func keyInfo(r apikey.Record, now time.Time) KeyInfo {
	status := string(r.Status)
	if r.Status == apikey.StatusActive && r.Expired(now) {
		status = "expired"
	}
	return KeyInfo{ID: r.ID(), Role: r.RoleOrAdmin(), Note: r.Note, Status: status,
		CreatedAt: stamp(r.CreatedAt), ExpiresAt: stamp(r.ExpiresAt), RevokedAt: stamp(r.RevokedAt)}
}

// keys answers the keys routes for an admin p of its workspace; the
// caller checked the role.
func (h *Handler) keys(ctx context.Context, req *events.APIGatewayProxyRequest, p apigw.Principal) (events.APIGatewayProxyResponse, error) {
	if h.Keys == nil {
		return events.APIGatewayProxyResponse{}, fmt.Errorf("no keys table: %w", link.ErrNotFound)
	}
	switch req.Resource {
	case ResourceKeys:
		switch req.HTTPMethod {
		case http.MethodGet:
			return h.listKeys(ctx, p)
		case http.MethodPost:
			return h.createKey(ctx, req, p)
		}
		return events.APIGatewayProxyResponse{}, methodNotAllowed("GET, POST")
	case ResourceKeyRotate:
		if req.HTTPMethod != http.MethodPost {
			return events.APIGatewayProxyResponse{}, methodNotAllowed("POST")
		}
		return h.rotateKey(ctx, req, p)
	}
	if req.HTTPMethod != http.MethodDelete {
		return events.APIGatewayProxyResponse{}, methodNotAllowed("DELETE")
	}
	return h.revokeKey(ctx, req, p)
}

func (h *Handler) listKeys(ctx context.Context, p apigw.Principal) (events.APIGatewayProxyResponse, error) {
	recs, err := h.Keys.List(ctx, p.Owner)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	now := h.Now()
	out := KeyList{Workspace: p.Owner, Keys: make([]KeyInfo, 0, len(recs))}
	for _, r := range recs {
		out.Keys = append(out.Keys, keyInfo(r, now))
	}
	return apigw.JSON(http.StatusOK, out, map[string]string{"Cache-Control": "no-store"}), nil
}

func (h *Handler) createKey(ctx context.Context, req *events.APIGatewayProxyRequest, p apigw.Principal) (events.APIGatewayProxyResponse, error) {
	body, err := h.createKeyBody(req)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	role, note := DefaultKeyRole, ""
	if body.Role != nil {
		if err := workspace.CheckRole(*body.Role); err != nil {
			return events.APIGatewayProxyResponse{}, &link.FieldError{Field: "role", Reason: fmt.Sprintf("must be viewer, editor or admin, got %q", *body.Role)}
		}
		role = *body.Role
	}
	if body.Note != nil {
		if err := checkNote(*body.Note); err != nil {
			return events.APIGatewayProxyResponse{}, err
		}
		note = *body.Note
	}
	now := h.Now().UTC().Truncate(time.Millisecond)
	var expires time.Time
	if body.ExpiresInDays != nil {
		if d := *body.ExpiresInDays; d < 1 || d > MaxKeyDays {
			return events.APIGatewayProxyResponse{}, &link.FieldError{Field: "expires_in_days", Reason: fmt.Sprintf("must be 1 to %d days, got %d", MaxKeyDays, d)}
		}
		expires = now.AddDate(0, 0, *body.ExpiresInDays)
	}
	key, rec, err := apikey.IssueExpiring(ctx, h.Keys, h.KeyRandom, p.Owner, "", note, role, now, expires)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	h.Log.InfoContext(ctx, "api key created", "workspace", p.Owner, "key", rec.ID(), "role", role, "actor", p.Actor)
	info := keyInfo(rec, now)
	h.auditKey(ctx, req, p, audit.ActionCreate, rec.ID(), nil, audit.Snapshot(info))
	return apigw.JSON(http.StatusCreated, KeyCreated{Key: key, KeyInfo: info}, map[string]string{"Cache-Control": "no-store"}), nil
}

// createKeyBody decodes POST /v1/keys's body; none at all is every
// default.
func (h *Handler) createKeyBody(req *events.APIGatewayProxyRequest) (createKeyRequest, error) {
	var body createKeyRequest
	raw, err := apigw.Body(req)
	if err != nil {
		return body, err
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return body, nil
	}
	return body, apigw.DecodeJSON(req, &body)
}

func checkNote(note string) error {
	if !utf8.ValidString(note) || utf8.RuneCountInString(note) > MaxKeyNoteLength {
		return &link.FieldError{Field: "note", Reason: fmt.Sprintf("must be at most %d characters of UTF-8", MaxKeyNoteLength)}
	}
	for _, r := range note {
		if unicode.IsControl(r) {
			return &link.FieldError{Field: "note", Reason: "must not hold control characters"}
		}
	}
	return nil
}

// ownedKey finds the key of p's workspace whose ID is the path's id.
// Another workspace's key is 404, as an absent one is.
func (h *Handler) ownedKey(ctx context.Context, req *events.APIGatewayProxyRequest, p apigw.Principal) (apikey.Record, error) {
	id := req.PathParameters["id"]
	if !keyID(id) {
		return apikey.Record{}, &link.FieldError{Field: "id", Reason: fmt.Sprintf("must be a key's ID: %d lower-case hex digits", apikey.IDLength)}
	}
	recs, err := h.Keys.List(ctx, p.Owner)
	if err != nil {
		return apikey.Record{}, err
	}
	var found []apikey.Record
	for _, r := range recs {
		if r.Owner == p.Owner && r.ID() == id {
			found = append(found, r)
		}
	}
	switch len(found) {
	case 0:
		return apikey.Record{}, fmt.Errorf("key %q: %w", id, link.ErrNotFound)
	case 1:
		return found[0], nil
	}
	// Two keys whose hashes start alike (about one in four billion per
	// pair): which one is meant must not be a guess.
	return apikey.Record{}, &link.DetailError{Kind: link.ErrConflict, Detail: "two keys of this workspace share the ID " + id + ": revoke them with the shortener keys command"}
}

func keyID(id string) bool {
	if len(id) != apikey.IDLength {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func (h *Handler) revokeKey(ctx context.Context, req *events.APIGatewayProxyRequest, p apigw.Principal) (events.APIGatewayProxyResponse, error) {
	rec, err := h.ownedKey(ctx, req, p)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	if p.Actor == apigw.KeyActor(rec.Hash) {
		// The answer would be the last this key ever gets, and it may be
		// the caller's only admin credential: rotate it instead, which
		// answers with its successor.
		return events.APIGatewayProxyResponse{}, &link.DetailError{Kind: link.ErrConflict,
			Detail: "this request is made with that key: revoke it with another admin credential, or rotate it (POST /v1/keys/" + rec.ID() + "/rotate)"}
	}
	now := h.Now().UTC().Truncate(time.Millisecond)
	if rec.Status == apikey.StatusRevoked {
		return noContent(), nil
	}
	after, err := h.Keys.Revoke(ctx, rec.Hash, now)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	h.Log.InfoContext(ctx, "api key revoked", "workspace", p.Owner, "key", rec.ID(), "actor", p.Actor)
	h.auditKey(ctx, req, p, audit.ActionDelete, rec.ID(), audit.Snapshot(keyInfo(rec, now)), audit.Snapshot(keyInfo(after, now)))
	return noContent(), nil
}

func (h *Handler) rotateKey(ctx context.Context, req *events.APIGatewayProxyRequest, p apigw.Principal) (events.APIGatewayProxyResponse, error) {
	old, err := h.ownedKey(ctx, req, p)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	if old.Status != apikey.StatusActive {
		return events.APIGatewayProxyResponse{}, &link.DetailError{Kind: link.ErrConflict, Detail: "key " + old.ID() + " is revoked: create a new key instead"}
	}
	now := h.Now().UTC().Truncate(time.Millisecond)
	key, rec, err := apikey.Rotate(ctx, h.Keys, h.KeyRandom, old.Hash, "", "", now)
	if key == "" {
		if errors.Is(err, apikey.ErrRevoked) {
			// Revoked between the listing and the rotation.
			return events.APIGatewayProxyResponse{}, &link.DetailError{Kind: link.ErrConflict, Detail: "key " + old.ID() + " is revoked: create a new key instead"}
		}
		return events.APIGatewayProxyResponse{}, err
	}
	out := KeyCreated{Key: key, KeyInfo: keyInfo(rec, now), Replaces: old.ID()}
	h.auditKey(ctx, req, p, audit.ActionCreate, rec.ID(), nil, audit.Snapshot(out.KeyInfo))
	if err != nil {
		// The new key exists and is shown only now: answer it, and say
		// the old one still works.
		h.Log.ErrorContext(ctx, "api key rotated, the old one not revoked", "workspace", p.Owner, "key", old.ID(), "error", err.Error())
		out.Warning = "the old key " + old.ID() + " is still active: revoke it with DELETE /v1/keys/" + old.ID()
	} else {
		revoked := old
		revoked.Status, revoked.RevokedAt = apikey.StatusRevoked, now
		h.auditKey(ctx, req, p, audit.ActionDelete, old.ID(), audit.Snapshot(keyInfo(old, now)), audit.Snapshot(keyInfo(revoked, now)))
	}
	h.Log.InfoContext(ctx, "api key rotated", "workspace", p.Owner, "key", rec.ID(), "replaces", old.ID(), "actor", p.Actor)
	return apigw.JSON(http.StatusCreated, out, map[string]string{"Cache-Control": "no-store"}), nil
}

func noContent() events.APIGatewayProxyResponse {
	return events.APIGatewayProxyResponse{StatusCode: http.StatusNoContent, Headers: map[string]string{"Cache-Control": "no-store"}}
}

// auditKey puts a change to a key on the audit log, right after it;
// before and after are KeyInfo snapshots, which never hold the key or
// its hash (audit.Snapshot redacts a field named so anyway).
func (h *Handler) auditKey(ctx context.Context, req *events.APIGatewayProxyRequest, p apigw.Principal, action, id string, before, after json.RawMessage) {
	if h.Audit == nil {
		return
	}
	e := apigw.AuditEntry(req, p, h.Now().UTC())
	e.Action, e.Target, e.TargetID, e.Before, e.After = action, audit.TargetKey, id, before, after
	_, pending := audit.WithPending(ctx, e)
	apigw.FlushAudit(ctx, h.Log, h.Metrics, h.Audit, pending)
}
