package managefn

import (
	"context"
	"fmt"
	"net/http"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/audit"
	"github.com/shortlink-dev/shortener/shared/link"
)

// ResourceAudit is the audit log's resource.
const ResourceAudit = "/v1/audit"

// AuditEntry is an audit entry as GET /v1/audit shows it (audit.View,
// which the audit log's copy in S3 shares).
type AuditEntry = audit.View

// AuditActor is who made a change.
type AuditActor = audit.ViewActor

// AuditTarget is what a change was made to.
type AuditTarget = audit.ViewTarget

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
		out.Entries = append(out.Entries, audit.ViewOf(e))
	}
	return apigw.JSON(http.StatusOK, out, map[string]string{"Cache-Control": "no-store"}), nil
}
