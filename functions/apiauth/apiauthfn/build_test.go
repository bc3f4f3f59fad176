package apiauthfn_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/apiauth/apiauthfn"
	"github.com/shortlink-dev/shortener/shared/authn"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/fnclients"
	"log/slog"
)

func TestBuild(t *testing.T) {
	cfg := config.Config{KeysTable: "keys"}
	var built []string
	hook := func(issuer, clientID string) (authn.Verifier, error) {
		built = append(built, issuer+" "+clientID)
		return fakeVerifier{}, nil
	}
	tests := []struct {
		name    string
		cfg     config.Config
		s       apiauthfn.Settings
		hook    apiauthfn.NewVerifier
		wantErr string
		wantHas bool
	}{
		{name: "keys only", cfg: cfg, s: apiauthfn.Settings{UsageKey: usageKey}},
		{name: "keys and tokens", cfg: cfg, s: apiauthfn.Settings{UsageKey: usageKey, Issuer: "https://idp", ClientID: "app"}, hook: hook, wantHas: true},
		{name: "no keys table", s: apiauthfn.Settings{UsageKey: usageKey}, wantErr: "KEYS_TABLE"},
		{name: "no usage key", cfg: cfg, wantErr: "USAGE_PLAN_KEY"},
		{name: "an issuer and no verifier", cfg: cfg, s: apiauthfn.Settings{UsageKey: usageKey, Issuer: "https://idp", ClientID: "app"}, wantErr: "AUTH_ISSUER"},
		{name: "the deployed verifier", cfg: cfg, s: apiauthfn.Settings{UsageKey: usageKey, Issuer: "https://idp", ClientID: "app"}, hook: apiauthfn.Tokens, wantHas: true},
		{name: "an issuer that is no URL", cfg: cfg, s: apiauthfn.Settings{UsageKey: usageKey, Issuer: "idp", ClientID: "app"}, hook: apiauthfn.Tokens, wantErr: "AUTH_ISSUER"},
		{name: "an issuer and no client", cfg: cfg, s: apiauthfn.Settings{UsageKey: usageKey, Issuer: "https://idp"}, hook: hook, wantErr: "AUTH_CLIENT_ID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			built = nil
			h, err := apiauthfn.Build(tt.cfg, fnclients.Clients{Log: slog.New(slog.DiscardHandler)}, tt.s, tt.hook)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantHas, h.Verifier != nil)
			if tt.wantHas && tt.name != "the deployed verifier" {
				assert.Equal(t, []string{"https://idp app"}, built)
			}
		})
	}
}

func TestSettingsFrom(t *testing.T) {
	env := map[string]string{"USAGE_PLAN_KEY": "u", "AUTH_ISSUER": "i", "AUTH_CLIENT_ID": "c"}
	assert.Equal(t, apiauthfn.Settings{UsageKey: "u", Issuer: "i", ClientID: "c"}, apiauthfn.SettingsFrom(func(k string) string { return env[k] }))
}
