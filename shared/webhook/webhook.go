package webhook

import (
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/shortlink-dev/shortener/shared/link"
)

// Event types a subscription can ask for.
const (
	LinkCreated = "link.created"
	LinkUpdated = "link.updated"
	LinkDeleted = "link.deleted"
	LinkExpired = "link.expired"
	LinkClicked = "link.clicked"
)

// EventTypes lists every event type, in the order the API documents them.
var EventTypes = []string{LinkCreated, LinkUpdated, LinkDeleted, LinkExpired, LinkClicked}

// Limits of a subscription.
const (
	// MaxURLBytes caps a receiver URL.
	MaxURLBytes = 2048
	// MaxSubscriptions caps one owner's subscriptions, so one key cannot
	// make every event fan out without bound.
	MaxSubscriptions = 25
)

// Subscription is one receiver of one owner's events.
type Subscription struct {
	ID     string
	Owner  string
	URL    string
	Events []string
	// HumanOnly drops link.clicked batches that counted only bots.
	HumanOnly bool
	// Secret is the signing secret, "whsec_" + base64 of the key bytes.
	Secret    string
	CreatedAt time.Time
	// Disabled is set when the receiver answered 410 Gone; nothing more
	// is sent to it.
	Disabled bool
}

// Wants reports whether s receives events of type typ.
func (s Subscription) Wants(typ string) bool {
	return !s.Disabled && slices.Contains(s.Events, typ)
}

// Event is one thing that happened to an owner's links, as it is signed
// and sent: its ID is the webhook-id of every delivery of it, on every
// retry and to every subscription.
type Event struct {
	ID        string          `json:"id"`
	Owner     string          `json:"owner"`
	Type      string          `json:"type"`
	Timestamp time.Time       `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
	// HumanClicks, on link.clicked, is how many of the batch's clicks
	// were human, for subscriptions with HumanOnly.
	HumanClicks int64 `json:"human_clicks,omitempty"`
}

// Body is the payload a receiver gets: {"type","timestamp","data"}.
func (e Event) Body() ([]byte, error) {
	return json.Marshal(struct {
		Type      string          `json:"type"`
		Timestamp string          `json:"timestamp"`
		Data      json.RawMessage `json:"data"`
	}{e.Type, e.Timestamp.UTC().Format(time.RFC3339Nano), e.Data})
}

// For reports whether s should get e: the type asked for, and for a
// human-only subscription a click batch with human clicks.
func (s Subscription) For(e Event) bool {
	if !s.Wants(e.Type) {
		return false
	}
	return !(s.HumanOnly && e.Type == LinkClicked && e.HumanClicks == 0)
}

// Clicks is the data of a link.clicked event: one code's clicks in one
// batch of the click stream.
type Clicks struct {
	Code  string    `json:"code"`
	Total int64     `json:"total"`
	Human int64     `json:"human"`
	Bot   int64     `json:"bot"`
	From  time.Time `json:"from"`
	To    time.Time `json:"to"`
}

// Delivery statuses.
const (
	StatusDelivered = "delivered"
	StatusRetrying  = "retrying"
	StatusFailed    = "failed"   // retries exhausted
	StatusDisabled  = "disabled" // the receiver answered 410 Gone
	StatusRefused   = "refused"  // the URL resolved to a forbidden address
)

// Delivery is one attempt to send one event to one subscription.
type Delivery struct {
	Subscription string
	EventID      string
	Event        string
	Attempt      int
	Status       string
	// ResponseCode is the receiver's HTTP status; 0 when none came.
	ResponseCode int
	At           time.Time
	// NextRetry is when the next attempt is due; zero when none is.
	NextRetry time.Time
}

// CreateRequest is a new subscription as the API receives it.
type CreateRequest struct {
	URL       string
	Events    []string
	HumanOnly bool
}

// fieldErr is a FieldError, which the API answers as 400 naming the field.
func fieldErr(field, reason string) error {
	return &link.FieldError{Field: field, Reason: reason}
}

// ValidateEvents checks the event list: at least one, each known, none twice.
func ValidateEvents(evs []string) error {
	if len(evs) == 0 {
		return fieldErr("events", "name at least one event type")
	}
	seen := map[string]bool{}
	for _, e := range evs {
		if !slices.Contains(EventTypes, e) {
			return fieldErr("events", "unknown event type "+strconv.Quote(e))
		}
		if seen[e] {
			return fieldErr("events", "event type "+strconv.Quote(e)+" is listed twice")
		}
		seen[e] = true
	}
	return nil
}

// SortEvents puts event types in the order of EventTypes, the order the
// API shows them in whatever order they were stored.
func SortEvents(evs []string) {
	slices.SortFunc(evs, func(a, b string) int {
		return slices.Index(EventTypes, a) - slices.Index(EventTypes, b)
	})
}
