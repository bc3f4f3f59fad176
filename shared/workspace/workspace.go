package workspace

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Roles, weakest first. A role allows everything the roles before it do.
const (
	RoleViewer = "viewer"
	RoleEditor = "editor"
	RoleAdmin  = "admin"
)

// Roles lists the roles weakest first.
var Roles = []string{RoleViewer, RoleEditor, RoleAdmin}

// rank is the role's place in Roles, -1 for anything else.
func rank(role string) int { return slices.Index(Roles, role) }

// CheckRole refuses anything but one of Roles.
func CheckRole(role string) error {
	if rank(role) < 0 {
		return fmt.Errorf("%w: a role is one of %s, got %q", ErrInvalid, strings.Join(Roles, ", "), role)
	}
	return nil
}

// Allows says whether a caller with role have may do what needs role
// need. An unknown role allows nothing, not even what a viewer may do.
func Allows(have, need string) bool {
	h, n := rank(have), rank(need)
	return h >= 0 && n >= 0 && h >= n
}

// Errors of the members store.
var (
	// ErrNotMember: the user is not a member of the workspace.
	ErrNotMember = errors.New("not a member of the workspace")
	// ErrLastAdmin: the change would leave the workspace without an
	// admin member.
	ErrLastAdmin = errors.New("the workspace's last admin")
	// ErrInvalid: a role, user or workspace ID breaks its rule.
	ErrInvalid = errors.New("invalid member")
	// ErrChanged: a concurrent change won; read again and retry.
	ErrChanged = errors.New("the membership changed concurrently")
)

// MaxIDLength bounds a workspace ID (an owner ID, apikey.MaxOwnerLength)
// and a user's subject.
const MaxIDLength = 128

// CheckID refuses a workspace ID or user subject that is empty, too long
// or not printable ASCII without spaces: the same rule as an owner's.
func CheckID(what, id string) error {
	if id == "" || len(id) > MaxIDLength {
		return fmt.Errorf("%w: %s is 1 to %d characters", ErrInvalid, what, MaxIDLength)
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			return fmt.Errorf("%w: %s is printable ASCII without spaces", ErrInvalid, what)
		}
	}
	return nil
}

// Personal is the workspace a signed-in user has without being anyone's
// member: "user:" and the token's subject, the owner ID their links had
// before workspaces existed.
func Personal(sub string) string { return "user:" + sub }

// Member is one user's membership of one workspace.
type Member struct {
	Workspace string
	// User is the user's subject (the token's sub).
	User    string
	Role    string
	AddedAt time.Time
	// AddedBy is the actor who put the member ("user:<sub>", "key:...",
	// or "operator" for the CLI).
	AddedBy string
}

// Check refuses a member with a bad workspace, user or role.
func (m Member) Check() error {
	if err := CheckID("workspace", m.Workspace); err != nil {
		return err
	}
	if err := CheckID("user", m.User); err != nil {
		return err
	}
	return CheckRole(m.Role)
}

// Workspace is a workspace's own record: that it exists, since when, and
// how many of its members are admins (kept with every change, so the last
// admin is refused atomically).
type Workspace struct {
	ID        string
	CreatedAt time.Time
	CreatedBy string
	Admins    int
}

// Store is the members table.
type Store interface {
	// Get returns user's membership of ws; ErrNotMember when none.
	Get(ctx context.Context, ws, user string) (Member, error)
	// List returns ws's members, by user.
	List(ctx context.Context, ws string) ([]Member, error)
	// OfUser returns up to limit of user's memberships, by workspace.
	OfUser(ctx context.Context, user string, limit int) ([]Member, error)
	// Put adds m or changes its role, creating the workspace record when
	// there is none. Demoting the last admin is ErrLastAdmin.
	Put(ctx context.Context, m Member) error
	// Remove removes user from ws: ErrNotMember when not one,
	// ErrLastAdmin when the last admin.
	Remove(ctx context.Context, ws, user string) error
	// Workspace reads ws's record; ErrNoWorkspace when there is none.
	Workspace(ctx context.Context, ws string) (Workspace, error)
	// Ensure creates ws's record unless there is one, and says whether it
	// did. It never changes an existing record.
	Ensure(ctx context.Context, w Workspace) (bool, error)
}

// ErrNoWorkspace: the workspace has no record.
var ErrNoWorkspace = errors.New("no such workspace")

// SortMembers orders members by workspace, then user.
func SortMembers(ms []Member) {
	slices.SortFunc(ms, func(a, b Member) int {
		if c := strings.Compare(a.Workspace, b.Workspace); c != 0 {
			return c
		}
		return strings.Compare(a.User, b.User)
	})
}
