package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The redirect rules' promises against a client that chooses its method,
// its User-Agent and its address: one viewer's wrong passwords lock out no
// other.

// postPasswordFrom posts pw to code's unlock path from client (viewerAt:
// another viewer address).
func (r *localRun) postPasswordFrom(t *testing.T, client *http.Client, code, pw string) (int, http.Header) {
	t.Helper()
	req, err := http.NewRequest("POST", r.base+"/unlock/"+code, strings.NewReader(url.Values{"password": {pw}}.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("User-Agent", browserAgent)
	resp, err := client.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	require.NoError(t, resp.Body.Close())
	return resp.StatusCode, resp.Header
}

// TestOneViewerCannotLockOutAnotherThroughTheLocalRun: a viewer at
// 127.0.0.2 guesses wrong until it is refused (and keeps going), and a
// viewer at 127.0.0.3 then unlocks the link with the right password.
func TestOneViewerCannotLockOutAnotherThroughTheLocalRun(t *testing.T) {
	r := startLocal(t, nil)
	code := r.createLink(t, `{"url":"https://example.com/owner-gets-in","password":"correct horse"}`)
	attacker, owner := viewerAt("127.0.0.2"), viewerAt("127.0.0.3")

	var got []int
	for i := range 30 {
		status, _ := r.postPasswordFrom(t, attacker, code, fmt.Sprintf("guess %d", i))
		got = append(got, status)
	}
	assert.Equal(t, 403, got[0], "a wrong guess is checked: %v", got)
	assert.Equal(t, 429, got[len(got)-1], "the attacker runs out of attempts: %v", got)

	status, h := r.postPasswordFrom(t, owner, code, "correct horse")
	require.Equal(t, 303, status, "another viewer unlocks the link after 30 wrong guesses from 127.0.0.2 (%v)", got)
	assert.Equal(t, "https://example.com/owner-gets-in", h.Get("Location"))

	status, _ = r.postPasswordFrom(t, attacker, code, "correct horse")
	assert.Equal(t, 429, status, "the attacker's own budget is spent, even for the right password")
}
