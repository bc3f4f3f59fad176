package audit

import (
	"encoding/json"
	"time"
)

// View is an entry as the product shows it: GET /v1/audit's entries and
// the lines of the tamper-evident copy in S3 (functions/auditarchive), so
// the two cannot drift apart.
type View struct {
	ID     string          `json:"id"`
	At     string          `json:"at"`
	Actor  ViewActor       `json:"actor"`
	Source Source          `json:"source"`
	Action string          `json:"action"`
	Target ViewTarget      `json:"target"`
	Before json.RawMessage `json:"before,omitempty"`
	After  json.RawMessage `json:"after,omitempty"`
}

// ViewActor is who made a change.
type ViewActor struct {
	ID       string `json:"id"`
	Username string `json:"username,omitempty"`
}

// ViewTarget is what a change was made to.
type ViewTarget struct {
	Type TargetType `json:"type"`
	ID   string     `json:"id"`
}

// ViewOf is e as the product shows it: its time in RFC 3339 (UTC, to the
// millisecond it is stored to), and Before and After redacted again, so
// an entry written by an older writer is held to today's list of secrets.
func ViewOf(e Entry) View {
	return View{
		ID: e.ID, At: e.At.UTC().Format(time.RFC3339Nano), Actor: ViewActor{ID: e.Actor.ID, Username: e.Actor.Username},
		Source: e.Source, Action: e.Action, Target: ViewTarget{Type: e.Target, ID: e.TargetID},
		Before: Redact(e.Before), After: Redact(e.After),
	}
}
