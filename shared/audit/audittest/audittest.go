// Package audittest is the behaviour every audit log keeps, run against
// each implementation: the in-memory one and DynamoDB Local's.
package audittest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/audit"
	"github.com/shortlink-dev/shortener/shared/link"
)

// Log is a Recorder and a Reader over the same entries.
type Log interface {
	audit.Recorder
	audit.Reader
}

// Run runs the suite; open returns an empty log for each test.
func Run(t *testing.T, open func(t *testing.T) Log) {
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ctx := context.Background()
	seed := func(t *testing.T, log Log) {
		t.Helper()
		for i := range 7 {
			e := audit.Entry{Workspace: "w1", At: base.Add(time.Duration(i) * time.Minute), Action: audit.ActionCreate,
				Target: audit.TargetLink, TargetID: string(rune('a' + i)), Actor: audit.Actor{ID: "key:1a2b3c4d"}, Source: audit.SourceAPI,
				After: json.RawMessage(`{"code":"` + string(rune('a'+i)) + `"}`)}
			if i%3 == 0 {
				e.Target, e.Actor = audit.TargetWebhook, audit.Actor{ID: "user:u1", Username: "ana"}
			}
			require.NoError(t, log.Record(ctx, e))
		}
		require.NoError(t, log.Record(ctx, audit.Entry{Workspace: "w2", At: base, Target: audit.TargetLink, TargetID: "z", Actor: audit.Actor{ID: "key:2"}}))
	}
	ids := func(t *testing.T, log Log, f audit.Filter) []string {
		t.Helper()
		var got []string
		for range 20 {
			p, err := log.Query(ctx, "w1", f)
			require.NoError(t, err)
			for _, e := range p.Entries {
				got = append(got, e.TargetID)
			}
			if p.Next == "" {
				return got
			}
			f.After, err = audit.DecodeCursor(p.Next)
			require.NoError(t, err, "a cursor the log returned decodes")
		}
		t.Fatal("paging never ended")
		return nil
	}

	tests := []struct {
		name   string
		filter audit.Filter
		want   []string
	}{
		{"all newest first in pages", audit.Filter{Limit: 2}, []string{"g", "f", "e", "d", "c", "b", "a"}},
		{"one page", audit.Filter{Limit: 100}, []string{"g", "f", "e", "d", "c", "b", "a"}},
		{"exact page", audit.Filter{Limit: 7}, []string{"g", "f", "e", "d", "c", "b", "a"}},
		{"target type", audit.Filter{Limit: 1, Target: audit.TargetWebhook}, []string{"g", "d", "a"}},
		{"target id", audit.Filter{Limit: 5, TargetID: "c"}, []string{"c"}},
		{"actor", audit.Filter{Limit: 5, Actor: "key:1a2b3c4d"}, []string{"f", "e", "c", "b"}},
		{"time range, to exclusive", audit.Filter{Limit: 2, From: base.Add(time.Minute), To: base.Add(4 * time.Minute)}, []string{"d", "c", "b"}},
		{"from only", audit.Filter{Limit: 10, From: base.Add(5 * time.Minute)}, []string{"g", "f"}},
		{"nothing matches", audit.Filter{Limit: 10, TargetID: "nope"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := open(t)
			seed(t, log)
			assert.Equal(t, tt.want, ids(t, log, tt.filter))
		})
	}

	t.Run("entries read back as written, redacted", func(t *testing.T) {
		log := open(t)
		e := audit.Entry{Workspace: "w1", At: base, Action: audit.ActionUpdate, Target: audit.TargetLink, TargetID: "x",
			Actor: audit.Actor{ID: "user:u1", Username: "ana"}, Source: audit.SourceConsole,
			Before: json.RawMessage(`{"url":"https://a.example/","password_hash":"$argon2id$x"}`), After: json.RawMessage(`{"url":"https://b.example/"}`)}
		require.NoError(t, log.Record(ctx, e))
		p, err := log.Query(ctx, "w1", audit.Filter{Limit: 10})
		require.NoError(t, err)
		require.Len(t, p.Entries, 1)
		got := p.Entries[0]
		assert.True(t, audit.ValidID(got.ID))
		assert.Equal(t, base, got.At)
		assert.Equal(t, e.Actor, got.Actor)
		assert.Equal(t, audit.SourceConsole, got.Source)
		assert.Equal(t, audit.ActionUpdate, got.Action)
		assert.JSONEq(t, `{"url":"https://a.example/","password_hash":"[redacted]"}`, string(got.Before))
		assert.JSONEq(t, `{"url":"https://b.example/"}`, string(got.After))
	})

	t.Run("an entry is written once", func(t *testing.T) {
		log := open(t)
		e := audit.Entry{Workspace: "w1", ID: audit.NewID(base), At: base, Target: audit.TargetLink, TargetID: "x", Actor: audit.Actor{ID: "key:1"}}
		require.NoError(t, log.Record(ctx, e))
		e.TargetID = "forged"
		assert.ErrorIs(t, log.Record(ctx, e), link.ErrConflict)
		p, err := log.Query(ctx, "w1", audit.Filter{Limit: 10})
		require.NoError(t, err)
		require.Len(t, p.Entries, 1)
		assert.Equal(t, "x", p.Entries[0].TargetID)
	})

	t.Run("a workspace reads only its own log", func(t *testing.T) {
		log := open(t)
		seed(t, log)
		p, err := log.Query(ctx, "w2", audit.Filter{Limit: 100})
		require.NoError(t, err)
		require.Len(t, p.Entries, 1)
		assert.Equal(t, "z", p.Entries[0].TargetID)
		// A cursor from w1's log positions w2's read; it reaches nothing of w1's.
		p1, err := log.Query(ctx, "w1", audit.Filter{Limit: 1})
		require.NoError(t, err)
		after, err := audit.DecodeCursor(p1.Next)
		require.NoError(t, err)
		p, err = log.Query(ctx, "w2", audit.Filter{Limit: 100, After: after})
		require.NoError(t, err)
		for _, e := range p.Entries {
			assert.Equal(t, "w2", e.Workspace)
		}
	})
}
