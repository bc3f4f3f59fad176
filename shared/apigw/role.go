package apigw

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/workspace"
)

// The roles a caller has in its workspace, weakest first
// (shared/workspace): a viewer reads, an editor also changes links, an
// admin also manages webhooks, members and keys.
const (
	RoleViewer = workspace.RoleViewer
	RoleEditor = workspace.RoleEditor
)

// ProblemMissingRole is a caller whose role in its workspace is below the
// one the call needs: 403, its detail naming the role needed.
var ProblemMissingRole = Problem{Type: ProblemBase + "missing-role", Title: "Missing role", Status: http.StatusForbidden}

// ProblemLastAdmin is a change that would leave a workspace without an
// admin member: 409.
var ProblemLastAdmin = Problem{Type: ProblemBase + "last-admin", Title: "The workspace's last admin", Status: http.StatusConflict}

// RoleError is a refusal for want of a role: Need is the role the call
// needs, Have the caller's.
type RoleError struct {
	Need, Have string
}

func (e *RoleError) Error() string {
	return fmt.Sprintf("missing role: needs %s, has %s", e.Need, e.Have)
}

// RequireRole refuses p unless its role allows what needs role need: a
// *RoleError, answered as ProblemMissingRole naming the role needed.
func RequireRole(p Principal, need string) error {
	if workspace.Allows(p.Role, need) {
		return nil
	}
	return &RoleError{Need: need, Have: p.Role}
}

// roleProblem maps a *RoleError or a workspace error, and says whether
// err was one.
func roleProblem(err error) (Problem, bool) {
	var re *RoleError
	switch {
	case errors.As(err, &re):
		have := re.Have
		if have == "" {
			have = "none"
		}
		return ProblemMissingRole.With(fmt.Sprintf("this call needs the %s role in the workspace; the caller's role is %s", re.Need, have)), true
	case errors.Is(err, workspace.ErrLastAdmin):
		return ProblemLastAdmin.With("a workspace keeps at least one admin: make another member admin first"), true
	case errors.Is(err, workspace.ErrNotMember):
		return ProblemNotFound.With("no such member"), true
	case errors.Is(err, workspace.ErrChanged):
		return ProblemUnavailable.With("the membership changed concurrently; retry"), true
	}
	return Problem{}, false
}

// Authorize returns the caller's workspace (its owner ID) when its role
// allows what needs role need: the principal as Resolve finds it, then
// RequireRole. Every /v1 handler calls it before it reads or writes.
func Authorize(ctx context.Context, req *events.APIGatewayProxyRequest, owners Owners, need string) (Principal, error) {
	p, err := Resolve(ctx, req, owners)
	if err != nil {
		return Principal{}, err
	}
	if err := RequireRole(p, need); err != nil {
		return Principal{}, err
	}
	return p, nil
}

// ReadOrWrite is the role a method needs on a resource of links: a
// viewer's to read (GET, HEAD), an editor's to change.
func ReadOrWrite(method string) string {
	if method == http.MethodGet || method == http.MethodHead {
		return RoleViewer
	}
	return RoleEditor
}
