package apikey_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/apikey/apikeytest"
	"github.com/shortlink-dev/shortener/shared/link"
)

func TestMemory(t *testing.T) {
	apikeytest.Run(t, func(*testing.T) apikey.Store { return apikey.NewMemory(nil) })
}

func TestHash(t *testing.T) {
	// printf dev-key | sha256sum
	assert.Equal(t, "7e9f8fd111802be56c379d597842e29b2cebd35ff2133d431a49fa556a18704e", apikey.Hash("dev-key"))
	assert.NoError(t, apikey.CheckHash(apikey.Hash("dev-key")))
}

func TestGenerate(t *testing.T) {
	a, err := apikey.Generate(nil)
	require.NoError(t, err)
	b, err := apikey.Generate(nil)
	require.NoError(t, err)

	assert.Len(t, a, apikey.GeneratedLength)
	assert.NoError(t, apikey.CheckKey(a), "a generated key is one API Gateway accepts")
	assert.NotEqual(t, a, b)

	_, err = apikey.Generate(bytes.NewReader([]byte{1, 2, 3}))
	assert.Error(t, err, "a short random source is an error, not a weak key")
}

func TestChecks(t *testing.T) {
	tests := []struct {
		name  string
		check func(string) error
		in    string
		ok    bool
	}{
		{"key of 20", apikey.CheckKey, strings.Repeat("k", 20), true},
		{"key of 128", apikey.CheckKey, strings.Repeat("k", 128), true},
		{"key of 19", apikey.CheckKey, strings.Repeat("k", 19), false},
		{"key of 129", apikey.CheckKey, strings.Repeat("k", 129), false},
		{"key with a space", apikey.CheckKey, "abcdefghij klmnopqrstu", false},
		{"key with a control byte", apikey.CheckKey, "abcdefghij\x01klmnopqrstu", false},
		{"owner", apikey.CheckOwner, "team-a", true},
		{"empty owner", apikey.CheckOwner, "", false},
		{"owner with a space", apikey.CheckOwner, "team a", false},
		{"owner too long", apikey.CheckOwner, strings.Repeat("o", 129), false},
		{"hash", apikey.CheckHash, apikey.Hash("x"), true},
		{"upper-case hash", apikey.CheckHash, strings.ToUpper(apikey.Hash("x")), false},
		{"short hash", apikey.CheckHash, apikey.Hash("x")[:63], false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.check(tt.in)
			assert.Equal(t, tt.ok, err == nil, "error: %v", err)
		})
	}
}

// countingGetter counts reads and can fail.
type countingGetter struct {
	keys  *apikey.Memory
	reads atomic.Int32
	err   error
}

func (g *countingGetter) Get(ctx context.Context, hash string) (apikey.Record, error) {
	g.reads.Add(1)
	if g.err != nil {
		return apikey.Record{}, g.err
	}
	return g.keys.Get(ctx, hash)
}

type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

func TestResolver(t *testing.T) {
	ctx := context.Background()
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	const oldKey, newKey = "old-key-0123456789abcdef", "new-key-0123456789abcdef"

	t.Run("a key resolves to its owner, not to itself", func(t *testing.T) {
		g := &countingGetter{keys: apikey.NewMemory(map[string]string{oldKey: "alice", newKey: "alice", "bob-key-0123456789abcdef": "bob"})}
		r := apikey.NewResolver(g, apikey.ResolverOptions{})

		for key, want := range map[string]string{oldKey: "alice", newKey: "alice", "bob-key-0123456789abcdef": "bob"} {
			got, err := r.Owner(ctx, key)
			require.NoError(t, err)
			assert.Equal(t, want, got, "owner of %s", key)
		}
	})

	t.Run("an expired key is refused from its expiry on, cached or not", func(t *testing.T) {
		keys := apikey.NewMemory(nil)
		c := &clock{t: start}
		r := apikey.NewResolver(keys, apikey.ResolverOptions{TTL: 30 * time.Second, Now: c.now})
		_, _, err := apikey.IssueExpiring(ctx, keys, nil, "alice", oldKey, "", "", start, start.Add(10*time.Second))
		require.NoError(t, err)
		_, err = r.Owner(ctx, oldKey)
		require.NoError(t, err)
		c.advance(10 * time.Second)
		_, err = r.Owner(ctx, oldKey)
		assert.ErrorIs(t, err, apikey.ErrExpired, "within the cache's TTL, still refused at the expiry")
	})

	t.Run("unknown and empty keys", func(t *testing.T) {
		r := apikey.NewResolver(apikey.NewMemory(nil), apikey.ResolverOptions{})

		_, err := r.Owner(ctx, "nobody-has-this-key-00")
		assert.ErrorIs(t, err, apikey.ErrUnknown)
		_, err = r.Owner(ctx, "")
		assert.ErrorIs(t, err, apikey.ErrUnknown)
	})

	t.Run("rotation: the new key keeps the owner, the old one is refused once the cache expires", func(t *testing.T) {
		keys := apikey.NewMemory(nil)
		c := &clock{t: start}
		g := &countingGetter{keys: keys}
		r := apikey.NewResolver(g, apikey.ResolverOptions{TTL: 30 * time.Second, Now: c.now})
		_, _, err := apikey.Issue(ctx, keys, nil, "alice", oldKey, "", start)
		require.NoError(t, err)
		before, err := r.Owner(ctx, oldKey)
		require.NoError(t, err)

		key, rec, err := apikey.Rotate(ctx, keys, nil, apikey.Hash(oldKey), "", "", start.Add(time.Second))
		require.NoError(t, err)
		after, err := r.Owner(ctx, key)
		require.NoError(t, err)
		assert.Equal(t, before, after, "the new key's owner is the old key's")
		assert.Equal(t, "alice", rec.Owner)

		c.advance(29 * time.Second)
		_, err = r.Owner(ctx, oldKey)
		assert.NoError(t, err, "within the TTL the cached answer stands (the documented bound)")
		c.advance(time.Second)
		_, err = r.Owner(ctx, oldKey)
		assert.ErrorIs(t, err, apikey.ErrRevoked, "at the TTL the table is read again")
	})

	t.Run("answers are cached for the TTL, negative ones too", func(t *testing.T) {
		c := &clock{t: start}
		g := &countingGetter{keys: apikey.NewMemory(map[string]string{oldKey: "alice"})}
		r := apikey.NewResolver(g, apikey.ResolverOptions{TTL: 10 * time.Second, Now: c.now})

		for range 3 {
			_, err := r.Owner(ctx, oldKey)
			require.NoError(t, err)
			_, err = r.Owner(ctx, "nobody-has-this-key-00")
			require.ErrorIs(t, err, apikey.ErrUnknown)
		}
		assert.Equal(t, int32(2), g.reads.Load())
		c.advance(10 * time.Second)
		_, err := r.Owner(ctx, oldKey)
		require.NoError(t, err)
		assert.Equal(t, int32(3), g.reads.Load())
	})

	t.Run("a table error is returned and not cached", func(t *testing.T) {
		g := &countingGetter{keys: apikey.NewMemory(map[string]string{oldKey: "alice"}), err: fmt.Errorf("get: %w", link.ErrUnavailable)}
		r := apikey.NewResolver(g, apikey.ResolverOptions{})

		_, err := r.Owner(ctx, oldKey)
		assert.ErrorIs(t, err, link.ErrUnavailable)
		assert.False(t, errors.Is(err, apikey.ErrUnknown))

		g.err = nil
		owner, err := r.Owner(ctx, oldKey)
		require.NoError(t, err)
		assert.Equal(t, "alice", owner)
	})
}

