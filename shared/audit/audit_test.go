package audit_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/audit"
	"github.com/shortlink-dev/shortener/shared/audit/audittest"
	"github.com/shortlink-dev/shortener/shared/link"
)

func TestRedact(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"secret at top", `{"url":"https://a.example","password_hash":"$argon2id$v=19$..."}`, `{"password_hash":"[redacted]","url":"https://a.example"}`},
		{"nested and any spelling", `{"sub":{"Secret":"whsec_x","events":["a"]},"list":[{"keyHash":"ab"}]}`,
			`{"list":[{"keyHash":"[redacted]"}],"sub":{"Secret":"[redacted]","events":["a"]}}`},
		{"absent stays absent", `{"password":"","token":null,"secret":false}`, `{"password":"","secret":false,"token":null}`},
		{"numbers keep their digits", `{"max_clicks":12345678901234567890}`, `{"max_clicks":12345678901234567890}`},
		{"not JSON", `{"password":`, `"[redacted]"`},
		{"trailing data", `{} {"password":"x"}`, `"[redacted]"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.JSONEq(t, tt.want, string(audit.Redact(json.RawMessage(tt.in))))
		})
	}
	assert.Nil(t, audit.Redact(nil))
}

func TestLinkSnapshotNeverHoldsTheHash(t *testing.T) {
	l := link.Link{Code: "abc1234", URL: "https://example.com/", Status: link.StatusActive, Version: 2,
		Features: link.Features{PasswordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA"}}
	got := string(audit.Link(l))
	assert.NotContains(t, got, "argon2id")
	assert.Contains(t, got, `"password":"[redacted]"`)
	l.PasswordHash = ""
	assert.NotContains(t, string(audit.Link(l)), "password")
}

func TestSourceOf(t *testing.T) {
	for in, want := range map[string]audit.Source{"console": audit.SourceConsole, "Console": audit.SourceConsole,
		"": audit.SourceAPI, "consolex": audit.SourceAPI, "cli": audit.SourceAPI} {
		assert.Equal(t, want, audit.SourceOf(in), in)
	}
}

func TestParseFilter(t *testing.T) {
	cursor := audit.EncodeCursor(audit.NewID(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)))
	tests := []struct {
		name  string
		query string
		field string // the FieldError's, "" when valid
		check func(t *testing.T, f audit.Filter)
	}{
		{name: "defaults", query: "", check: func(t *testing.T, f audit.Filter) {
			assert.Equal(t, audit.Filter{Limit: audit.DefaultPageSize}, f)
		}},
		{name: "every filter", query: "target_type=link&target=abc&actor=key:1a2b3c4d&from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00%2B01:00&limit=5&cursor=" + cursor,
			check: func(t *testing.T, f audit.Filter) {
				assert.Equal(t, audit.TargetLink, f.Target)
				assert.Equal(t, "abc", f.TargetID)
				assert.Equal(t, "key:1a2b3c4d", f.Actor)
				assert.Equal(t, time.Date(2026, 1, 31, 23, 0, 0, 0, time.UTC), f.To)
				assert.Equal(t, 5, f.Limit)
				assert.NotEmpty(t, f.After)
			}},
		{name: "unknown type", query: "target_type=team", field: "target_type"},
		{name: "bad time", query: "from=yesterday", field: "from"},
		{name: "empty range", query: "from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z", field: "to"},
		{name: "limit zero", query: "limit=0", field: "limit"},
		{name: "limit too big", query: "limit=101", field: "limit"},
		{name: "forged cursor", query: "cursor=" + audit.EncodeCursor("anything"), field: "cursor"},
		{name: "cursor not base64", query: "cursor=***", field: "cursor"},
		{name: "long actor", query: "actor=" + string(make([]byte, 300)), field: "actor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := url.ParseQuery(tt.query)
			require.NoError(t, err)
			f, err := audit.ParseFilter(q.Get)
			if tt.field != "" {
				var fe *link.FieldError
				require.ErrorAs(t, err, &fe)
				assert.Equal(t, tt.field, fe.Field)
				return
			}
			require.NoError(t, err)
			tt.check(t, f)
		})
	}
}

func FuzzParseFilter(f *testing.F) {
	f.Add("target_type=link&target=abc&from=2026-01-01T00:00:00Z&limit=3")
	f.Add("cursor=" + audit.EncodeCursor(audit.NewID(time.Unix(0, 0))))
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		flt, err := audit.ParseFilter(q.Get)
		if err != nil {
			var fe *link.FieldError
			require.ErrorAs(t, err, &fe)
			return
		}
		assert.True(t, flt.Limit >= 1 && flt.Limit <= audit.MaxPageSize)
		if flt.After != "" {
			assert.True(t, audit.ValidID(flt.After))
			back, err := audit.DecodeCursor(audit.EncodeCursor(flt.After))
			require.NoError(t, err)
			assert.Equal(t, flt.After, back)
		}
	})
}

func TestMemory(t *testing.T) {
	audittest.Run(t, func(*testing.T) audittest.Log { return &audit.Memory{} })
}

func TestPendingIsWrittenOnce(t *testing.T) {
	ctx := context.Background()
	m := &audit.Memory{}
	e := audit.Entry{Workspace: "w", At: time.Now(), Target: audit.TargetLink, TargetID: "x",
		After: json.RawMessage(`{"secret":"s"}`)}

	// A store takes it and its transaction commits: Flush writes nothing more.
	tctx, p := audit.WithPending(ctx, e)
	taken, entry, ok := audit.Take(tctx)
	require.True(t, ok)
	assert.JSONEq(t, `{"secret":"[redacted]"}`, string(entry.After), "redacted before any store sees it")
	_, _, again := audit.Take(tctx)
	assert.False(t, again)
	taken.Written()
	require.NoError(t, p.Flush(ctx, m))
	assert.Empty(t, m.All("w"))

	// A transaction that did not commit gives it back; Flush writes it.
	tctx, p = audit.WithPending(ctx, e)
	taken, _, _ = audit.Take(tctx)
	taken.Untake()
	require.NoError(t, p.Flush(ctx, m))
	require.NoError(t, p.Flush(ctx, m))
	assert.Len(t, m.All("w"), 1)

	_, _, ok = audit.Take(ctx)
	assert.False(t, ok, "no entry on a plain context")

	m.Fail = errors.New("down")
	_, p = audit.WithPending(ctx, e)
	assert.Error(t, p.Flush(ctx, m))
}
