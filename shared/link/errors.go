package link

import (
	"errors"
	"fmt"
)

// Sentinel errors shared by every layer. Adapters wrap them; the API layer
// maps them to statuses with errors.Is/errors.As in one place.
var (
	ErrNotFound = errors.New("not found")
	// ErrConflict: the key is taken (an alias, a generated code, an idempotency key).
	ErrConflict = errors.New("conflict")
	ErrGone     = errors.New("gone")
	ErrInvalid  = errors.New("invalid")
	// ErrPrecondition: a conditional update lost against a newer version.
	ErrPrecondition = errors.New("precondition failed")
	// ErrUnavailable: a dependency is slow or down; the caller may retry.
	ErrUnavailable = errors.New("temporarily unavailable")
)

// FieldError says which request field is wrong and why. It matches
// ErrInvalid with errors.Is.
type FieldError struct {
	Field  string
	Reason string
}

func (e *FieldError) Error() string { return fmt.Sprintf("%s: %s", e.Field, e.Reason) }

// Is makes a FieldError match ErrInvalid.
func (e *FieldError) Is(target error) bool { return target == ErrInvalid }

// DetailError is one of the sentinel errors above with a sentence for the
// client saying what happened: errors.Is(err, Kind) holds, and the API
// answers Kind's problem with Detail as its detail.
type DetailError struct {
	Kind   error
	Detail string
}

func (e *DetailError) Error() string { return e.Detail }

// Unwrap makes a DetailError match its Kind.
func (e *DetailError) Unwrap() error { return e.Kind }

func invalid(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Reason: fmt.Sprintf(format, args...)}
}
