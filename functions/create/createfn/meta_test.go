package createfn

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/apigw/apigwtest"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkapi"
	"github.com/shortlink-dev/shortener/shared/linkstore"
)

func TestCreateWithMeta(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		want  link.Meta
		field string
	}{
		{name: "title, notes and tags", body: `{"url":"https://example.com/","title":" Spring ","notes":"a\nb","tags":["Launch","eu","launch"]}`,
			want: link.Meta{Title: "Spring", Notes: "a\nb", Tags: []string{"launch", "eu"}}},
		{name: "none", body: `{"url":"https://example.com/"}`, want: link.Meta{}},
		{name: "title with a control character", body: `{"url":"https://example.com/","title":"a\u0007b"}`, field: "title"},
		{name: "title with a bidi override", body: `{"url":"https://example.com/","title":"a\u202eb"}`, field: "title"},
		{name: "title too long", body: `{"url":"https://example.com/","title":"` + strings.Repeat("é", 201) + `"}`, field: "title"},
		{name: "notes too long", body: `{"url":"https://example.com/","notes":"` + strings.Repeat("n", 2001) + `"}`, field: "notes"},
		{name: "too many tags", body: `{"url":"https://example.com/","tags":["a","b","c","d","e","f","g","h","i","j","k","l","m","n","o","p","q","r","s","t","u"]}`, field: "tags"},
		{name: "tag out of the character set", body: `{"url":"https://example.com/","tags":["a+b"]}`, field: "tags"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, "Ab3dE5g")
			resp, err := f.h.Handle(context.Background(), apigwtest.WithBody(event(t, "create-request.json"), tt.body))
			require.NoError(t, err)
			if tt.field != "" {
				apigwtest.RequireProblem(t, resp, 400, tt.field)
				_, err := f.store.Get(context.Background(), "Ab3dE5g")
				require.ErrorIs(t, err, link.ErrNotFound, "nothing written")
				return
			}
			require.Equal(t, 201, resp.StatusCode, resp.Body)
			got := apigwtest.Decode[linkapi.Link](t, resp)
			assert.Equal(t, linkapi.PresentMeta(tt.want), got.Meta)
			stored, err := f.store.Get(context.Background(), "Ab3dE5g")
			require.NoError(t, err)
			assert.Equal(t, tt.want, stored.Meta)
		})
	}
}

// TestBatchWithTagsOnDynamoDBLocal: a batch's tagged links are indexed in
// the tags table, and an item with a bad tag fails alone.
func TestBatchWithTagsOnDynamoDBLocal(t *testing.T) {
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
	cfg := dynamo.LinkConfig{LinksTable: testenv.UniqueName(t, "links"), IdempotencyTable: testenv.UniqueName(t, "idem"),
		TagsTable: testenv.UniqueName(t, "tags"), Timeout: 10 * time.Second}
	require.NoError(t, localtable.Links(context.Background(), db, cfg.LinksTable, cfg.IdempotencyTable))
	require.NoError(t, localtable.LinkTags(context.Background(), db, cfg.TagsTable))
	store := dynamo.NewLinkStore(db, cfg)
	h := batchHandler(t, store)

	resp, err := h.Handle(context.Background(), batchEvent(t, batchOf(
		map[string]any{"url": "https://example.com/1", "title": "One", "tags": []string{"a", "b"}},
		map[string]any{"url": "https://example.com/2", "tags": []string{"not ok"}},
		map[string]any{"url": "https://example.com/3", "tags": []string{"B"}},
	)))
	require.NoError(t, err)
	rs := results(t, resp)
	require.Len(t, rs, 3)
	assert.Equal(t, 201, rs[0].Status)
	assert.Equal(t, "One", rs[0].Link.Title)
	assert.Equal(t, 400, rs[1].Status)
	assert.Equal(t, "tags", problemOf(t, rs[1]).Field)
	assert.Equal(t, 201, rs[2].Status)

	counts, err := store.TagCounts(context.Background(), "p6r4ocs3d1")
	require.NoError(t, err)
	assert.Equal(t, []linkstore.TagCount{{Tag: "a", Links: 1}, {Tag: "b", Links: 2}}, counts)
}
