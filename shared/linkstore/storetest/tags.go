package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
)

// TaggedStore is a Store that indexes tags.
type TaggedStore interface {
	linkstore.Store
	linkstore.Tagged
}

// RunTags runs the tag cases against stores newStore makes, each of which
// must be a TaggedStore: listing by tag, the per-owner counts, and every
// write that moves a link's tags.
func RunTags(t *testing.T, newStore Factory) {
	ctx := context.Background()
	setup := func(t *testing.T) (TaggedStore, *Clock) {
		s, clock := newStore.setup(t)
		ts, ok := s.(TaggedStore)
		require.True(t, ok, "the store keeps no tag index")
		return ts, clock
	}
	tagged := func(code, owner string, at time.Time, tags ...string) link.Link {
		l := sample(code, at)
		l.Owner, l.Title, l.Tags = owner, "Title of "+code, tags
		return l
	}
	codes := func(links []link.Link) []string {
		out := []string{}
		for _, l := range links {
			out = append(out, l.Code)
		}
		return out
	}
	listTagged := func(t *testing.T, s TaggedStore, owner string, tags ...string) []string {
		links, next, err := s.ListTagged(ctx, owner, tags, 0, "")
		require.NoError(t, err)
		assert.Empty(t, next)
		return codes(links)
	}
	counts := func(t *testing.T, s TaggedStore, owner string) map[string]int64 {
		got, err := s.TagCounts(ctx, owner)
		require.NoError(t, err)
		out := map[string]int64{}
		for _, c := range got {
			out[c.Tag] = c.Links
		}
		return out
	}

	t.Run("list by tag and count, per owner", func(t *testing.T) {
		s, clock := setup(t)
		now := clock.Now()
		require.NoError(t, s.Create(ctx, tagged("tagone1", "owner-a", now, "a", "b"), nil))
		require.NoError(t, s.Create(ctx, tagged("tagtwo2", "owner-a", now.Add(time.Second), "b"), nil))
		require.NoError(t, s.Create(ctx, tagged("plain33", "owner-a", now.Add(2*time.Second)), nil))
		require.NoError(t, s.Create(ctx, tagged("other44", "owner-b", now.Add(3*time.Second), "a"), nil))

		assert.Equal(t, []string{"tagone1"}, listTagged(t, s, "owner-a", "a"))
		assert.Equal(t, []string{"tagtwo2", "tagone1"}, listTagged(t, s, "owner-a", "b"))
		assert.Equal(t, []string{"tagtwo2", "tagone1"}, listTagged(t, s, "owner-a", "a", "b"), "a link with both tags once")
		assert.Equal(t, []string{"other44"}, listTagged(t, s, "owner-b", "a"))
		assert.Equal(t, []string{}, listTagged(t, s, "owner-c", "a"))
		assert.Equal(t, map[string]int64{"a": 1, "b": 2}, counts(t, s, "owner-a"))
		assert.Equal(t, map[string]int64{"a": 1}, counts(t, s, "owner-b"))
		assert.Equal(t, map[string]int64{}, counts(t, s, "owner-c"))

		links, _, err := s.ListTagged(ctx, "owner-a", []string{"a"}, 0, "")
		require.NoError(t, err)
		require.Len(t, links, 1)
		assert.Equal(t, "Title of tagone1", links[0].Title)
		assert.Equal(t, []string{"a", "b"}, links[0].Tags)

		got, err := s.Get(ctx, "tagone1")
		require.NoError(t, err)
		assert.Equal(t, link.Meta{Title: "Title of tagone1", Tags: []string{"a", "b"}}, got.Meta)
	})

	t.Run("an update moves the tags", func(t *testing.T) {
		s, clock := setup(t)
		l := tagged("moveme1", "owner-a", clock.Now(), "a", "b")
		require.NoError(t, s.Create(ctx, l, nil))
		next := l.Clone()
		next.Tags, next.Version, next.URL, next.Title = []string{"b", "c"}, 2, "https://example.com/moved", "Moved"
		require.NoError(t, s.Update(ctx, next, 1))
		for _, tag := range []string{"b", "c"} { // kept and added: both show the link as it is now
			links, _, err := s.ListTagged(ctx, "owner-a", []string{tag}, 0, "")
			require.NoError(t, err)
			require.Len(t, links, 1)
			assert.Equal(t, "https://example.com/moved", links[0].URL, tag)
			assert.Equal(t, "Moved", links[0].Title, tag)
			assert.Equal(t, int64(2), links[0].Version, tag)
		}
		assert.Equal(t, []string{}, listTagged(t, s, "owner-a", "a"))
		assert.Equal(t, []string{"moveme1"}, listTagged(t, s, "owner-a", "c"))
		assert.Equal(t, map[string]int64{"b": 1, "c": 1}, counts(t, s, "owner-a"))

		// Refused updates move nothing.
		stale := next.Clone()
		stale.Tags, stale.Version = []string{"z"}, 3
		require.ErrorIs(t, s.Update(ctx, stale, 1), link.ErrPrecondition)
		foreign := stale.Clone()
		foreign.Owner = "owner-b"
		require.ErrorIs(t, s.Update(ctx, foreign, 2), link.ErrNotFound)
		assert.Equal(t, map[string]int64{"b": 1, "c": 1}, counts(t, s, "owner-a"))
		assert.Equal(t, map[string]int64{}, counts(t, s, "owner-b"))

		untagged := next.Clone()
		untagged.Tags, untagged.Version = nil, 3
		require.NoError(t, s.Update(ctx, untagged, 0))
		assert.Equal(t, map[string]int64{}, counts(t, s, "owner-a"))
	})

	t.Run("a delete and an expiry remove the tags", func(t *testing.T) {
		s, clock := setup(t)
		now := clock.Now()
		require.NoError(t, s.Create(ctx, tagged("deleted", "owner-a", now, "a"), nil))
		short := tagged("expires", "owner-a", now, "a", "b")
		short.ExpiresAt = now.Add(time.Hour).Truncate(time.Second)
		require.NoError(t, s.Create(ctx, short, nil))
		assert.Equal(t, map[string]int64{"a": 2, "b": 1}, counts(t, s, "owner-a"))

		require.NoError(t, s.Delete(ctx, "owner-a", "deleted", 0, link.NewTombstone("deleted", "owner-a", link.ReasonDeleted, now, 0)))
		assert.Equal(t, []string{"expires"}, listTagged(t, s, "owner-a", "a"))

		written, err := s.Tombstone(ctx, link.NewTombstone("expires", "owner-a", link.ReasonExpired, now, 0))
		require.NoError(t, err)
		assert.False(t, written, "a live link is never tombstoned")
		assert.Equal(t, map[string]int64{"a": 1, "b": 1}, counts(t, s, "owner-a"))

		clock.Add(2 * time.Hour)
		written, err = s.Tombstone(ctx, link.NewTombstone("expires", "owner-a", link.ReasonExpired, clock.Now(), 0))
		require.NoError(t, err)
		assert.True(t, written)
		assert.Equal(t, []string{}, listTagged(t, s, "owner-a", "a", "b"))
		assert.Equal(t, map[string]int64{}, counts(t, s, "owner-a"))
	})

	t.Run("a tag pages newest first", func(t *testing.T) {
		s, clock := setup(t)
		now := clock.Now()
		var want []string
		for i := range 25 {
			code := fmt.Sprintf("page%03d", i)
			require.NoError(t, s.Create(ctx, tagged(code, "owner-a", now.Add(time.Duration(i)*time.Millisecond), "p"), nil))
			want = append([]string{code}, want...)
		}
		var got []string
		cursor, pages := "", 0
		for {
			links, next, err := s.ListTagged(ctx, "owner-a", []string{"p"}, 10, cursor)
			require.NoError(t, err)
			got = append(got, codes(links)...)
			pages++
			if next == "" {
				break
			}
			cursor = next
			require.Less(t, pages, 10)
		}
		assert.Equal(t, want, got)
		assert.Equal(t, 3, pages)
	})
}
