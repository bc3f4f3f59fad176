package linkstore

import (
	"context"

	"github.com/shortlink-dev/shortener/shared/link"
)

// Supersede implements Links.
func (m *Memory) Supersede(ctx context.Context, l link.Link) error {
	if err := lockFor(ctx, &m.mu); err != nil {
		return err
	}
	defer m.mu.Unlock()
	old, err := m.owned(l.Owner, l.Code, 0)
	if err != nil {
		return err
	}
	if old.Version < l.Version {
		m.links[l.Code] = entry{link: l.Clone()}
	}
	return nil
}
