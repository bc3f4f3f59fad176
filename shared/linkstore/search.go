package linkstore

import (
	"context"
	"strings"

	"github.com/shortlink-dev/shortener/shared/link"
)

// Lister is the part of a Store that Search reads.
type Lister interface {
	List(ctx context.Context, owner string, limit int, cursor string) ([]link.Link, string, error)
}

// MaxQueryLen bounds a search text.
const MaxQueryLen = 200

// SearchBudget is how many of the owner's links one Search call reads at
// most: a search reads the owner's index in pages, newest first, and
// keeps the links that match, so its cost grows with the links it passes
// over, not with the ones it finds.
const SearchBudget = 1000

// Search returns owner's links whose code, alias, URL or title contains q, case
// folded, newest first, at most limit, and the cursor to go on from ("" at
// the end). It reads at most SearchBudget links: when that runs out first,
// the page holds the matches found so far (perhaps none) and the cursor is
// the position of the last link read, so a caller that follows the cursor
// sees every match exactly once. It lists through List with the caller's
// owner, so it sees only that owner's links.
func Search(ctx context.Context, s Lister, owner, q string, limit int, cursor string) ([]link.Link, string, error) {
	if limit <= 0 || limit > MaxPage {
		limit = MaxPage
	}
	needle := strings.ToLower(q)
	var found []link.Link
	read := 0
	for read < SearchBudget {
		page, next, err := s.List(ctx, owner, min(MaxPage, SearchBudget-read), cursor)
		if err != nil {
			return nil, "", err
		}
		for i, l := range page {
			read++
			if !matches(l, needle) {
				continue
			}
			found = append(found, l)
			if len(found) == limit {
				if i == len(page)-1 && next == "" {
					return found, "", nil
				}
				return found, EncodeCursor(l), nil
			}
		}
		if next == "" {
			return found, "", nil
		}
		cursor = next
	}
	return found, cursor, nil
}

// matches reports whether l's code, alias, URL or title contains needle, which is
// lower-cased.
func matches(l link.Link, needle string) bool {
	return strings.Contains(strings.ToLower(l.Code), needle) ||
		strings.Contains(strings.ToLower(l.Alias), needle) ||
		strings.Contains(strings.ToLower(l.URL), needle) ||
		strings.Contains(strings.ToLower(l.Title), needle)
}
