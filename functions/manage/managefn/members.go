package managefn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/shortlink-dev/shortener/shared/audit"
	"net/http"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/workspace"
)

// API Gateway resources of the members API: a workspace's admins list,
// put and remove its members (docs/teams.md).
const (
	ResourceMembers = "/v1/members"
	ResourceMember  = "/v1/members/{user}"
)

// Member is a membership as the members API answers it.
type Member struct {
	User    string `json:"user"`
	Role    string `json:"role"`
	AddedAt string `json:"added_at"`
	AddedBy string `json:"added_by,omitempty"`
}

// MemberList is GET /v1/members's answer.
type MemberList struct {
	Workspace string   `json:"workspace"`
	Members   []Member `json:"members"`
}

// putMemberRequest is PUT /v1/members/{user}'s body.
type putMemberRequest struct {
	Role *string `json:"role"`
}

func present(m workspace.Member) Member {
	return Member{User: m.User, Role: m.Role, AddedAt: m.AddedAt.UTC().Format(time.RFC3339), AddedBy: m.AddedBy}
}

// members answers the members routes for an admin p of its workspace;
// the caller checked the role.
func (h *Handler) members(ctx context.Context, req *events.APIGatewayProxyRequest, p apigw.Principal) (events.APIGatewayProxyResponse, error) {
	if h.Members == nil {
		return events.APIGatewayProxyResponse{}, fmt.Errorf("no members table: %w", link.ErrNotFound)
	}
	if req.Resource == ResourceMembers {
		if req.HTTPMethod != http.MethodGet {
			return events.APIGatewayProxyResponse{}, methodNotAllowed("GET")
		}
		ms, err := h.Members.List(ctx, p.Owner)
		if err != nil {
			return events.APIGatewayProxyResponse{}, err
		}
		out := MemberList{Workspace: p.Owner, Members: make([]Member, 0, len(ms))}
		for _, m := range ms {
			out.Members = append(out.Members, present(m))
		}
		return apigw.JSON(http.StatusOK, out, nil), nil
	}
	user := req.PathParameters["user"]
	if err := workspace.CheckID("user", user); err != nil {
		return events.APIGatewayProxyResponse{}, &link.FieldError{Field: "user", Reason: fmt.Sprintf("must be a user's subject: 1 to %d printable ASCII characters without spaces", workspace.MaxIDLength)}
	}
	switch req.HTTPMethod {
	case http.MethodPut:
		var body putMemberRequest
		if err := apigw.DecodeJSON(req, &body); err != nil {
			return events.APIGatewayProxyResponse{}, err
		}
		if body.Role == nil {
			return events.APIGatewayProxyResponse{}, &link.FieldError{Field: "role", Reason: "is required: viewer, editor or admin"}
		}
		if err := workspace.CheckRole(*body.Role); err != nil {
			return events.APIGatewayProxyResponse{}, &link.FieldError{Field: "role", Reason: fmt.Sprintf("must be viewer, editor or admin, got %q", *body.Role)}
		}
		m := workspace.Member{Workspace: p.Owner, User: user, Role: *body.Role, AddedAt: h.Now().UTC().Truncate(time.Millisecond), AddedBy: p.Actor}
		before, had := h.memberState(ctx, p.Owner, user)
		if err := h.Members.Put(ctx, m); err != nil {
			return events.APIGatewayProxyResponse{}, err
		}
		got, err := h.Members.Get(ctx, p.Owner, user)
		if err != nil {
			return events.APIGatewayProxyResponse{}, err
		}
		h.Log.InfoContext(ctx, "member put", "workspace", p.Owner, "user", user, "role", m.Role, "actor", p.Actor)
		action := audit.ActionCreate
		if had {
			action = audit.ActionUpdate
		}
		h.auditMember(ctx, req, p, action, user, before, memberJSON(got))
		return apigw.JSON(http.StatusOK, present(got), nil), nil
	case http.MethodDelete:
		before, _ := h.memberState(ctx, p.Owner, user)
		if err := h.Members.Remove(ctx, p.Owner, user); err != nil {
			if errors.Is(err, workspace.ErrNotMember) {
				return events.APIGatewayProxyResponse{}, fmt.Errorf("member %q: %w", user, link.ErrNotFound)
			}
			return events.APIGatewayProxyResponse{}, err
		}
		h.Log.InfoContext(ctx, "member removed", "workspace", p.Owner, "user", user, "actor", p.Actor)
		h.auditMember(ctx, req, p, audit.ActionDelete, user, before, nil)
		return events.APIGatewayProxyResponse{StatusCode: http.StatusNoContent, Headers: map[string]string{"Cache-Control": "no-store"}}, nil
	}
	return events.APIGatewayProxyResponse{}, methodNotAllowed("PUT, DELETE")
}

// memberState is user's membership as the audit log shows it, and whether
// there was one; a failed read leaves the entry's before empty rather than
// refuse the change.
func (h *Handler) memberState(ctx context.Context, ws, user string) (json.RawMessage, bool) {
	m, err := h.Members.Get(ctx, ws, user)
	if err != nil {
		return nil, false
	}
	return memberJSON(m), true
}

func memberJSON(m workspace.Member) json.RawMessage {
	b, err := json.Marshal(present(m))
	if err != nil {
		return nil
	}
	return b
}

// auditMember puts a change to a member on the audit log, right after
// it: the members table's transactions are the workspace package's own.
func (h *Handler) auditMember(ctx context.Context, req *events.APIGatewayProxyRequest, p apigw.Principal, action, user string, before, after json.RawMessage) {
	if h.Audit == nil {
		return
	}
	e := apigw.AuditEntry(req, p, h.Now().UTC())
	e.Action, e.Target, e.TargetID, e.Before, e.After = action, audit.TargetMember, user, before, after
	_, pending := audit.WithPending(ctx, e)
	apigw.FlushAudit(ctx, h.Log, h.Metrics, h.Audit, pending)
}
