package fakeclock

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestTimersFireInOrderAtTheirTimes(t *testing.T) {
	start := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	c := New(start)
	var fired []time.Duration
	at := func() { fired = append(fired, c.Now().Sub(start)) }
	c.AfterFunc(3*time.Second, at)
	c.AfterFunc(time.Second, func() {
		at()
		c.AfterFunc(time.Second, at) // due at 2 s, within the move
	})
	c.AfterFunc(10*time.Second, at)

	c.Add(5 * time.Second)
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}, fired)
	assert.Equal(t, start.Add(5*time.Second), c.Now())

	c.Add(4 * time.Second)
	assert.Len(t, fired, 3, "the 10 s timer is not due at 9 s")
	c.Set(start.Add(10 * time.Second))
	assert.Equal(t, 10*time.Second, fired[3])
}
