package audit_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/shortlink-dev/shortener/shared/audit"
)

func TestViewOfRedactsAndFormats(t *testing.T) {
	e := audit.Entry{
		Workspace: "dev", ID: "2026-03-01T10:00:00.123Z#00112233aabbccdd", At: time.Date(2026, 3, 1, 10, 0, 0, 123e6, time.UTC),
		Actor: audit.Actor{ID: "user:7d1c", Username: "ana"}, Source: audit.SourceConsole, Action: audit.ActionUpdate,
		Target: audit.TargetLink, TargetID: "summer",
		// Written by an older writer that knew fewer secrets.
		Before: json.RawMessage(`{"url":"https://a.example","password":"correct-horse"}`),
		After:  json.RawMessage(`{"url":"https://b.example","token":"t0k3n"}`),
	}
	b, err := json.Marshal(audit.ViewOf(e))
	assert.NoError(t, err)
	assert.JSONEq(t, `{"id":"2026-03-01T10:00:00.123Z#00112233aabbccdd","at":"2026-03-01T10:00:00.123Z",
		"actor":{"id":"user:7d1c","username":"ana"},"source":"console","action":"update",
		"target":{"type":"link","id":"summer"},
		"before":{"url":"https://a.example","password":"[redacted]"},"after":{"url":"https://b.example","token":"[redacted]"}}`, string(b))
	assert.NotContains(t, string(b), "correct-horse")
	assert.NotContains(t, string(b), "t0k3n")
}
