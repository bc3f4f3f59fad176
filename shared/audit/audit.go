package audit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"time"
)

// Source is where a change was asked from.
type Source string

// Sources. The console says it is the console with ClientHeader; every
// other request is the API's.
const (
	SourceAPI     Source = "api"
	SourceConsole Source = "console"
)

// ClientHeader is the request header the web console sends, with the
// value ClientConsole, so its changes are told from the API's.
const (
	ClientHeader  = "X-Shortener-Client"
	ClientConsole = "console"
)

// SourceOf is the source a request's ClientHeader value names: the
// console for exactly ClientConsole (any case), the API otherwise. The
// header is the client's word, not proof: it tells the console's own
// changes apart, it authenticates nothing.
func SourceOf(client string) Source {
	if len(client) == len(ClientConsole) && equalFold(client, ClientConsole) {
		return SourceConsole
	}
	return SourceAPI
}

func equalFold(a, b string) bool {
	for i := 0; i < len(a); i++ {
		ca, cb := a[i]|0x20, b[i]|0x20
		if ca != cb {
			return false
		}
	}
	return true
}

// TargetType is the kind of thing an entry's change was made to.
type TargetType string

// Target types.
const (
	TargetLink    TargetType = "link"
	TargetWebhook TargetType = "webhook"
	TargetKey     TargetType = "key"
	TargetMember  TargetType = "member"
)

// TargetTypes are the target types, in the order the API documents them.
var TargetTypes = []TargetType{TargetLink, TargetWebhook, TargetKey, TargetMember}

// Valid reports whether t is one of TargetTypes.
func (t TargetType) Valid() bool {
	for _, v := range TargetTypes {
		if t == v {
			return true
		}
	}
	return false
}

// Actions: what happened to the target.
const (
	ActionCreate = "create"
	ActionUpdate = "update"
	ActionDelete = "delete"
)

// Actor is who made a change: the /v1 authorizer's actor
// ("key:1a2b3c4d", "user:<sub>") and, for a signed-in user, the username.
type Actor struct {
	ID       string
	Username string
}

// Entry is one change on the audit log.
type Entry struct {
	// Workspace is the log the entry is in: the owner the change's
	// target belongs to.
	Workspace string
	// ID orders the workspace's entries by time and is unique in it
	// (NewID).
	ID     string
	At     time.Time
	Actor  Actor
	Source Source
	Action string
	Target TargetType
	// TargetID is the link's code as stored (an alias lower-cased), the
	// subscription's, key's or member's ID.
	TargetID string
	// Before and After are the target as JSON, each absent (nil) when the
	// target did not exist on that side of the change. Redact runs over
	// both before any adapter writes them.
	Before json.RawMessage
	After  json.RawMessage
}

// idTime is the time part of an ID: fixed width, so IDs sort as their
// times do.
const idTime = "2006-01-02T15:04:05.000Z"

// NewID is an entry ID for time at: the time in milliseconds, then 8
// random bytes, so two entries of one millisecond never share an ID.
func NewID(at time.Time) string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return at.UTC().Format(idTime) + "#" + hex.EncodeToString(b[:])
}

// idBound is the smallest ID of time t: every entry at or after t sorts
// at or after it.
func idBound(t time.Time) string { return t.UTC().Format(idTime) }

// Recorder writes entries. Record fills an entry's ID and At when they
// are zero, redacts Before and After, and writes it once: an entry with
// an ID already written is refused, never replaced.
type Recorder interface {
	Record(ctx context.Context, e Entry) error
}

// Prepare is e as a Recorder writes it: ID and At filled in when zero
// (At from now), Before and After redacted.
func Prepare(e Entry, now time.Time) Entry {
	if e.At.IsZero() {
		e.At = now
	}
	e.At = e.At.UTC().Truncate(time.Millisecond)
	if e.ID == "" {
		e.ID = NewID(e.At)
	}
	if e.Source == "" {
		e.Source = SourceAPI
	}
	e.Before, e.After = Redact(e.Before), Redact(e.After)
	return e
}
