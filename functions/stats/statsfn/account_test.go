package statsfn

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apigw/apigwtest"
	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/statsapi"
)

func account(t *testing.T, f *fixture, params map[string]string) events.APIGatewayProxyResponse {
	t.Helper()
	ev := event(t, "stats-default.json")
	ev.Path, ev.Resource, ev.PathParameters, ev.QueryStringParameters = "/v1/stats", ResourceAccount, nil, params
	resp, err := f.h.Handle(context.Background(), ev)
	require.NoError(t, err)
	return resp
}

func TestAccountStats(t *testing.T) {
	f := newFixture(t, seededClicks(t))
	f.h.Lists = f.links

	resp := account(t, f, nil)

	require.Equal(t, 200, resp.StatusCode, resp.Body)
	got := apigwtest.Decode[statsapi.AccountStats](t, resp)
	assert.Equal(t, day(24), got.From)
	assert.Equal(t, day(30).AddDate(0, 0, 1), got.To)
	assert.Equal(t, 5, got.Links, "the owner's five links, no one else's")
	assert.False(t, got.Partial)
	// Ab3dE5g 28 + 3, spring-sale 2, worldwide 78.
	assert.Equal(t, n(111, 102, 9), got.Totals)
	require.Len(t, got.Series, 7)
	assert.Equal(t, n(106, 98, 8), got.Series[6].Counts)
	assert.Equal(t, []statsapi.Link{{Code: "worldwide", Counts: n(78, 78, 0)}, {Code: "Ab3dE5g", Counts: n(31, 23, 8)}, {Code: "spring-sale", Counts: n(2, 1, 1)}}, got.TopLinks)
	assert.Equal(t, []statsapi.Named{{Name: "desktop", Counts: n(12, 12, 0)}, {Name: "bot", Counts: n(8, 0, 8)}, {Name: "mobile", Counts: n(8, 8, 0)}}, got.Devices)
	assert.Equal(t, statsapi.Country{Country: "US", Counts: n(17, 9, 8)}, got.Countries[0])
	assert.Nil(t, got.PerLink)
}

func TestAccountStatsPerLinkForTheList(t *testing.T) {
	f := newFixture(t, seededClicks(t))

	resp := account(t, f, map[string]string{"codes": "Ab3dE5g,0therXy,Spring-Sale", "from": "2026-11-24"})

	require.Equal(t, 200, resp.StatusCode, resp.Body)
	got := apigwtest.Decode[statsapi.AccountStats](t, resp)
	require.Len(t, got.PerLink, 3)
	assert.Equal(t, "Ab3dE5g", got.PerLink[0].Code)
	assert.Equal(t, n(31, 23, 8), got.PerLink[0].Totals)
	assert.Len(t, got.PerLink[0].Series, 7)
	assert.Equal(t, n(3, 3, 0), got.PerLink[0].Series[1].Counts, "day 25")
	assert.Equal(t, statsapi.LinkSeries{Code: "0therXy", Series: got.PerLink[1].Series}, got.PerLink[1], "someone else's link shows nothing")
	assert.Equal(t, statsapi.Counts{}, got.PerLink[1].Totals)
	assert.Equal(t, "Spring-Sale", got.PerLink[2].Code, "named as asked")
	assert.Equal(t, n(2, 1, 1), got.PerLink[2].Totals)
	assert.Equal(t, n(33, 24, 9), got.Totals)
}

func TestAccountStatsBadRequests(t *testing.T) {
	f := newFixture(t, seededClicks(t))
	f.h.Lists = f.links
	many := make([]string, MaxCodes+1)
	for i := range many {
		many[i] = "c" + strconv.Itoa(i)
	}
	tests := []struct {
		name   string
		params map[string]string
		field  string
	}{
		{"unknown parameter", map[string]string{"code": "x"}, "code"},
		{"hourly", map[string]string{"granularity": "hour"}, "granularity"},
		{"too many codes", map[string]string{"codes": strings.Join(many, ",")}, "codes"},
		{"empty codes", map[string]string{"codes": ","}, "codes"},
		{"tag where tags are not stored", map[string]string{"tag": "promo"}, "tag"},
		{"tag and codes", map[string]string{"tag": "promo", "codes": "a"}, "tag"},
		{"range", map[string]string{"from": "2026-11-30", "to": "2026-11-01"}, "from"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := account(t, f, tt.params)
			assert.Equal(t, 400, resp.StatusCode, resp.Body)
			assert.Contains(t, resp.Body, `"`+tt.field+``, resp.Body)
		})
	}
}

