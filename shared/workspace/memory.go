package workspace

import (
	"context"
	"sync"
)

// Memory is an in-process Store with the DynamoDB adapter's behaviour.
type Memory struct {
	mu         sync.Mutex
	members    map[string]map[string]Member // workspace -> user -> member
	workspaces map[string]Workspace
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty store.
func NewMemory() *Memory {
	return &Memory{members: map[string]map[string]Member{}, workspaces: map[string]Workspace{}}
}

// Get implements Store.
func (s *Memory) Get(_ context.Context, ws, user string) (Member, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.members[ws][user]
	if !ok {
		return Member{}, ErrNotMember
	}
	return m, nil
}

// List implements Store.
func (s *Memory) List(_ context.Context, ws string) ([]Member, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []Member{}
	for _, m := range s.members[ws] {
		out = append(out, m)
	}
	SortMembers(out)
	return out, nil
}

// OfUser implements Store.
func (s *Memory) OfUser(_ context.Context, user string, limit int) ([]Member, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Member
	for _, ms := range s.members {
		if m, ok := ms[user]; ok {
			out = append(out, m)
		}
	}
	SortMembers(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// Put implements Store.
func (s *Memory) Put(_ context.Context, m Member) error {
	if err := m.Check(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.workspaces[m.Workspace]
	if !ok {
		w = Workspace{ID: m.Workspace, CreatedAt: m.AddedAt, CreatedBy: m.AddedBy}
	}
	old, had := s.members[m.Workspace][m.User]
	wasAdmin, isAdmin := had && old.Role == RoleAdmin, m.Role == RoleAdmin
	switch {
	case wasAdmin && !isAdmin:
		if w.Admins <= 1 {
			return ErrLastAdmin
		}
		w.Admins--
	case !wasAdmin && isAdmin:
		w.Admins++
	}
	if had {
		// A role change keeps when and by whom the member was added.
		m.AddedAt, m.AddedBy = old.AddedAt, old.AddedBy
	}
	if s.members[m.Workspace] == nil {
		s.members[m.Workspace] = map[string]Member{}
	}
	s.members[m.Workspace][m.User] = m
	s.workspaces[m.Workspace] = w
	return nil
}

// Remove implements Store.
func (s *Memory) Remove(_ context.Context, ws, user string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.members[ws][user]
	if !ok {
		return ErrNotMember
	}
	if old.Role == RoleAdmin {
		w := s.workspaces[ws]
		if w.Admins <= 1 {
			return ErrLastAdmin
		}
		w.Admins--
		s.workspaces[ws] = w
	}
	delete(s.members[ws], user)
	return nil
}

// Workspace implements Store.
func (s *Memory) Workspace(_ context.Context, ws string) (Workspace, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.workspaces[ws]
	if !ok {
		return Workspace{}, ErrNoWorkspace
	}
	return w, nil
}

// Ensure implements Store.
func (s *Memory) Ensure(_ context.Context, w Workspace) (bool, error) {
	if err := CheckID("workspace", w.ID); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.workspaces[w.ID]; ok {
		return false, nil
	}
	w.Admins = 0
	s.workspaces[w.ID] = w
	return true, nil
}
