package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/shortlink-dev/shortener/shared/link"
)

// Links finds a code's link, for its owner, and a dead code's tombstone,
// for its former owner and the moment it died; the links store satisfies
// it.
type Links interface {
	Get(ctx context.Context, code string) (link.Link, error)
	GetTombstone(ctx context.Context, code string) (link.Tombstone, error)
}

// ClickBatch is the clicks of one counted stretch of the click stream,
// per code, waiting to become link.clicked events: what the clicks
// function hands over once the clicks are counted, and what it keeps in
// its outbox (PendingClicks) when they could not be queued.
type ClickBatch struct {
	// ID names the stretch (its shard and sequence range): the events'
	// IDs derive from it and the code, so publishing the same batch again
	// sends the same webhook-ids.
	ID    string       `json:"id"`
	Codes []CodeClicks `json:"codes,omitempty"`
}

// CodeClicks is one code's clicks in a batch: each click's edge time, in
// epoch milliseconds, the humans' and the bots' apart. The times, not
// sums, so that clicks of a link that died meanwhile can be told apart by
// when they were served.
type CodeClicks struct {
	Code  string  `json:"code"`
	Human []int64 `json:"human,omitempty"`
	Bot   []int64 `json:"bot,omitempty"`
}

// Sum is the link.clicked data of the clicks served before until (all of
// them when until is zero), and false when there are none.
func (c CodeClicks) Sum(until time.Time) (Clicks, bool) {
	s := Clicks{Code: c.Code}
	var from, to int64
	add := func(ms int64) bool {
		if !until.IsZero() && ms >= until.UnixMilli() {
			return false
		}
		if s.Total == 0 || ms < from {
			from = ms
		}
		if s.Total == 0 || ms > to {
			to = ms
		}
		s.Total++
		return true
	}
	for _, ms := range c.Human {
		if add(ms) {
			s.Human++
		}
	}
	for _, ms := range c.Bot {
		if add(ms) {
			s.Bot++
		}
	}
	if s.Total == 0 {
		return Clicks{}, false
	}
	s.From, s.To = time.UnixMilli(from).UTC(), time.UnixMilli(to).UTC()
	return s, true
}

// ClickPublisher turns a counted batch's clicks into link.clicked events
// for the codes' owners.
//
// Reads: a code's owner is looked up once per OwnerTTL in a warm function,
// not once per batch (a code's owner never changes while its link lives),
// and with the Publisher's Cache an owner's subscriptions are queried only
// after a subscription changed, for one read of the version per batch.
//
// A code whose link is gone but whose tombstone stands (deleted or
// expired, not yet reclaimed) reports the clicks served before it died to
// its former owner: a batch is counted seconds after its clicks, and a
// delete in between must not swallow them. Clicks served after the death
// (the edge answering from its cache) belong to no one and are not
// reported, unless the owner was still cached (OwnerTTL).
type ClickPublisher struct {
	Links     Links
	Publisher *Publisher
	// OwnerTTL is how long a code's owner is kept; DefaultOwnerTTL when
	// zero, none kept when negative. It must be shorter than the tombstone
	// grace (OwnerTTLFor): a code is issued to another owner only after
	// its link's tombstone has been held for the grace, so an owner kept
	// for less can never be another link's. A link deleted less than
	// OwnerTTL ago still reports all the clicks the edge serves from its
	// cache to its former owner.
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

// owner is whom code's clicks go to: its link's owner, or for a
// tombstone its former owner and when it died (the clicks before that are
// the owner's); "" for a code with no link and no tombstone.
func (p *ClickPublisher) owner(ctx context.Context, code string) (owner string, died time.Time, err error) {
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
			return o, time.Time{}, nil
		}
	}
	l, err := p.Links.Get(ctx, code)
	if errors.Is(err, link.ErrNotFound) {
		return "", time.Time{}, nil
	}
	if err != nil {
		return "", time.Time{}, fmt.Errorf("owner of %s: %w", code, err)
	}
	if l.Status == link.StatusTombstone {
		// Not kept: the tombstone may be released and the code reissued
		// at any moment after its grace.
		t, err := p.Links.GetTombstone(ctx, code)
		if errors.Is(err, link.ErrNotFound) {
			return "", time.Time{}, nil // released since
		}
		if err != nil {
			return "", time.Time{}, fmt.Errorf("former owner of %s: %w", code, err)
		}
		if t.TombstonedAt.IsZero() {
			return "", time.Time{}, nil // no moment to tell the owner's clicks by
		}
		return t.PrevOwner, t.TombstonedAt, nil
	}
	// An absent code is not kept either: it may be created at any moment.
	if l.Owner != "" && ttl > 0 {
		p.owners.put(code, l.Owner, at.Add(ttl))
	}
	return l.Owner, time.Time{}, nil
}

// Clicked queues one link.clicked event per code whose owner has a
// subscription for it (each owner's subscriptions read at most once per
// batch), stamped with the code's last click so a retry sends the same
// body. A code with no link (reclaimed, never existed) is skipped, and so
// are a tombstone's clicks after its death.
//
// It returns what is left to publish: nothing when every code's events are
// queued, else the codes from the first that failed on, with the error.
// Publishing the rest again sends the same webhook-ids; a code whose
// events went to some of its owner's subscriptions before the failure
// goes to all of them again, and receivers deduplicate by webhook-id.
func (p *ClickPublisher) Clicked(ctx context.Context, b ClickBatch) (ClickBatch, error) {
	rest := ClickBatch{ID: b.ID}
	if len(b.Codes) == 0 {
		return rest, nil
	}
	pub, err := p.Publisher.Batch(ctx)
	if err != nil {
		rest.Codes = b.Codes
		return rest, err
	}
	subs := map[string][]Subscription{}
	for i, c := range b.Codes {
		if err := p.publish(ctx, pub, subs, b.ID, c); err != nil {
			rest.Codes = b.Codes[i:]
			return rest, err
		}
	}
	return rest, nil
}

func (p *ClickPublisher) publish(ctx context.Context, pub *Publisher, subs map[string][]Subscription, batchID string, c CodeClicks) error {
	owner, died, err := p.owner(ctx, c.Code)
	if err != nil {
		return err
	}
	if owner == "" {
		return nil
	}
	sum, ok := c.Sum(died)
	if !ok {
		return nil // every click came after the link died
	}
	ss, ok := subs[owner]
	if !ok {
		if ss, err = pub.Subscriptions.List(ctx, owner); err != nil {
			return fmt.Errorf("subscriptions of %s: %w", owner, err)
		}
		subs[owner] = ss
	}
	if len(ss) == 0 {
		return nil
	}
	data, err := json.Marshal(sum)
	if err != nil {
		return err
	}
	e := Event{ID: EventID(batchID, c.Code), Owner: owner, Type: LinkClicked, Timestamp: sum.To,
		Data: data, HumanClicks: sum.Human}
	_, err = pub.publishTo(ctx, e, subs[owner])
	return err
}

// PendingClicks is a ClickBatch the clicks function could not queue,
// kept in its outbox until a later try queues it.
type PendingClicks struct {
	// Key is the outbox's name for it.
	Key   string
	Batch ClickBatch
	// Attempts counts the tries made from the outbox.
	Attempts int
	// Since is when it was kept; Due when it may be tried (again).
	Since, Due time.Time
}
