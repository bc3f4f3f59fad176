package webhook_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/webhook"
)

// resolver answers every host with its fixed addresses.
type resolver map[string][]string

func (r resolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	ips, ok := r[host]
	if !ok {
		return nil, errors.New("no such host")
	}
	var out []net.IPAddr
	for _, s := range ips {
		out = append(out, net.IPAddr{IP: net.ParseIP(s)})
	}
	return out, nil
}

func TestCheckURLDeployed(t *testing.T) {
	g := webhook.Guard{Resolver: resolver{
		"hooks.example.com":    {"93.184.215.14"},
		"v6.example.com":       {"2606:2800:21f:cb07:6820:80da:af6b:8b2c"},
		"metadata.example.com": {"169.254.169.254"},
		"private.example.com":  {"10.1.2.3"},
		"mixed.example.com":    {"93.184.215.14", "192.168.0.1"},
		"loop.example.com":     {"127.0.0.1"},
		"cgnat.example.com":    {"100.64.1.1"},
		"mapped.example.com":   {"::ffff:10.0.0.1"},
		"ula.example.com":      {"fd00:ec2::254"},
		"mcast.example.com":    {"224.0.0.1"},
		"nat64.example.com":    {"64:ff9b::a00:1"},
		"zero.example.com":     {"0.0.0.0"},
	}}
	tests := []struct {
		url       string
		ok        bool
		forbidden bool // refused for its address, not its shape
	}{
		{url: "https://hooks.example.com/in", ok: true},
		{url: "https://v6.example.com/in", ok: true},
		{url: "https://93.184.215.14:8443/in", ok: true},
		{url: "http://hooks.example.com/in"},
		{url: "ftp://hooks.example.com/in"},
		{url: "https://user:pw@hooks.example.com/in"},
		{url: "/relative"},
		{url: "https://nowhere.example.com/in"},
		{url: "https://metadata.example.com/latest/meta-data/", forbidden: true},
		{url: "https://169.254.169.254/latest/meta-data/", forbidden: true},
		{url: "https://private.example.com/", forbidden: true},
		{url: "https://mixed.example.com/", forbidden: true},
		{url: "https://loop.example.com/", forbidden: true},
		{url: "https://127.0.0.1:9000/", forbidden: true},
		{url: "https://[::1]/", forbidden: true},
		{url: "https://cgnat.example.com/", forbidden: true},
		{url: "https://mapped.example.com/", forbidden: true},
		{url: "https://ula.example.com/", forbidden: true},
		{url: "https://mcast.example.com/", forbidden: true},
		{url: "https://nat64.example.com/", forbidden: true},
		{url: "https://zero.example.com/", forbidden: true},
		{url: "https://[fe80::1]/", forbidden: true},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			err := g.CheckURL(context.Background(), tt.url)
			if tt.ok {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, link.ErrInvalid, "answered as a 400 naming the field")
			assert.Equal(t, tt.forbidden, errors.Is(err, webhook.ErrForbiddenAddress))
		})
	}
}

func TestCheckURLLocal(t *testing.T) {
	g := webhook.Guard{AllowLoopback: true, Resolver: resolver{"private.example.com": {"10.1.2.3"}}}
	assert.NoError(t, g.CheckURL(context.Background(), "http://127.0.0.1:9000/hook"))
	assert.NoError(t, g.CheckURL(context.Background(), "http://[::1]:9000/hook"))
	assert.ErrorIs(t, g.CheckURL(context.Background(), "https://private.example.com/"), webhook.ErrForbiddenAddress,
		"loopback is the only exception")
	assert.Error(t, g.CheckURL(context.Background(), "http://93.184.215.14/"), "http only to loopback")
}

func TestAllowed(t *testing.T) {
	deployed := webhook.Guard{}
	for _, s := range []string{"127.0.0.1", "10.0.0.1", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.100.100.200",
		"::1", "fe80::1", "fc00::1", "ff02::1", "255.255.255.255", "198.18.0.1", "2001:db8::1", "2002:a00:1::1"} {
		assert.False(t, deployed.Allowed(netip.MustParseAddr(s)), s)
	}
	for _, s := range []string{"93.184.215.14", "8.8.8.8", "2606:4700:4700::1111"} {
		assert.True(t, deployed.Allowed(netip.MustParseAddr(s)), s)
	}
}

// TestClientRefusesAtDial: the deployed client will not connect to a
// loopback receiver even though nothing checked its URL first, as when a
// name is re-pointed at an internal address after creation.
func TestClientRefusesAtDial(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) }))
	defer srv.Close()

	_, err := webhook.Guard{}.Client(5*time.Second).Post(srv.URL, "application/json", nil)
	require.Error(t, err)
	assert.ErrorIs(t, err, webhook.ErrForbiddenAddress)

	resp, err := webhook.Guard{AllowLoopback: true}.Client(5*time.Second).Post(srv.URL, "application/json", nil)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 204, resp.StatusCode)
}
