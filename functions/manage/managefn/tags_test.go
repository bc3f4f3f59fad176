package managefn

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apigw/apigwtest"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkapi"
)

// seedTagged is seed with a title and tags.
func (f *fixture) seedTagged(t *testing.T, code, owner, title string, tags ...string) link.Link {
	t.Helper()
	l := f.seed(t, code, "", owner)
	l.Title, l.Tags, l.Version = title, tags, 2
	require.NoError(t, f.store.Update(context.Background(), l, 1))
	f.clock.Add(time.Second)
	return l
}

func pageCodes(t *testing.T, page linkapi.LinkPage) []string {
	t.Helper()
	var got []string
	for _, l := range page.Links {
		got = append(got, l.Code)
	}
	return got
}

func TestListByTag(t *testing.T) {
	f := newFixture(t)
	f.seedTagged(t, "abcdefg", ownerA, "Spring launch", "launch", "eu")
	f.seedTagged(t, "hijklmn", ownerA, "Autumn sale", "sale")
	f.seedTagged(t, "opqrstu", ownerA, "Launch, US", "launch", "us")
	f.seedTagged(t, "zzzzzzz", ownerB, "Launch of B", "launch")

	tests := []struct {
		name      string
		query     []string
		want      []string
		wantField string
	}{
		{name: "one tag, newest first, only mine", query: []string{"tag", "launch"}, want: []string{"opqrstu", "abcdefg"}},
		{name: "any of several, comma-separated", query: []string{"tag", "sale,eu"}, want: []string{"hijklmn", "abcdefg"}},
		{name: "normalised", query: []string{"tag", " LAUNCH "}, want: []string{"opqrstu", "abcdefg"}},
		{name: "with q on the title", query: []string{"tag", "launch", "q", "spring"}, want: []string{"abcdefg"}},
		{name: "q alone finds titles", query: []string{"q", "autumn"}, want: []string{"hijklmn"}},
		{name: "a tag no link has", query: []string{"tag", "nothing"}, want: nil},
		{name: "bad tag", query: []string{"tag", "a b"}, wantField: "tag"},
		{name: "empty tag in the list", query: []string{"tag", "a,,b"}, wantField: "tag"},
		{name: "eleven tags", query: []string{"tag", "a,b,c,d,e,f,g,h,i,j,k"}, wantField: "tag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := f.do(t, apigwtest.WithQuery(event(t, "list-links.json"), tt.query...))
			if tt.wantField != "" {
				apigwtest.RequireProblem(t, resp, 400, tt.wantField)
				return
			}
			require.Equal(t, 200, resp.StatusCode, resp.Body)
			page := apigwtest.Decode[linkapi.LinkPage](t, resp)
			assert.Equal(t, tt.want, pageCodes(t, page))
		})
	}

	t.Run("a listing shows titles and tags", func(t *testing.T) {
		resp := f.do(t, apigwtest.WithQuery(event(t, "list-links.json"), "tag", "sale"))
		require.Equal(t, 200, resp.StatusCode, resp.Body)
		page := apigwtest.Decode[linkapi.LinkPage](t, resp)
		require.Len(t, page.Links, 1)
		assert.Equal(t, "Autumn sale", page.Links[0].Title)
		assert.Equal(t, []string{"sale"}, page.Links[0].Tags)
	})

	t.Run("a repeated tag parameter is refused, not read as its last value", func(t *testing.T) {
		ev := apigwtest.WithQuery(event(t, "list-links.json"), "tag", "eu")
		ev.MultiValueQueryStringParameters["tag"] = []string{"launch", "eu"}
		apigwtest.RequireProblem(t, f.do(t, ev), 400, "tag")
	})
}

func TestListTags(t *testing.T) {
	f := newFixture(t)
	f.seedTagged(t, "abcdefg", ownerA, "", "launch", "eu")
	f.seedTagged(t, "opqrstu", ownerA, "", "launch")
	f.seedTagged(t, "zzzzzzz", ownerB, "", "secret-b")

	resp := f.do(t, event(t, "list-tags.json"))
	require.Equal(t, 200, resp.StatusCode, resp.Body)
	assert.JSONEq(t, `{"tags":[{"tag":"eu","links":1},{"tag":"launch","links":2}]}`, resp.Body)

	resp = f.do(t, as(event(t, "list-tags.json"), ownerB))
	require.Equal(t, 200, resp.StatusCode, resp.Body)
	assert.JSONEq(t, `{"tags":[{"tag":"secret-b","links":1}]}`, resp.Body)

	none := newFixture(t)
	resp = none.do(t, event(t, "list-tags.json"))
	require.Equal(t, 200, resp.StatusCode, resp.Body)
	assert.JSONEq(t, `{"tags":[]}`, resp.Body)

	post := event(t, "list-tags.json")
	post.HTTPMethod = "POST"
	assert.Equal(t, 405, f.do(t, post).StatusCode)
}

func TestPatchMeta(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		want      link.Meta
		wantField string
	}{
		{name: "set all", body: `{"title":" Launch ","notes":"line 1\nline 2","tags":["B","a","b"]}`,
			want: link.Meta{Title: "Launch", Notes: "line 1\nline 2", Tags: []string{"b", "a"}}},
		{name: "title with a bidi override", body: `{"title":"abc\u202edef"}`, wantField: "title"},
		{name: "title too long", body: `{"title":"` + strings.Repeat("x", 201) + `"}`, wantField: "title"},
		{name: "notes too long", body: `{"notes":"` + strings.Repeat("x", 2001) + `"}`, wantField: "notes"},
		{name: "bad tag", body: `{"tags":["a/b"]}`, wantField: "tags"},
		{name: "tags not a list", body: `{"tags":"a"}`, wantField: "tags"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.seed(t, code, "", ownerA)
			resp := f.do(t, apigwtest.WithBody(event(t, "patch-link.json"), tt.body))
			if tt.wantField != "" {
				apigwtest.RequireProblem(t, resp, 400, tt.wantField)
				assert.Equal(t, int64(1), f.stored(t, code).Version, "nothing written")
				return
			}
			require.Equal(t, 200, resp.StatusCode, resp.Body)
			assert.Equal(t, tt.want, f.stored(t, code).Meta)
			assert.Empty(t, f.edge.Invalidations(), "a title, notes or tags change no redirect")
		})
	}

	t.Run("null removes", func(t *testing.T) {
		f := newFixture(t)
		f.seedTagged(t, code, ownerA, "Title", "a")
		resp := f.do(t, apigwtest.WithBody(withIfMatch(event(t, "patch-link.json"), `"2"`), `{"title":null,"tags":null}`))
		require.Equal(t, 200, resp.StatusCode, resp.Body)
		assert.Equal(t, link.Meta{}, f.stored(t, code).Meta)
		assert.Equal(t, int64(3), f.stored(t, code).Version)
	})

	t.Run("the same meta writes nothing", func(t *testing.T) {
		f := newFixture(t)
		f.seedTagged(t, code, ownerA, "Title", "a")
		resp := f.do(t, apigwtest.WithBody(withIfMatch(event(t, "patch-link.json"), `"2"`), `{"title":"Title","tags":["A"]}`))
		require.Equal(t, 200, resp.StatusCode, resp.Body)
		assert.Equal(t, int64(2), f.stored(t, code).Version)
	})
}
