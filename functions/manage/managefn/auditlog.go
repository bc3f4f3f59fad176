package managefn

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/audit"
	"github.com/shortlink-dev/shortener/shared/link"
)

// ResourceAudit is the audit log's resource.
const ResourceAudit = "/v1/audit"

// AuditEntry is an audit entry as GET /v1/audit shows it.
type AuditEntry struct {
	ID     string          `json:"id"`
	At     string          `json:"at"`
	Actor  AuditActor      `json:"actor"`
	Source audit.Source    `json:"source"`
	Action string          `json:"action"`
	Target AuditTarget     `json:"target"`
	Before json.RawMessage `json:"before,omitempty"`
	After  json.RawMessage `json:"after,omitempty"`
}

// AuditActor is who made a change.
type AuditActor struct {
	ID       string `json:"id"`
	Username string `json:"username,omitempty"`
}

// AuditTarget is what a change was made to.
type AuditTarget struct {
	Type audit.TargetType `json:"type"`
	ID   string           `json:"id"`
}

// AuditPage is one page of GET /v1/audit, newest first.
type AuditPage struct {
	Entries    []AuditEntry `json:"entries"`
	NextCursor string       `json:"next_cursor,omitempty"`
}

// auditLog answers GET /v1/audit: the caller's workspace's log, to its
// admins only.
func (h *Handler) auditLog(ctx context.Context, req *events.APIGatewayProxyRequest, caller apigw.Principal) (events.APIGatewayProxyResponse, error) {
	if req.HTTPMethod != http.MethodGet {
		return events.APIGatewayProxyResponse{}, methodNotAllowed(http.MethodGet)
	}
	if err := apigw.RequireAdmin(caller, "read the audit log"); err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	if h.AuditLog == nil {
		return events.APIGatewayProxyResponse{}, fmt.Errorf("no audit log configured: %w", link.ErrNotFound)
	}
	f, err := audit.ParseFilter(func(name string) string { return query(req, name) })
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	p, err := h.AuditLog.Query(ctx, caller.Owner, f)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	out := AuditPage{Entries: make([]AuditEntry, 0, len(p.Entries)), NextCursor: p.Next}
	for _, e := range p.Entries {
		out.Entries = append(out.Entries, AuditEntry{
			ID: e.ID, At: e.At.UTC().Format(time.RFC3339Nano), Actor: AuditActor{ID: e.Actor.ID, Username: e.Actor.Username},
			Source: e.Source, Action: e.Action, Target: AuditTarget{Type: e.Target, ID: e.TargetID},
			// Redacted again on the way out: an entry written by an older
			// writer is held to today's list of secrets.
			Before: audit.Redact(e.Before), After: audit.Redact(e.After),
		})
	}
	return apigw.JSON(http.StatusOK, out, map[string]string{"Cache-Control": "no-store"}), nil
}
