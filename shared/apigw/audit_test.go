package apigw_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/audit"
)

func TestAuditEntryNamesWhoAndWhence(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	req := &events.APIGatewayProxyRequest{Headers: map[string]string{"x-shortener-client": "console"}}
	req.RequestContext.Authorizer = map[string]any{"owner": "o1", "role": "admin", "actor": "user:sub-1", "username": "ana"}
	p, ok := apigw.Caller(req)
	require.True(t, ok)
	e := apigw.AuditEntry(req, p, at)
	assert.Equal(t, audit.Entry{Workspace: "o1", At: at, Actor: audit.Actor{ID: "user:sub-1", Username: "ana"}, Source: audit.SourceConsole}, e)

	req.Headers = nil
	assert.Equal(t, audit.SourceAPI, apigw.AuditEntry(req, p, at).Source)
}

func TestRequireAdmin(t *testing.T) {
	tests := []struct {
		role string
		want int
	}{{"admin", 0}, {"editor", http.StatusForbidden}, {"viewer", http.StatusForbidden}, {"", http.StatusForbidden}}
	for _, tt := range tests {
		t.Run(tt.role, func(t *testing.T) {
			err := apigw.RequireAdmin(apigw.Principal{Owner: "o", Role: tt.role}, "read the audit log")
			if tt.want == 0 {
				assert.NoError(t, err)
				return
			}
			p := apigw.ProblemFor(err)
			assert.Equal(t, tt.want, p.Status)
			assert.Contains(t, p.Detail, "admins")
		})
	}
}

func TestFlushAuditNeverFailsTheChange(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	_, p := audit.WithPending(context.Background(), audit.Entry{Workspace: "o", At: time.Now(), Target: audit.TargetLink, TargetID: "x"})
	apigw.FlushAudit(context.Background(), log, nil, &audit.Memory{Fail: errors.New("down")}, p)
	assert.Contains(t, buf.String(), "audit entry not written")
	m := &audit.Memory{}
	apigw.FlushAudit(context.Background(), log, nil, m, p)
	assert.Len(t, m.All("o"), 1, "a later flush still writes it")
	apigw.FlushAudit(context.Background(), log, nil, m, nil)
}
