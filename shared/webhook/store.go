package webhook

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shortlink-dev/shortener/shared/link"
)

// Store keeps subscriptions and their recent delivery attempts, by owner.
// Errors match link.ErrNotFound, link.ErrConflict (the owner has
// MaxSubscriptions already) and link.ErrUnavailable.
type Store interface {
	Create(ctx context.Context, s Subscription) error
	// List answers an owner's subscriptions without their secrets: the
	// functions that only fan events out read it, and the API lists it.
	List(ctx context.Context, owner string) ([]Subscription, error)
	// Get answers one subscription with its secret, for the delivery
	// function to sign with.
	Get(ctx context.Context, owner, id string) (Subscription, error)
	Delete(ctx context.Context, owner, id string) error
	// Disable marks a subscription whose receiver answered 410 Gone.
	Disable(ctx context.Context, owner, id string) error
	// Record keeps one delivery attempt for DeliveryRetention.
	Record(ctx context.Context, owner string, d Delivery) error
	// Deliveries lists a subscription's attempts, newest first.
	Deliveries(ctx context.Context, owner, id string, limit int) ([]Delivery, error)
	Versioner
}

// DeliveryRetention is how long attempts are listed: longer than the
// retry schedule, so a receiver's whole outage shows.
const DeliveryRetention = 7 * 24 * time.Hour

// Memory is a Store in memory, for tests.
type Memory struct {
	mu      sync.Mutex
	subs    map[string]Subscription // owner/id
	dlv     map[string][]Delivery   // owner/id, oldest first
	version int64
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty store.
func NewMemory() *Memory {
	return &Memory{subs: map[string]Subscription{}, dlv: map[string][]Delivery{}}
}

func key(owner, id string) string { return owner + "/" + id }

// Create implements Store.
func (m *Memory) Create(_ context.Context, s Subscription) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for k := range m.subs {
		if strings.HasPrefix(k, s.Owner+"/") {
			n++
		}
	}
	if n >= MaxSubscriptions {
		return fmt.Errorf("create subscription: %w", link.ErrConflict)
	}
	if _, ok := m.subs[key(s.Owner, s.ID)]; ok {
		return fmt.Errorf("create subscription %s: %w", s.ID, link.ErrConflict)
	}
	s.Events = slices.Clone(s.Events)
	m.subs[key(s.Owner, s.ID)] = s
	m.version++
	return nil
}

// List implements Store.
func (m *Memory) List(_ context.Context, owner string) ([]Subscription, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Subscription
	for k, s := range m.subs {
		if strings.HasPrefix(k, owner+"/") {
			s.Secret = ""
			s.Events = slices.Clone(s.Events)
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b Subscription) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// Get implements Store.
func (m *Memory) Get(_ context.Context, owner, id string) (Subscription, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.subs[key(owner, id)]
	if !ok {
		return Subscription{}, fmt.Errorf("subscription %s: %w", id, link.ErrNotFound)
	}
	return s, nil
}

// Delete implements Store.
func (m *Memory) Delete(_ context.Context, owner, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.subs[key(owner, id)]; !ok {
		return fmt.Errorf("subscription %s: %w", id, link.ErrNotFound)
	}
	delete(m.subs, key(owner, id))
	m.version++
	return nil
}

// Disable implements Store.
func (m *Memory) Disable(_ context.Context, owner, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.subs[key(owner, id)]
	if !ok {
		return fmt.Errorf("subscription %s: %w", id, link.ErrNotFound)
	}
	s.Disabled = true
	m.subs[key(owner, id)] = s
	m.version++
	return nil
}

// Version implements Store.
func (m *Memory) Version(context.Context) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.version, nil
}

// Record implements Store.
func (m *Memory) Record(_ context.Context, owner string, d Delivery) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := key(owner, d.Subscription)
	m.dlv[k] = append(m.dlv[k], d)
	return nil
}

// Deliveries implements Store.
func (m *Memory) Deliveries(_ context.Context, owner, id string, limit int) ([]Delivery, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	all := m.dlv[key(owner, id)]
	var out []Delivery
	for i := len(all) - 1; i >= 0 && len(out) < limit; i-- {
		out = append(out, all[i])
	}
	return out, nil
}
