package linkapi

import (
	"bytes"
	"encoding/json"

	"github.com/shortlink-dev/shortener/shared/link"
)

// Rule is one redirect rule as the API shows it: every condition given
// must match, any of its values matches, the first matching rule wins.
// It is the domain's own; its json tags are the field names.
type Rule = link.Rule

// Target is one arm of a weighted split, the domain's own like Rule.
type Target = link.Target

// Features are the redirect-rule fields of a link as the API shows them.
// The password is write-only: only whether there is one shows, as
// Protected.
type Features struct {
	Protected  bool     `json:"protected,omitempty"`
	MaxClicks  int64    `json:"max_clicks,omitempty"`
	Rules      []Rule   `json:"rules,omitempty"`
	Targets    []Target `json:"targets,omitempty"`
	ExpiredURL string   `json:"expired_url,omitempty"`
	// ForwardQuery and QueryPrecedence show only when they are not the
	// defaults (true, "destination"), as the link keeps them.
	ForwardQuery    *bool                `json:"forward_query,omitempty"`
	QueryPrecedence link.QueryPrecedence `json:"query_precedence,omitempty"`
}

// PresentFeatures shows f; the password hash never leaves the service.
func PresentFeatures(f link.Features) Features {
	out := Features{Protected: f.Protected(), MaxClicks: f.MaxClicks, Rules: f.Rules, Targets: f.Targets, ExpiredURL: f.ExpiredURL,
		QueryPrecedence: f.QueryPrecedence}
	if f.KeepQueryOut {
		off := false
		out.ForwardQuery = &off
	}
	return out
}

// Nullable is a PATCH field that tells three cases apart: absent (leave
// the field as it is), null (remove it) and a value (set it). The zero
// value is absent.
type Nullable[T any] struct {
	// Set is true when the field was in the body, as a value or null.
	Set bool
	// Null is true when it was null.
	Null  bool
	Value T
}

// Of is a Nullable holding v.
func Of[T any](v T) Nullable[T] { return Nullable[T]{Set: true, Value: v} }

// Null is a Nullable that removes its field.
func Null[T any]() Nullable[T] { return Nullable[T]{Set: true, Null: true} }

// UnmarshalJSON records that the field was present. The value is decoded
// as strictly as the body around it: an unknown field inside a rule is an
// error, not silently dropped.
func (n *Nullable[T]) UnmarshalJSON(b []byte) error {
	*n = Nullable[T]{Set: true}
	if string(b) == "null" {
		n.Null = true
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(&n.Value)
}

// MarshalJSON writes null or the value; with `omitzero` an absent field
// is left out.
func (n Nullable[T]) MarshalJSON() ([]byte, error) {
	if n.Null {
		return []byte("null"), nil
	}
	return json.Marshal(n.Value)
}

// IsZero reports whether the field is absent, for `omitzero`.
func (n Nullable[T]) IsZero() bool { return !n.Set }
