package missbudget_test

import (
	"context"
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/missbudget"
)

func TestClient(t *testing.T) {
	tests := []struct {
		name, header, want string
	}{
		{"IPv4 with its port", "198.51.100.10:46532", "198.51.100.10"},
		{"IPv6 cut to its /64", "2001:db8:85a3:1:8a2e:370:7334:1:46532", "2001:db8:85a3:1::/64"},
		{"two hosts of one /64 are one client", "2001:db8:85a3:1::ffff:443", "2001:db8:85a3:1::/64"},
		{"IPv6 in brackets", "[2001:db8::1]:443", "2001:db8::/64"},
		{"IPv4-mapped IPv6 is the IPv4 address", "::ffff:198.51.100.10:80", "198.51.100.10"},
		{"no header", "", ""},
		{"no port", "198.51.100.10", ""},
		{"not an address", "example.com:443", ""},
		{"port out of range", "198.51.100.10:70000", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, missbudget.Client(tt.header))
		})
	}
}

func TestBudget(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 3, 20, 0, 0, time.UTC)
	counter := missbudget.NewMemory()
	b := missbudget.New(counter, 3, time.Hour)

	for i := range 3 {
		v, err := b.Miss(ctx, "198.51.100.10", now)
		require.NoError(t, err)
		assert.False(t, v.Refused, "miss %d is within the budget", i+1)
	}
	v, err := b.Miss(ctx, "198.51.100.10", now)
	require.NoError(t, err)
	assert.True(t, v.Refused, "the 4th miss is over a budget of 3")
	assert.Equal(t, 40*time.Minute, v.RetryAfter, "until the window ends at 04:00")
	assert.Equal(t, 4, counter.Calls)

	// Known to be over: refused with no write, a found link too.
	v, err = b.Miss(ctx, "198.51.100.10", now.Add(time.Minute))
	require.NoError(t, err)
	assert.True(t, v.Refused)
	assert.True(t, b.Known("198.51.100.10", now.Add(time.Minute)).Refused)
	assert.Equal(t, 4, counter.Calls, "a client known to be over costs no write")

	// Another client is unaffected.
	v, err = b.Miss(ctx, "203.0.113.7", now)
	require.NoError(t, err)
	assert.False(t, v.Refused)
	assert.False(t, b.Known("203.0.113.7", now).Refused)

	// The next window starts afresh.
	next := now.Add(40 * time.Minute)
	assert.False(t, b.Known("198.51.100.10", next).Refused)
	v, err = b.Miss(ctx, "198.51.100.10", next)
	require.NoError(t, err)
	assert.False(t, v.Refused)

	// Requests that did not come through the edge are not counted.
	v, err = b.Miss(ctx, "", now)
	require.NoError(t, err)
	assert.False(t, v.Refused)
	assert.Equal(t, 6, counter.Calls)
}

type failing struct{}

func (failing) Add(context.Context, string, time.Time, time.Time) (int64, error) {
	return 0, errors.New("table unavailable")
}

func TestBudgetFailsOpen(t *testing.T) {
	b := missbudget.New(failing{}, 1, time.Hour)
	for range 3 {
		v, err := b.Miss(context.Background(), "198.51.100.10", time.Now())
		require.Error(t, err)
		assert.False(t, v.Refused, "an outage of the counter never turns a miss into a refusal")
	}
}

// FuzzClient: any header value gives "", an IPv4 address or an IPv6 /64,
// never a panic, and the same client for every port of one address.
func FuzzClient(f *testing.F) {
	for _, s := range []string{"198.51.100.10:46532", "2001:db8::1:443", "[2001:db8::1]:443", "::ffff:1.2.3.4:80",
		"", ":", "1.2.3.4", "1.2.3.4:", "fe80::1%eth0:443", "[::1]:0", "999.1.1.1:80", " 10.0.0.1:1 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		c := missbudget.Client(v)
		if c == "" {
			return
		}
		if p, err := netip.ParsePrefix(c); err == nil {
			if !p.Addr().Is6() || p.Bits() != 64 || p.Masked() != p {
				t.Fatalf("Client(%q) = %q: not an IPv6 /64", v, c)
			}
			return
		}
		a, err := netip.ParseAddr(c)
		if err != nil || !a.Is4() {
			t.Fatalf("Client(%q) = %q: neither an IPv4 address nor an IPv6 /64", v, c)
		}
	})
}
