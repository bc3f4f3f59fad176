package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// viewerAt is an HTTP client whose connections come from ip, a loopback
// address other than 127.0.0.1: the local edge forwards it as the viewer's
// address (CloudFront-Viewer-Address), so each ip is another viewer.
func viewerAt(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	return &http.Client{
		Transport:     &http.Transport{DialContext: d.DialContext},
		Timeout:       30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

func get(t *testing.T, c *http.Client, url string) *http.Response {
	t.Helper()
	resp, err := c.Get(url)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	require.NoError(t, resp.Body.Close())
	return resp
}

// TestEnumerationBudgetThroughTheLocalRun: through the edge, the gateway
// and the redirect function, a viewer gets its budget of unknown codes
// answered 404, then 429 for unknown and live codes alike (never cached);
// another viewer clicks and misses as before; following a link never
// spends budget.
func TestEnumerationBudgetThroughTheLocalRun(t *testing.T) {
	const budget = 5
	r := startLocal(t, map[string]string{"SHORTENER_MISS_BUDGET": fmt.Sprint(budget)})
	live := r.create(t, "https://example.com/enum-live")
	other := r.create(t, "https://example.com/enum-other")
	scanner, person := viewerAt("127.0.0.2"), viewerAt("127.0.0.3")

	for range 3 * budget {
		assert.Equal(t, http.StatusFound, get(t, scanner, r.base+"/"+other).StatusCode, "following a link spends nothing")
	}
	for i := range budget {
		resp := get(t, scanner, fmt.Sprintf("%s/Qx%05d", r.base, i))
		require.Equal(t, http.StatusNotFound, resp.StatusCode, "miss %d is within the budget", i+1)
	}
	resp := get(t, scanner, r.base+"/Qx99999")
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, "no-store", resp.Header.Get("Cache-Control"))
	assert.NotEmpty(t, resp.Header.Get("Retry-After"))
	resp = get(t, scanner, r.base+"/"+live)
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode, "a live code the edge does not hold is refused too")

	// The other viewer: the scanner's 429s were not cached for it.
	assert.Equal(t, http.StatusFound, get(t, person, r.base+"/"+live).StatusCode)
	assert.Equal(t, http.StatusNotFound, get(t, person, r.base+"/Qx99998").StatusCode)
	resp = get(t, person, r.base+"/Qx99999")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "the 429 this path got was not kept for another viewer")

}
