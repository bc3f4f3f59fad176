package apigw

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/audit"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/metrics"
)

// AuditEntry is the audit entry of a change p asks for in req, at: its
// workspace (the owner), actor and source (the console's
// audit.ClientHeader, which the edge forwards to /v1 with every other
// viewer header). The caller adds the action, target and states.
func AuditEntry(req *events.APIGatewayProxyRequest, p Principal, at time.Time) audit.Entry {
	return audit.Entry{
		Workspace: p.Owner,
		At:        at,
		Actor:     audit.Actor{ID: p.Actor, Username: p.Username},
		Source:    audit.SourceOf(Header(req, audit.ClientHeader)),
	}
}

// RequireAdmin refuses, with 403 naming what only an admin may do, a
// principal whose role is not RoleAdmin.
func RequireAdmin(p Principal, what string) error {
	if p.Role != RoleAdmin {
		return &link.DetailError{Kind: ErrForbidden, Detail: "only a workspace's admins may " + what}
	}
	return nil
}

// FlushAudit writes the entry p holds unless the change's store wrote it
// in the change's transaction. The change has happened by then, and
// answering an error would invite a retry that makes it twice: a failed
// write is logged once and counted (metric AuditWriteFailures, alarmed),
// and the change is answered as it succeeded.
func FlushAudit(ctx context.Context, log *slog.Logger, m *metrics.Emitter, rec audit.Recorder, p *audit.Pending) {
	if p == nil {
		return
	}
	err := p.Flush(ctx, rec)
	if err == nil {
		return
	}
	e := p.Entry()
	if log != nil {
		log.ErrorContext(ctx, "audit entry not written", "error", err.Error(), "entry_id", e.ID,
			"workspace", e.Workspace, "target_type", string(e.Target), "target_id", e.TargetID, "action", e.Action,
			"actor", e.Actor.ID, "unavailable", errors.Is(err, context.DeadlineExceeded))
	}
	m.Add("AuditWriteFailures", metrics.Count, 1)
}
