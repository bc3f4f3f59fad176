package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/shortlink-dev/shortener/shared/link"
)

// Links finds a code's link, for its owner; the links store satisfies it.
type Links interface {
	Get(ctx context.Context, code string) (link.Link, error)
}

// ClickPublisher turns a click batch's per-code sums into link.clicked
// events for the codes' owners.
//
// Reads: a code's owner is looked up once per OwnerTTL in a warm function,
// not once per batch (a code's owner never changes while its link lives),
// and with the Publisher's Cache an owner's subscriptions are queried only
// after a subscription changed, for one read of the version per batch.
type ClickPublisher struct {
	Links     Links
	Publisher *Publisher
	// OwnerTTL is how long a code's owner is kept; DefaultOwnerTTL when
	// zero, none kept when negative. It must be shorter than the tombstone
	// grace (OwnerTTLFor): a code is issued to another owner only after
	// its link's tombstone has been held for the grace, so an owner kept
	// for less can never be another link's. A link deleted less than
	// OwnerTTL ago still reports the clicks the edge serves from its cache
	// to its former owner.
	OwnerTTL time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time

	owners owners
}

// OwnerTTLFor is the owner TTL for a deployment whose tombstones are held
// for grace: DefaultOwnerTTL, or half the grace when that is shorter (a
// test deployment's grace of seconds).
func OwnerTTLFor(grace time.Duration) time.Duration {
	if grace/2 < DefaultOwnerTTL {
		return grace / 2
	}
	return DefaultOwnerTTL
}

// owner is code's owner, "" for a code with no link or a tombstone.
func (p *ClickPublisher) owner(ctx context.Context, code string) (string, error) {
	now := time.Now
	if p.Now != nil {
		now = p.Now
	}
	ttl := p.OwnerTTL
	if ttl == 0 {
		ttl = DefaultOwnerTTL
	}
	at := now()
	if ttl > 0 {
		if o, ok := p.owners.get(code, at); ok {
			return o, nil
		}
	}
	l, err := p.Links.Get(ctx, code)
	if errors.Is(err, link.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("owner of %s: %w", code, err)
	}
	// Neither an absent code nor a tombstone is kept: either may be
	// created (or reissued) at any moment.
	if l.Owner != "" && ttl > 0 {
		p.owners.put(code, l.Owner, at.Add(ttl))
	}
	return l.Owner, nil
}

// Clicked queues one link.clicked event per code whose owner has a
// subscription for it (each owner's subscriptions read at most once per
// batch), stamped with the batch's last click so a retry sends the same
// body. A code with no link (reclaimed, never existed) or a tombstone is
// skipped.
func (p *ClickPublisher) Clicked(ctx context.Context, batchID string, clicks []Clicks) error {
	if len(clicks) == 0 {
		return nil
	}
	pub, err := p.Publisher.Batch(ctx)
	if err != nil {
		return err
	}
	subs := map[string][]Subscription{}
	for _, c := range clicks {
		owner, err := p.owner(ctx, c.Code)
		if err != nil {
			return err
		}
		if owner == "" {
			continue // a tombstone belongs to no one
		}
		ss, ok := subs[owner]
		if !ok {
			if ss, err = pub.Subscriptions.List(ctx, owner); err != nil {
				return fmt.Errorf("subscriptions of %s: %w", owner, err)
			}
			subs[owner] = ss
		}
		if len(ss) == 0 {
			continue
		}
		data, err := json.Marshal(c)
		if err != nil {
			return err
		}
		e := Event{ID: EventID(batchID, c.Code), Owner: owner, Type: LinkClicked, Timestamp: c.To,
			Data: data, HumanClicks: c.Human}
		if _, err := pub.publishTo(ctx, e, ss); err != nil {
			return err
		}
	}
	return nil
}
