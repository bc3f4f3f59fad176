package statsfn

import (
	"context"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
)

// TagPager pages an owner's links that carry any of tags, newest first:
// dynamo.LinkStore.ListTagged over the tags table.
type TagPager interface {
	ListTagged(ctx context.Context, owner string, tags []string, limit int, cursor string) ([]link.Link, string, error)
}

// TagPages is Tagged over a TagPager: ?tag= sums the links that carry the
// tag now, read page by page up to limit, as the listing reads them.
type TagPages struct{ Pager TagPager }

var _ Tagged = TagPages{}

// ListTagged implements Tagged.
func (t TagPages) ListTagged(ctx context.Context, owner, tag string, limit int) ([]link.Link, bool, error) {
	var out []link.Link
	cursor := ""
	for len(out) < limit {
		page, next, err := t.Pager.ListTagged(ctx, owner, []string{tag}, min(linkstore.MaxPage, limit-len(out)), cursor)
		if err != nil {
			return nil, false, err
		}
		out = append(out, page...)
		if next == "" {
			return out, false, nil
		}
		cursor = next
	}
	return out, true, nil
}
