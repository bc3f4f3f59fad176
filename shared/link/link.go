package link

import (
	"slices"
	"strings"
	"time"

	"github.com/shortlink-dev/shortener/shared/shortcode"
)

// Status is where a link stands in its lifecycle.
type Status string

const (
	// StatusActive links redirect.
	StatusActive Status = "active"
	// StatusDisabled links answer 410 until their owner enables them again.
	StatusDisabled Status = "disabled"
	// StatusDeleted links were removed by their owner. The API turns a
	// delete straight into a tombstone; the status exists for items written
	// by older versions and resolves to 410 like the others.
	StatusDeleted Status = "deleted"
	// StatusTombstone marks a dead code held back from reuse during a grace period.
	StatusTombstone Status = "tombstone"
)

// Link is one short link.
type Link struct {
	// Code is the storage key: a generated code as drawn (case-sensitive) or
	// a custom alias lower-cased.
	Code string
	// Alias is the display form of a custom alias as the caller typed it;
	// empty for generated codes.
	Alias     string
	URL       string
	Owner     string
	CreatedAt time.Time
	UpdatedAt time.Time
	ExpiresAt time.Time
	Status    Status
	// Version starts at 1 and increments on every change.
	Version        int64
	RedirectStatus int
	// Features are the link's per-click features (rules.go); the zero
	// value has none.
	Features
	// ReclaimAfter is, for a tombstone as the redirect reads it
	// (Tombstone.AsLink), when reclaim may release the code for reuse;
	// zero for every other link.
	ReclaimAfter time.Time
	// ImportedClicks is the click total another shortener counted for the
	// link before it was imported (its export's clicks, hits or visits),
	// set once at create: the stats show it apart from the clicks counted
	// here, never added into them. Zero when there is none.
	ImportedClicks int64
}

// Clone is l with its own copy of every list its features hold, so that a
// store can keep a link that neither its writer nor a reader can change.
func (l Link) Clone() Link {
	l.Features = l.Features.Clone()
	return l
}

// CustomAlias reports whether the code was chosen by the caller.
func (l Link) CustomAlias() bool { return l.Alias != "" }

// Resolution is what a redirect does with a stored link at a given moment.
type Resolution int

const (
	// Redirect sends the visitor to the link's URL.
	Redirect Resolution = iota
	// Gone answers 410: expired, disabled, deleted or tombstoned.
	Gone
)

// Resolve says how a redirect at time now treats the link. Expiry is
// enforced here, not by DynamoDB TTL: TTL deletes up to days late and
// expired items read back until then.
func (l Link) Resolve(now time.Time) Resolution {
	if l.Status != StatusActive || !now.Before(l.ExpiresAt) {
		return Gone
	}
	return Redirect
}

// Path is the path of the link's short URL. A custom alias shows in the
// form its owner typed, unless that spelling could also be drawn as a
// generated code of any length the configuration allows
// (shortcode.IsAnyCode): generated codes are case-sensitive keys of their
// own, and the configured length may change, so such an alias is shown in
// its lower-cased storage form, which no generated code can shadow.
func (l Link) Path() string {
	if l.Alias == "" || l.Alias == l.Code || shortcode.IsAnyCode(l.Alias) {
		return l.Code
	}
	return l.Alias
}

// Tombstone holds a dead code back from reuse for a grace period, so that
// caches and replicas that still know the old target never send a visitor
// to someone else's new link (docs/lifecycle.md). It resolves to 410.
type Tombstone struct {
	Code string
	// PrevOwner is kept for audit; a tombstone belongs to no one, so it
	// leaves its owner's listing.
	PrevOwner    string
	TombstonedAt time.Time
	ReclaimAfter time.Time
	// Reason is "expired" (TTL) or "deleted" (by the owner).
	Reason string
	// ExpiredURL is an expired link's after-expiry URL (Features.ExpiredURL),
	// kept so that its visitors still go there, not to the 410 page, until
	// the code is reclaimed. A deleted link's tombstone has none.
	ExpiredURL string
}

// AsLink is the tombstone as a redirect reads it: a link with status
// tombstone (410), or its after-expiry URL (Features.ExpiredURL).
func (t Tombstone) AsLink() Link {
	// UpdatedAt is the tombstone's time: the change the redirect's edge
	// marks compare with the management API's fence (shared/edgemarks).
	return Link{Code: t.Code, Status: StatusTombstone, Features: Features{ExpiredURL: t.ExpiredURL}, ReclaimAfter: t.ReclaimAfter,
		UpdatedAt: t.TombstonedAt}
}

// Tombstone reasons.
const (
	ReasonExpired = "expired"
	ReasonDeleted = "deleted"
)

// DefaultTombstoneGrace is how long a dead code is held back.
const DefaultTombstoneGrace = 30 * 24 * time.Hour

// NewTombstone is code's tombstone written at now for reason, holding the
// code for grace (DefaultTombstoneGrace when zero), at the precision the
// store keeps: milliseconds, and whole seconds for the reclaim time.
func NewTombstone(code, prevOwner, reason string, now time.Time, grace time.Duration) Tombstone {
	if grace <= 0 {
		grace = DefaultTombstoneGrace
	}
	return Tombstone{Code: code, PrevOwner: prevOwner, Reason: reason,
		TombstonedAt: now.Truncate(time.Millisecond), ReclaimAfter: now.Add(grace).Truncate(time.Second)}
}

// EdgePaths are the paths under which CloudFront may hold the link's
// answer for long: the code and, for an alias, its display spelling (one
// of them is Path). Versions that showed a code-shaped alias in its display
// form cached that spelling long too, so it stays on the list. Invalidation
// paths are case-sensitive like the edge's keys; the redirect caches any
// other spelling of an alias only briefly.
func (l Link) EdgePaths() []string {
	paths := []string{"/" + l.Code}
	for _, p := range []string{l.Path(), l.Alias} {
		if p != "" && !slices.Contains(paths, "/"+p) {
			paths = append(paths, "/"+p)
		}
	}
	return paths
}

// LookupKeys are the storage keys a path segment may name, in the order to
// try them, or none when no link can have it. A segment spelt like a
// generated code of any allowed length (shortcode.IsAnyCode, never only the
// length configured today, which may have changed since the code was
// drawn) is its own key first: generated codes are case-sensitive, and
// nearly every such segment is one, found in one read. When it has
// capitals, the lower-cased key of an alias typed in another case comes
// second; only a custom alias answers to it (NamedBy). Any other segment
// can only be an alias, stored lower-cased. Reserved words are routes,
// never links.
//
// The first key is the one the segment's clicks count under: a redirect
// answers with a link found under a later key only by sending the visitor
// to the link's Path first (see the redirect handler), so the click log
// can key every click from the path alone.
func LookupKeys(segment string) []string {
	if !IsAliasSyntax(segment) || IsReserved(segment) {
		return nil
	}
	lower := strings.ToLower(segment)
	if lower != segment && shortcode.IsAnyCode(segment) {
		return []string{segment, lower}
	}
	return []string{lower}
}

// NamedBy reports whether segment names l, a link found under one of
// LookupKeys(segment). Under the segment's own key it always does; under a
// lower-cased key only an alias does, since aliases are case-insensitive
// and generated codes are not (ABCDEFG never names the code abcdefg). A
// tombstone keeps no trace of which it was, and answers either way: a
// dead code's 410.
func (l Link) NamedBy(segment string) bool {
	return l.Code == segment || l.CustomAlias() || l.Status == StatusTombstone
}
