package linkapi

import (
	"slices"

	"github.com/shortlink-dev/shortener/shared/link"
)

// Meta is a link's title, notes and tags as the API shows them; each is
// absent when the link has none.
type Meta struct {
	Title string   `json:"title,omitempty"`
	Notes string   `json:"notes,omitempty"`
	Tags  []string `json:"tags,omitempty"`
}

// PresentMeta shows m.
func PresentMeta(m link.Meta) Meta {
	return Meta{Title: m.Title, Notes: m.Notes, Tags: slices.Clone(m.Tags)}
}

// TagCount is one of an owner's tags with how many of their links carry it.
type TagCount struct {
	Tag   string `json:"tag"`
	Links int64  `json:"links"`
}

// TagList is the body of GET /v1/tags: the owner's tags in tag order;
// tags is never null in the JSON.
type TagList struct {
	Tags []TagCount `json:"tags"`
}
