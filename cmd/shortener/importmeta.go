package main

import (
	"fmt"
	"strings"

	"github.com/shortlink-dev/shortener/shared/link"
)

// keepMeta gives row's link the source's title, notes and tags, each as
// the API's rules take it (link.ValidateTitle, ValidateNotes,
// NormalizeTag). A title or notes the rules refuse (too long, control or
// bidi characters) is reported not kept rather than failing the row; a
// tag is lower-cased with its spaces made hyphens ("Spring Sale" is
// spring-sale), and one that still does not fit the tag character set, or
// past the 20th, is reported not kept by name.
func (r *importRow) keepMeta(title, notes string, tags []string) {
	if title = strings.TrimSpace(title); title != "" {
		if t, err := link.ValidateTitle(title); err == nil {
			r.req.Title = &t
		} else {
			r.lose(true, lostTitle)
		}
	}
	if strings.TrimSpace(notes) != "" {
		if n, err := link.ValidateNotes(notes); err == nil {
			r.req.Notes = &n
		} else {
			r.lose(true, lostDescription)
		}
	}
	var kept []string
	for _, raw := range tags {
		if strings.TrimSpace(raw) == "" {
			continue
		}
		t, err := link.NormalizeTag(strings.Join(strings.Fields(raw), "-"))
		switch {
		case err != nil:
			r.lose(true, fmt.Sprintf("tag %q", raw))
		case contains(kept, t):
		case len(kept) == link.MaxTags:
			r.lose(true, fmt.Sprintf("tag %q (past the %dth)", raw, link.MaxTags))
		default:
			kept = append(kept, t)
		}
	}
	r.req.Tags = kept
}

// splitTags splits a cell of tags joined by sep, as Dub writes them
// ("launch, blog").
func splitTags(cell, sep string) []string {
	if cell == "" || cell == "[]" {
		return nil
	}
	return strings.Split(cell, sep)
}