func TestIssueAndRotate(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

	t.Run("issue generates a key and stores only its hash", func(t *testing.T) {
		keys := apikey.NewMemory(nil)

		key, rec, err := apikey.Issue(ctx, keys, nil, "alice", "", "ci", now)

		require.NoError(t, err)
		assert.Len(t, key, apikey.GeneratedLength)
		assert.Equal(t, apikey.Record{Hash: apikey.Hash(key), Owner: "alice", Status: apikey.StatusActive, CreatedAt: now, Note: "ci"}, rec)
		all, err := keys.List(ctx, "")
		require.NoError(t, err)
		require.Len(t, all, 1)
		assert.NotContains(t, fmt.Sprintf("%+v", all[0]), key)
	})

	t.Run("issue refuses bad owners and keys", func(t *testing.T) {
		keys := apikey.NewMemory(nil)
		_, _, err := apikey.Issue(ctx, keys, nil, "", "", "", now)
		assert.Error(t, err)
		_, _, err = apikey.Issue(ctx, keys, nil, "alice", "short", "", now)
		assert.Error(t, err)
		all, _ := keys.List(ctx, "")
		assert.Empty(t, all, "nothing written")
	})

	t.Run("a key is issued once", func(t *testing.T) {
		keys := apikey.NewMemory(nil)
		_, _, err := apikey.Issue(ctx, keys, nil, "alice", "same-key-0123456789abc", "", now)
		require.NoError(t, err)
		_, _, err = apikey.Issue(ctx, keys, nil, "mallory", "same-key-0123456789abc", "", now)
		assert.ErrorIs(t, err, apikey.ErrExists)
	})

	t.Run("rotate keeps the owner and the note, revokes the old key", func(t *testing.T) {
		keys := apikey.NewMemory(nil)
		old, _, err := apikey.Issue(ctx, keys, nil, "alice", "", "laptop", now)
		require.NoError(t, err)

		key, rec, err := apikey.Rotate(ctx, keys, nil, apikey.Hash(old), "", "", now.Add(time.Hour))

		require.NoError(t, err)
		assert.NotEqual(t, old, key)
		assert.Equal(t, "alice", rec.Owner)
		assert.Equal(t, "laptop", rec.Note)
		was, err := keys.Get(ctx, apikey.Hash(old))
		require.NoError(t, err)
		assert.Equal(t, apikey.StatusRevoked, was.Status)
		assert.Equal(t, now.Add(time.Hour), was.RevokedAt)
	})

	t.Run("rotate refuses a revoked or unknown key", func(t *testing.T) {
		keys := apikey.NewMemory(nil)
		old, _, err := apikey.Issue(ctx, keys, nil, "alice", "", "", now)
		require.NoError(t, err)
		_, err = keys.Revoke(ctx, apikey.Hash(old), now)
		require.NoError(t, err)

		_, _, err = apikey.Rotate(ctx, keys, nil, apikey.Hash(old), "", "", now)
		assert.ErrorIs(t, err, apikey.ErrRevoked)
		_, _, err = apikey.Rotate(ctx, keys, nil, apikey.Hash("nobody-has-this-key-00"), "", "", now)
		assert.ErrorIs(t, err, apikey.ErrUnknown)
		all, _ := keys.List(ctx, "alice")
		assert.Len(t, all, 1, "no key issued")
	})
}