// manyLinks lists more links than an account request sums.
type manyLinks struct{ calls int }

func (m *manyLinks) List(_ context.Context, owner string, limit int, cursor string) ([]link.Link, string, error) {
	m.calls++
	page := make([]link.Link, limit)
	for i := range page {
		page[i] = link.Link{Code: "l" + strconv.Itoa(m.calls*1000+i), Owner: owner, CreatedAt: day(1)}
	}
	return page, "more", nil
}

func TestAccountStatsArePartialPastTheNewestThousand(t *testing.T) {
	f := newFixture(t, clickstore.NewMemory(0))
	lister := &manyLinks{}
	f.h.Lists = lister

	resp := account(t, f, nil)

	require.Equal(t, 200, resp.StatusCode, resp.Body)
	got := apigwtest.Decode[statsapi.AccountStats](t, resp)
	assert.Equal(t, statsapi.MaxAccountLinks, got.Links)
	assert.True(t, got.Partial)
	assert.Equal(t, statsapi.MaxAccountLinks/100, lister.calls, "ten pages, no more")
}

// onePerPage is a TagPager that answers one link a page, so a tag's
// links take several pages; it records the tags and owners asked for.
type onePerPage struct {
	links []link.Link
	asked []string
}

func (p *onePerPage) ListTagged(_ context.Context, owner string, tags []string, _ int, cursor string) ([]link.Link, string, error) {
	p.asked = append(p.asked, owner+" "+strings.Join(tags, ","))
	i := 0
	if cursor != "" {
		i, _ = strconv.Atoi(cursor)
	}
	if i >= len(p.links) {
		return nil, "", nil
	}
	next := ""
	if i+1 < len(p.links) {
		next = strconv.Itoa(i + 1)
	}
	return p.links[i : i+1], next, nil
}

// TestAccountStatsOfATag: ?tag= sums the links that carry the tag now,
// every page of them, and only the caller's (the pager is asked for the
// caller's own tag partition).
func TestAccountStatsOfATag(t *testing.T) {
	f := newFixture(t, seededClicks(t))
	pager := &onePerPage{links: []link.Link{
		{Code: "Ab3dE5g", Owner: owner, CreatedAt: day(1)},
		{Code: "spring-sale", Alias: "Spring-Sale", Owner: owner, CreatedAt: day(20).Add(10 * time.Hour)},
	}}
	f.h.Tagged = TagPages{Pager: pager}

	resp := account(t, f, map[string]string{"tag": "promo"})

	require.Equal(t, 200, resp.StatusCode, resp.Body)
	got := apigwtest.Decode[statsapi.AccountStats](t, resp)
	assert.Equal(t, 2, got.Links)
	assert.False(t, got.Partial)
	assert.Equal(t, n(33, 24, 9), got.Totals, "Ab3dE5g 31 and spring-sale 2")
	assert.Equal(t, []string{owner + " promo", owner + " promo"}, pager.asked, "two pages, the caller's partition")
}

func TestTagPagesStopsAtTheLimit(t *testing.T) {
	pager := &onePerPage{links: []link.Link{{Code: "a"}, {Code: "b"}, {Code: "c"}}}
	links, more, err := TagPages{Pager: pager}.ListTagged(context.Background(), "o", "t", 2)
	require.NoError(t, err)
	assert.Len(t, links, 2)
	assert.True(t, more, "a third link was left")
	links, more, err = TagPages{Pager: pager}.ListTagged(context.Background(), "o", "t", 3)
	require.NoError(t, err)
	assert.Len(t, links, 3)
	assert.False(t, more)
}
