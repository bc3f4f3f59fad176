package linkstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
)

// TestGetOwned: the management API finds a link by any spelling that
// names it, whatever code length it was created under, and nothing of another owner's.
func TestGetOwned(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	m := linkstore.NewMemory(func() time.Time { return now })
	mk := func(code, alias, owner string) link.Link {
		return link.Link{Code: code, Alias: alias, URL: "https://example.com/" + code, Owner: owner,
			CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(time.Hour), Status: link.StatusActive, Version: 1, RedirectStatus: 302}
	}
	for _, l := range []link.Link{
		mk("Ab3dE5g", "", "alice"),      // drawn at length 7
		mk("Ab3dE5gH", "", "alice"),     // drawn at length 8
		mk("Ab3dE5gH9jK1", "", "alice"), // drawn at length 12
		mk("ab3de5gh", "", "alice"),     // drawn at length 8, no capitals
		mk("mybrand8", "MyBrand8", "alice"),
		mk("summer-sale", "Summer-Sale", "alice"),
		mk("Zz9yY8x", "", "bob"),
		mk("promo25", "Promo25", "bob"),
		mk("PROMO25", "", "alice"), // a generated code that spells another owner's alias in capitals
	} {
		require.NoError(t, m.Create(ctx, l, nil))
	}

	tests := []struct {
		segment, owner string
		want           string // the code found; empty for not found
	}{
		{segment: "Ab3dE5g", owner: "alice", want: "Ab3dE5g"},
		{segment: "Ab3dE5gH", owner: "alice", want: "Ab3dE5gH"},
		{segment: "Ab3dE5gH9jK1", owner: "alice", want: "Ab3dE5gH9jK1"},
		{segment: "ab3de5gh", owner: "alice", want: "ab3de5gh"},
		{segment: "ab3de5g", owner: "alice"},  // generated codes are case-sensitive
		{segment: "AB3DE5GH", owner: "alice"}, // even with a lower-case code under the lower-cased key
		{segment: "MyBrand8", owner: "alice", want: "mybrand8"},
		{segment: "MYBRAND8", owner: "alice", want: "mybrand8"},
		{segment: "mybrand8", owner: "alice", want: "mybrand8"},
		{segment: "SUMMER-SALE", owner: "alice", want: "summer-sale"},
		{segment: "Zz9yY8x", owner: "alice"}, // bob's
		{segment: "Zz9yY8x", owner: "bob", want: "Zz9yY8x"},
		{segment: "PROMO25", owner: "alice", want: "PROMO25"},
		{segment: "PROMO25", owner: "bob", want: "promo25"}, // alice's code under the first key does not hide bob's alias
		{segment: "promo25", owner: "alice"},
	}
	for _, tt := range tests {
		t.Run(tt.segment+"/"+tt.owner, func(t *testing.T) {
			got, err := linkstore.GetOwned(ctx, m, tt.owner, tt.segment)
			if tt.want == "" {
				assert.ErrorIs(t, err, link.ErrNotFound)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.Code)
		})
	}
}

// failingGetter fails every read.
type failingGetter struct{ err error }

func (f failingGetter) Get(context.Context, string) (link.Link, error) { return link.Link{}, f.err }

func TestGetOwnedPassesStoreErrors(t *testing.T) {
	boom := errors.New("boom")
	_, err := linkstore.GetOwned(context.Background(), failingGetter{boom}, "alice", "Ab3dE5gH")
	assert.ErrorIs(t, err, boom)
}
