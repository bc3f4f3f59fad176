package audit

import (
	"context"
	"sync"
)

// Pending is an entry on its way to the log with its change: a store that
// writes the change in a transaction takes it and writes it there; the
// handler flushes what no store took.
type Pending struct {
	mu      sync.Mutex
	entry   Entry
	taken   bool
	written bool
}

type pendingKey struct{}

// WithPending is ctx carrying e (prepared at e.At, which must be set) for
// the store the change goes through.
func WithPending(ctx context.Context, e Entry) (context.Context, *Pending) {
	p := &Pending{entry: Prepare(e, e.At)}
	return context.WithValue(ctx, pendingKey{}, p), p
}

// Take returns the entry ctx carries for a store to write in its change's
// transaction, and whether there is one not yet taken. The store calls
// Written on it once the transaction commits, Untake when it did not.
func Take(ctx context.Context) (*Pending, Entry, bool) {
	p, _ := ctx.Value(pendingKey{}).(*Pending)
	if p == nil {
		return nil, Entry{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.taken || p.written {
		return nil, Entry{}, false
	}
	p.taken = true
	return p, p.entry, true
}

// Written marks the entry written with its change.
func (p *Pending) Written() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.written, p.taken = true, false
}

// Untake gives the entry back: the transaction that took it did not
// commit, and a retry of the change may take it again.
func (p *Pending) Untake() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.taken = false
}

// Entry is the pending entry as it is written.
func (p *Pending) Entry() Entry {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.entry
}

// Flush writes the entry with r unless a store already wrote it with its
// change: the handler calls it once the change succeeded.
func (p *Pending) Flush(ctx context.Context, r Recorder) error {
	p.mu.Lock()
	done := p.written
	e := p.entry
	p.mu.Unlock()
	if done || r == nil {
		return nil
	}
	if err := r.Record(ctx, e); err != nil {
		return err
	}
	p.mu.Lock()
	p.written = true
	p.mu.Unlock()
	return nil
}
