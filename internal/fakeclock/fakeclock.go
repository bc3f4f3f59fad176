// Package fakeclock is a manual clock for tests: Now reads it, AfterFunc
// schedules on it, and Add or Set move it on, firing the timers due on the
// way in their order, each with the clock at its own time. The local edge's
// invalidations and the API's settle waits run on it in the tests that
// drive their races on purpose.
package fakeclock

import (
	"slices"
	"sync"
	"time"
)

// Clock is a manual clock. Build it with New.
type Clock struct {
	mu     sync.Mutex
	t      time.Time
	timers []timer
}

type timer struct {
	at time.Time
	f  func()
}

// New returns a clock reading t.
func New(t time.Time) *Clock { return &Clock{t: t} }

// Now reads the clock.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// AfterFunc runs f once the clock has moved on by d, as time.AfterFunc
// does with real time.
func (c *Clock) AfterFunc(d time.Duration, f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.timers = append(c.timers, timer{at: c.t.Add(d), f: f})
}

// Add moves the clock on by d, firing the timers due on the way in order.
func (c *Clock) Add(d time.Duration) { c.Set(c.Now().Add(d)) }

// Set moves the clock on to t, firing the timers due on the way in order,
// each with the clock at its time; a timer a firing one sets is fired too
// if it is due by t.
func (c *Clock) Set(t time.Time) {
	for {
		c.mu.Lock()
		i := slices.IndexFunc(c.timers, func(tm timer) bool { return !tm.at.After(t) })
		if i < 0 {
			c.t = t
			c.mu.Unlock()
			return
		}
		for j, tm := range c.timers {
			if tm.at.Before(c.timers[i].at) {
				i = j
			}
		}
		tm := c.timers[i]
		c.timers = slices.Delete(c.timers, i, i+1)
		if tm.at.After(c.t) {
			c.t = tm.at
		}
		c.mu.Unlock()
		tm.f()
	}
}
