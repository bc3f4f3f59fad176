package linkapi

import (
	"encoding/json"
	"time"

	"github.com/shortlink-dev/shortener/shared/link"
)

// PatchRequest is the body of PATCH /v1/links/{code}. Every field is
// optional; an absent (or null) field is left as it is. The code and the
// alias cannot be changed: they are the link's identity and its cache key
// at the edge.
type PatchRequest struct {
	URL            *string `json:"url,omitempty"`
	ExpiresAt      *string `json:"expires_at,omitempty"`
	TTLSeconds     *int64  `json:"ttl_seconds,omitempty"`
	RedirectStatus *int    `json:"redirect_status,omitempty"`
	// Status is "active" or "disabled"; the other statuses are reached by
	// DELETE or by expiry, never set.
	Status *string `json:"status,omitempty"`
	// The redirect-rule fields: absent leaves one as it is, null removes
	// it, a value replaces it (rules and targets whole; [] removes them
	// too).
	Password   Nullable[string]   `json:"password,omitzero"`
	MaxClicks  Nullable[int64]    `json:"max_clicks,omitzero"`
	Rules      Nullable[[]Rule]   `json:"rules,omitzero"`
	Targets    Nullable[[]Target] `json:"targets,omitzero"`
	ExpiredURL Nullable[string]   `json:"expired_url,omitzero"`
	// ForwardQuery and QueryPrecedence: null sets the default back
	// (true, "destination").
	ForwardQuery    Nullable[bool]   `json:"forward_query,omitzero"`
	QueryPrecedence Nullable[string] `json:"query_precedence,omitzero"`
	// ImportedClicks is read only to be refused by name: an imported
	// total is set once, at create (ImportedClicksRefused).
	ImportedClicks json.RawMessage `json:"imported_clicks,omitempty"`
}

// ImportedClicksRefused is the 400 a patch naming imported_clicks gets,
// or nil when it names none: an import's total is the source's, set with
// the link and never changed after.
func (r PatchRequest) ImportedClicksRefused() error {
	if r.ImportedClicks == nil {
		return nil
	}
	return &link.FieldError{Field: "imported_clicks", Reason: "is set only when a link is created (an import's click total), never by PATCH"}
}

// Empty reports whether the patch names no field to change.
func (r PatchRequest) Empty() bool {
	return r.URL == nil && r.ExpiresAt == nil && r.TTLSeconds == nil && r.RedirectStatus == nil && r.Status == nil &&
		!r.Password.Set && !r.MaxClicks.Set && !r.Rules.Set && !r.Targets.Set && !r.ExpiredURL.Set &&
		!r.ForwardQuery.Set && !r.QueryPrecedence.Set
}

// ExpiresAtTime parses expires_at as RFC 3339, the way CreateRequest.Domain
// does; nil when the patch does not name it.
func (r PatchRequest) ExpiresAtTime() (*time.Time, error) {
	if r.ExpiresAt == nil {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339, *r.ExpiresAt)
	if err != nil {
		return nil, &link.FieldError{Field: "expires_at", Reason: "must be an RFC 3339 time such as 2030-01-02T15:04:05Z"}
	}
	return &t, nil
}

// LinkDetail is a link as its owner manages it: the public form plus the
// lifecycle fields. Version is also the ETag a conditional PATCH or DELETE
// names in If-Match.
type LinkDetail struct {
	Link
	Status    link.Status `json:"status"`
	Version   int64       `json:"version"`
	UpdatedAt string      `json:"updated_at"`
}

// LinkPage is one page of GET /v1/links, newest first. NextCursor is absent
// on the last page; otherwise it is passed back as ?cursor= for the next.
type LinkPage struct {
	Links      []LinkDetail `json:"links"`
	NextCursor string       `json:"next_cursor,omitempty"`
}

// Detail presents l with its lifecycle fields.
func (p Presenter) Detail(l link.Link) LinkDetail {
	return LinkDetail{
		Link:      p.Link(l),
		Status:    l.Status,
		Version:   l.Version,
		UpdatedAt: l.UpdatedAt.UTC().Format(time.RFC3339Nano),
	}
}

// Page presents one page of links; links is never null in the JSON.
func (p Presenter) Page(links []link.Link, nextCursor string) LinkPage {
	page := LinkPage{Links: make([]LinkDetail, 0, len(links)), NextCursor: nextCursor}
	for _, l := range links {
		page.Links = append(page.Links, p.Detail(l))
	}
	return page
}
