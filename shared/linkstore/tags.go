package linkstore

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/shortlink-dev/shortener/shared/link"
)

// MaxTagFilter bounds how many tags one listing may ask for.
const MaxTagFilter = 10

// TagCount is one of an owner's tags and how many of their links carry it.
type TagCount struct {
	Tag   string
	Links int64
}

// Tagged is what a store that indexes tags answers besides Store. Every
// call is scoped to owner: another owner's tags are never read.
type Tagged interface {
	// ListTagged returns owner's links carrying any of tags (normalised,
	// at most MaxTagFilter), newest first, at most limit, with the cursor
	// of the next page ("" when there is none); cursors are List's.
	ListTagged(ctx context.Context, owner string, tags []string, limit int, cursor string) ([]link.Link, string, error)
	// TagCounts lists owner's tags that at least one of their links
	// carries, in tag order, with how many do.
	TagCounts(ctx context.Context, owner string) ([]TagCount, error)
}

// ParseTagFilter reads the tag= values of a listing: each value may hold
// several tags separated by commas (tag=a,b is tag=a&tag=b), normalised
// as on a link (link.NormalizeTag), duplicates dropped; more than
// MaxTagFilter is a *link.FieldError naming tag.
func ParseTagFilter(values []string) ([]string, error) {
	var tags []string
	for _, v := range values {
		for _, raw := range strings.Split(v, ",") {
			t, err := link.NormalizeTag(raw)
			if err != nil {
				return nil, &link.FieldError{Field: "tag", Reason: strings.TrimPrefix(err.(*link.FieldError).Reason, "each ")}
			}
			if !slices.Contains(tags, t) {
				tags = append(tags, t)
			}
		}
	}
	if len(tags) > MaxTagFilter {
		return nil, &link.FieldError{Field: "tag", Reason: fmt.Sprintf("names at most %d tags, not %d", MaxTagFilter, len(tags))}
	}
	return tags, nil
}

// TaggedLister lists an owner's links carrying any of Tags through List's
// signature, so Search can filter a tag's links by a text as it filters
// the whole listing.
type TaggedLister struct {
	Store Tagged
	Tags  []string
}

// List implements Lister.
func (t TaggedLister) List(ctx context.Context, owner string, limit int, cursor string) ([]link.Link, string, error) {
	return t.Store.ListTagged(ctx, owner, t.Tags, limit, cursor)
}

// HasAnyTag reports whether l carries one of tags.
func HasAnyTag(l link.Link, tags []string) bool {
	for _, t := range l.Tags {
		if slices.Contains(tags, t) {
			return true
		}
	}
	return false
}

var _ Tagged = (*Memory)(nil)

// ListTagged implements Tagged.
func (m *Memory) ListTagged(ctx context.Context, owner string, tags []string, limit int, cursor string) ([]link.Link, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	after, err := DecodeCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	limit = clampLimit(limit)
	m.mu.Lock()
	var all []link.Link
	for _, e := range m.links {
		if e.tomb == nil && e.link.Owner == owner && after.Before(e.link) && HasAnyTag(e.link, tags) {
			all = append(all, Listed(e.link.Clone()))
		}
	}
	m.mu.Unlock()
	sortNewestFirst(all)
	if len(all) <= limit {
		return all, "", nil
	}
	page := all[:limit]
	return page, EncodeCursor(page[limit-1]), nil
}

// TagCounts implements Tagged.
func (m *Memory) TagCounts(ctx context.Context, owner string) ([]TagCount, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	counts := map[string]int64{}
	m.mu.Lock()
	for _, e := range m.links {
		if e.tomb == nil && e.link.Owner == owner {
			for _, t := range e.link.Tags {
				counts[t]++
			}
		}
	}
	m.mu.Unlock()
	out := make([]TagCount, 0, len(counts))
	for t, n := range counts {
		out = append(out, TagCount{Tag: t, Links: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Tag < out[j].Tag })
	return out, nil
}

func sortNewestFirst(all []link.Link) {
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if !a.CreatedAt.Equal(b.CreatedAt) {
			return a.CreatedAt.After(b.CreatedAt)
		}
		return a.Code > b.Code
	})
}

// ListTagged implements Tagged through the links store when it is one.
func (r *Reserved) ListTagged(ctx context.Context, owner string, tags []string, limit int, cursor string) ([]link.Link, string, error) {
	t, ok := r.Links.(Tagged)
	if !ok {
		return nil, "", fmt.Errorf("list tagged links: the links store keeps no tags: %w", link.ErrUnavailable)
	}
	return t.ListTagged(ctx, owner, tags, limit, cursor)
}

// TagCounts implements Tagged through the links store when it is one.
func (r *Reserved) TagCounts(ctx context.Context, owner string) ([]TagCount, error) {
	t, ok := r.Links.(Tagged)
	if !ok {
		return nil, fmt.Errorf("count tags: the links store keeps no tags: %w", link.ErrUnavailable)
	}
	return t.TagCounts(ctx, owner)
}
