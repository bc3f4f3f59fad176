package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/shortlink-dev/shortener/shared/link"
)

// Links finds a code's link, for its owner; the links store satisfies it.
type Links interface {
	Get(ctx context.Context, code string) (link.Link, error)
}

// ClickPublisher turns a click batch's per-code sums into link.clicked
// events for the codes' owners.
type ClickPublisher struct {
	Links     Links
	Publisher *Publisher
}

// Clicked queues one link.clicked event per code whose owner has a
// subscription for it (each owner's subscriptions read once per batch),
// stamped with the batch's last click so a retry
// sends the same body. A code with no link (reclaimed, never existed) is
// skipped.
func (p *ClickPublisher) Clicked(ctx context.Context, batchID string, clicks []Clicks) error {
	subs := map[string][]Subscription{}
	for _, c := range clicks {
		l, err := p.Links.Get(ctx, c.Code)
		if errors.Is(err, link.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("owner of %s: %w", c.Code, err)
		}
		if l.Owner == "" {
			continue // a tombstone belongs to no one
		}
		data, err := json.Marshal(c)
		if err != nil {
			return err
		}
		e := Event{ID: EventID(batchID, c.Code), Owner: l.Owner, Type: LinkClicked, Timestamp: c.To,
			Data: data, HumanClicks: c.Human}
		ss, ok := subs[l.Owner]
		if !ok {
			if ss, err = p.Publisher.Subscriptions.List(ctx, l.Owner); err != nil {
				return fmt.Errorf("subscriptions of %s: %w", l.Owner, err)
			}
			subs[l.Owner] = ss
		}
		if _, err := p.Publisher.publishTo(ctx, e, ss); err != nil {
			return err
		}
	}
	return nil
}
