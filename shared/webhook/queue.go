package webhook

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
)

// Message is one delivery waiting in the queue: one event for one
// subscription, and which attempt comes next.
type Message struct {
	Event        Event  `json:"event"`
	Subscription string `json:"subscription"`
	// Attempt is the number of the attempt this message makes, from 1.
	Attempt int `json:"attempt"`
	// Due is when the attempt may be made; a message received earlier is
	// put back until then (a queue delays a message by 15 minutes at most).
	Due time.Time `json:"due,omitzero"`
}

// Queue carries messages to the delivery function: SQS when deployed
// (sqsqueue), the local run's SQS twin locally.
type Queue interface {
	Send(ctx context.Context, m Message, delay time.Duration) error
}

// Lister lists an owner's subscriptions; Store satisfies it.
type Lister interface {
	List(ctx context.Context, owner string) ([]Subscription, error)
}

// Publisher hands events to the queue, one message per subscription that
// wants the event. Producers (the links stream consumer, the clicks
// function) call it; it never calls a receiver, so nothing on their path
// waits for one.
type Publisher struct {
	Subscriptions Lister
	Queue         Queue
	// Cache, when set, answers the subscriptions of a batch's owners
	// (Batch) from what earlier batches read, while no subscription has
	// changed; nil reads Subscriptions for every event.
	Cache *SubscriptionCache
}

// Batch returns the Publisher for one batch of events: with a Cache, its
// subscriptions are the cache's as of one read of the store's version;
// without, p itself.
func (p *Publisher) Batch(ctx context.Context) (*Publisher, error) {
	if p.Cache == nil {
		return p, nil
	}
	l, err := p.Cache.Batch(ctx)
	if err != nil {
		return nil, err
	}
	return &Publisher{Subscriptions: l, Queue: p.Queue}, nil
}

// Publish queues e for every subscription of e.Owner that wants it, and
// reports how many it queued. An error leaves some queued and others not:
// the caller retries the whole event, and the receivers that got it twice
// see the same webhook-id.
func (p *Publisher) Publish(ctx context.Context, e Event) (int, error) {
	subs, err := p.Subscriptions.List(ctx, e.Owner)
	if err != nil {
		return 0, fmt.Errorf("subscriptions of %s: %w", e.Owner, err)
	}
	return p.publishTo(ctx, e, subs)
}

// publishTo queues e for those of subs that want it.
func (p *Publisher) publishTo(ctx context.Context, e Event, subs []Subscription) (int, error) {
	n := 0
	for _, s := range subs {
		if !s.For(e) {
			continue
		}
		if err := p.Queue.Send(ctx, Message{Event: e, Subscription: s.ID, Attempt: 1}, 0); err != nil {
			return n, fmt.Errorf("queue %s for %s: %w", e.ID, s.ID, err)
		}
		n++
	}
	return n, nil
}

// EventID derives an event's webhook-id from what identifies its cause
// (a stream record's ID; a click batch's shard, sequence range and code),
// so a producer that handles the same cause again sends the same ID.
func EventID(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return "msg_" + hex.EncodeToString(h[:12])
}
