package linkstore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
)

// searchFixture is 1,250 links of owner "a", newest last created, and a
// few of owner "b" that would match every search.
func searchFixture(t *testing.T) *linkstore.Memory {
	t.Helper()
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	m := linkstore.NewMemory(func() time.Time { return start })
	add := func(i int, code, alias, url, owner string) {
		require.NoError(t, m.Create(context.Background(), link.Link{
			Code: code, Alias: alias, URL: url, Owner: owner, Status: link.StatusActive, Version: 1,
			CreatedAt: start.Add(time.Duration(i) * time.Second), ExpiresAt: start.AddDate(1, 0, 0), RedirectStatus: 302,
		}, nil))
	}
	for i := range 1250 {
		code := fmt.Sprintf("c%06d", i)
		url := fmt.Sprintf("https://example.com/item/%d", i)
		alias := ""
		switch i {
		case 1240: // the 11th newest
			url = "https://shop.example/Summer?utm=x"
		case 600:
			alias, code = "Summer-Sale", "summer-sale"
		case 100: // 1,150th newest: past the first call's budget
			code = "sUmMeR1"
		}
		add(i, code, alias, url, "a")
		add(i, fmt.Sprintf("b%06d", i), "", "https://example.com/summer/"+code, "b")
	}
	return m
}

func codes(ls []link.Link) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.Code
	}
	return out
}

// TestSearch: a case-folded substring of the code, the alias or the URL,
// newest first, only the owner's links; the pages a cursor walks hold every
// match once, even across the read budget.
func TestSearch(t *testing.T) {
	m := searchFixture(t)
	ctx := context.Background()
	all := []string{"c001240", "summer-sale", "sUmMeR1"}

	tests := []struct {
		name, q string
		limit   int
		pages   [][]string
	}{
		{name: "URL, alias and code, case folded", q: "SUMMER", limit: 10,
			// The first call reads 1,000 links (down to the 251st oldest):
			// two matches; the cursor goes on to the third.
			pages: [][]string{all[:2], all[2:]}},
		{name: "a page fills before the budget", q: "summer", limit: 1,
			// A full page has a cursor unless its last match was the
			// owner's oldest link: the last page here is empty.
			pages: [][]string{all[:1], all[1:2], all[2:], {}}},
		{name: "only past the budget: an empty page with a cursor", q: "summer1", limit: 5,
			pages: [][]string{{}, {"sUmMeR1"}}},
		{name: "alias display form", q: "mer-sa", limit: 5, pages: [][]string{{"summer-sale"}, {}}},
		{name: "no match reads on to the end", q: "nowhere", limit: 5, pages: [][]string{{}, {}}},
		{name: "exact code", q: "c000007", limit: 5, pages: [][]string{{}, {"c000007"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got [][]string
			cursor := ""
			for page := 0; ; page++ {
				require.Less(t, page, 10, "the cursor never ran out")
				ls, next, err := linkstore.Search(ctx, m, "a", tt.q, tt.limit, cursor)
				require.NoError(t, err)
				for _, l := range ls {
					assert.Equal(t, "a", l.Owner, "another owner's link")
				}
				got = append(got, append([]string{}, codes(ls)...))
				if next == "" {
					break
				}
				cursor = next
			}
			assert.Equal(t, tt.pages, got)
		})
	}
}

type failingLister struct{ err error }

func (f failingLister) List(context.Context, string, int, string) ([]link.Link, string, error) {
	return nil, "", f.err
}

func TestSearchStoreError(t *testing.T) {
	boom := errors.New("boom")
	_, _, err := linkstore.Search(context.Background(), failingLister{boom}, "a", "x", 10, "")
	assert.ErrorIs(t, err, boom)
}
