package linkstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/shortlink-dev/shortener/shared/link"
)

// Getter reads one link; every Store is one.
type Getter interface {
	Get(ctx context.Context, code string) (link.Link, error)
}

// GetOwned returns owner's live link named by a path segment, trying each
// of link.LookupKeys. Which keys those are does not depend on the
// configured code length, so a link stays reachable whatever length it was
// created under. Every way of not being that (malformed, absent, someone
// else's, a tombstone, a generated code under another spelling) is the
// same link.ErrNotFound, and every key is tried whatever the first
// answered, so the answer never tells whether another owner's link exists:
// the management API's owner isolation rests on this one function.
func GetOwned(ctx context.Context, g Getter, owner, segment string) (link.Link, error) {
	for _, key := range link.LookupKeys(segment) {
		l, err := g.Get(ctx, key)
		if err == nil && l.Owner == owner && l.Status != link.StatusTombstone && l.NamedBy(segment) {
			return l, nil
		}
		if err != nil && !errors.Is(err, link.ErrNotFound) {
			return link.Link{}, err
		}
	}
	return link.Link{}, fmt.Errorf("link %q: %w", segment, link.ErrNotFound)
}
