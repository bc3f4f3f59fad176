package audit

import (
	"encoding/json"
	"time"

	"github.com/shortlink-dev/shortener/shared/link"
)

// linkState is a link as its entries show it: what the API shows of it,
// with its status and version; its password only as present
// (Redacted) or absent, never its hash.
type linkState struct {
	Code            string               `json:"code"`
	Alias           string               `json:"alias,omitempty"`
	URL             string               `json:"url"`
	Status          link.Status          `json:"status"`
	Version         int64                `json:"version"`
	CreatedAt       string               `json:"created_at,omitempty"`
	UpdatedAt       string               `json:"updated_at,omitempty"`
	ExpiresAt       string               `json:"expires_at,omitempty"`
	RedirectStatus  int                  `json:"redirect_status,omitempty"`
	Password        string               `json:"password,omitempty"`
	MaxClicks       int64                `json:"max_clicks,omitempty"`
	Rules           []link.Rule          `json:"rules,omitempty"`
	Targets         []link.Target        `json:"targets,omitempty"`
	ExpiredURL      string               `json:"expired_url,omitempty"`
	ForwardQuery    *bool                `json:"forward_query,omitempty"`
	QueryPrecedence link.QueryPrecedence `json:"query_precedence,omitempty"`
	ImportedClicks  int64                `json:"imported_clicks,omitempty"`
}

// Link is l as an entry's Before or After.
func Link(l link.Link) json.RawMessage {
	s := linkState{
		Code: l.Code, Alias: l.Alias, URL: l.URL, Status: l.Status, Version: l.Version,
		CreatedAt: stamp(l.CreatedAt), UpdatedAt: stamp(l.UpdatedAt), ExpiresAt: stamp(l.ExpiresAt),
		RedirectStatus: l.RedirectStatus, MaxClicks: l.MaxClicks, Rules: l.Rules, Targets: l.Targets,
		ExpiredURL: l.ExpiredURL, QueryPrecedence: l.QueryPrecedence, ImportedClicks: l.ImportedClicks,
	}
	if l.Protected() {
		s.Password = Redacted
	}
	if l.KeepQueryOut {
		off := false
		s.ForwardQuery = &off
	}
	return Snapshot(s)
}

// Tombstone is a deleted link's state after its delete.
func Tombstone(t link.Tombstone) json.RawMessage {
	return Snapshot(struct {
		Code         string      `json:"code"`
		Status       link.Status `json:"status"`
		Reason       string      `json:"reason,omitempty"`
		TombstonedAt string      `json:"tombstoned_at,omitempty"`
	}{t.Code, link.StatusTombstone, string(t.Reason), stamp(t.TombstonedAt)})
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}
