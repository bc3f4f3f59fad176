package audit

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shortlink-dev/shortener/shared/link"
)

// Page sizes of a query.
const (
	DefaultPageSize = 50
	MaxPageSize     = 100
)

// MaxFilterLen bounds the target and actor filters.
const MaxFilterLen = 256

// Filter selects a workspace's entries, newest first. Every field set
// must match; the zero Filter is the whole log.
type Filter struct {
	Target   TargetType
	TargetID string
	Actor    string
	// From (inclusive) and To (exclusive) bound the entries' times.
	From, To time.Time
	// Limit is the page size, 1 to MaxPageSize.
	Limit int
	// After is the position after the previous page's last entry: the
	// entry ID an opaque cursor holds ("" for the first page).
	After string
}

// Matches reports whether e is one of the entries f selects, position
// aside.
func (f Filter) Matches(e Entry) bool {
	return (f.Target == "" || e.Target == f.Target) &&
		(f.TargetID == "" || e.TargetID == f.TargetID) &&
		(f.Actor == "" || e.Actor.ID == f.Actor) &&
		(f.From.IsZero() || !e.At.Before(f.From)) &&
		(f.To.IsZero() || e.At.Before(f.To))
}

// Page is one page of entries and the cursor of the next ("" when this is
// the last).
type Page struct {
	Entries []Entry
	Next    string
}

// Reader reads a workspace's log: only that workspace's, whatever the
// filter or cursor says.
type Reader interface {
	Query(ctx context.Context, workspace string, f Filter) (Page, error)
}

// EncodeCursor is the opaque cursor of the position after the entry id.
func EncodeCursor(id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(id))
}

// DecodeCursor reads a cursor a client sent back: the entry ID it holds,
// "" for none. Anything but a cursor EncodeCursor made is a 400 naming
// the field.
func DecodeCursor(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || !ValidID(string(b)) {
		return "", &link.FieldError{Field: "cursor", Reason: "is not a cursor this API returned"}
	}
	return string(b), nil
}

// ValidID reports whether id has NewID's form.
func ValidID(id string) bool {
	ts, suffix, ok := strings.Cut(id, "#")
	if !ok || len(suffix) != 16 || len(ts) != len(idTime) {
		return false
	}
	if _, err := time.Parse(idTime, ts); err != nil {
		return false
	}
	for i := 0; i < len(suffix); i++ {
		c := suffix[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// ParseFilter reads the query string of GET /v1/audit: target_type,
// target, actor, from and to (RFC 3339), limit and cursor. Each bad value
// is a 400 naming its parameter.
func ParseFilter(query func(name string) string) (Filter, error) {
	f := Filter{Limit: DefaultPageSize}
	if v := query("target_type"); v != "" {
		f.Target = TargetType(v)
		if !f.Target.Valid() {
			return Filter{}, &link.FieldError{Field: "target_type", Reason: fmt.Sprintf("must be one of %v", TargetTypes)}
		}
	}
	var err error
	if f.TargetID, err = textFilter("target", query("target")); err != nil {
		return Filter{}, err
	}
	if f.Actor, err = textFilter("actor", query("actor")); err != nil {
		return Filter{}, err
	}
	if f.From, err = timeFilter("from", query("from")); err != nil {
		return Filter{}, err
	}
	if f.To, err = timeFilter("to", query("to")); err != nil {
		return Filter{}, err
	}
	if !f.From.IsZero() && !f.To.IsZero() && !f.From.Before(f.To) {
		return Filter{}, &link.FieldError{Field: "to", Reason: "must be after from"}
	}
	if v := query("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxPageSize {
			return Filter{}, &link.FieldError{Field: "limit", Reason: fmt.Sprintf("must be an integer from 1 to %d", MaxPageSize)}
		}
		f.Limit = n
	}
	if f.After, err = DecodeCursor(query("cursor")); err != nil {
		return Filter{}, err
	}
	return f, nil
}

func textFilter(field, v string) (string, error) {
	if !utf8.ValidString(v) || len(v) > MaxFilterLen {
		return "", &link.FieldError{Field: field, Reason: fmt.Sprintf("must be valid UTF-8 of at most %d bytes", MaxFilterLen)}
	}
	return v, nil
}

func timeFilter(field, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil || t.Year() < 2000 || t.Year() > 9999 {
		return time.Time{}, &link.FieldError{Field: field, Reason: "must be an RFC 3339 time, such as 2026-01-31T00:00:00Z"}
	}
	return t.UTC(), nil
}

// KeyRange is the range of entry IDs f's time bounds and position allow,
// newest first: IDs below hi (exclusive; "" unbounded) and at or above lo
// ("" unbounded).
func (f Filter) KeyRange() (lo, hi string) {
	if !f.From.IsZero() {
		lo = idBound(f.From)
	}
	if !f.To.IsZero() {
		hi = idBound(f.To)
	}
	if f.After != "" && (hi == "" || f.After < hi) {
		hi = f.After
	}
	return lo, hi
}
