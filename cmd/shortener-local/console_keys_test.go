package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
)

// TestConsoleKeys: an admin creates a viewer key on the Keys page, sees
// it listed and shown once (never in the tab's storage), the key reads
// links and makes none; a rotation shows its successor once and the old
// key is refused; a revocation (confirmed) refuses the new one. A viewer
// signed in gets a clear refusal, not a sign-out.
func TestConsoleKeys(t *testing.T) {
	dir := buildConsole(t)
	// A key cache of 1 ns: a revoked key is refused on its next request.
	r := startLocal(t, map[string]string{"SHORTENER_CONSOLE_DIR": dir, "SHORTENER_CLICKS_BATCH_WINDOW": "0s",
		"KEYS_TABLE": testenv.UniqueName(t, "keys"), "SHORTENER_KEY_CACHE_TTL": "1ns"})
	p := newPage(t, r.base)
	p.run("open the console", chromedp.Navigate(r.base+"/console/"))
	p.setInput("#apikey", r.key)
	p.click(`button[type=submit]`)
	p.run("the links page", chromedp.WaitVisible(chromedp.CSS("#links-table")))
	for _, perm := range []string{"clipboard-read", "clipboard-write"} {
		_, err := chromedp.CallBrowser(p.ctx, browser.SetPermission, browser.SetPermissionParams{
			Permission: &browser.PermissionDescriptor{Name: perm}, Setting: browser.PermissionSettingGranted, Origin: r.base})
		require.NoError(t, err, perm)
	}

	p.click("#nav-keys")
	p.run("the keys page", chromedp.WaitVisible(chromedp.CSS("#keys-table tbody tr")))
	p.run("loaded", chromedp.WaitEnabled(chromedp.CSS("#key-create")))
	p.setInput("#key-role", "viewer")
	p.setInput("#key-note", "dashboards")
	p.setInput("#key-days", "30")
	assert.Empty(t, p.unlabelled(), "every control has a name")
	p.click("#key-create")
	p.run("the new key", chromedp.WaitVisible(chromedp.CSS("#key-value")))
	var key string
	p.eval(`document.querySelector('#key-value').value`, &key)
	require.Len(t, key, 40)
	var readOnly bool
	p.eval(`document.querySelector('#key-value').readOnly`, &readOnly)
	assert.True(t, readOnly)
	assert.Contains(t, p.text("#key-once"), "you will not see it again")
	assert.Empty(t, p.unlabelled(), "every control has a name, the shown key's too")
	p.click("#key-copy")
	p.waitText("#key-shown", "Copied.")
	var clip string
	p.eval(`navigator.clipboard.readText()`, &clip)
	assert.Equal(t, key, clip)
	var stored string
	p.eval(`JSON.stringify([Object.values(sessionStorage), Object.values(localStorage)])`, &stored)
	assert.NotContains(t, stored, key, "the key is in no storage")

	// Listed, as the API lists it.
	var list struct {
		Keys []struct{ ID, Role, Note, Status, CreatedAt, ExpiresAt string }
	}
	status, _, body := r.do(t, "GET", "/v1/keys", r.key, "")
	require.Equal(t, http.StatusOK, status, string(body))
	require.NoError(t, json.Unmarshal(body, &list))
	id := ""
	for _, k := range list.Keys {
		if k.Note == "dashboards" {
			id = k.ID
			assert.Equal(t, "viewer", k.Role)
		}
	}
	require.NotEmpty(t, id, "%s", body)
	row := fmt.Sprintf(`#keys-table tr[data-id=%q]`, id)
	p.waitText(row, "dashboards")
	assert.Contains(t, p.text(row+" .role"), "viewer")
	assert.Contains(t, p.text(row+" .status"), "active")

	// The shown key reads and cannot write.
	status, _, body = r.do(t, "GET", "/v1/links", key, "")
	assert.Equal(t, http.StatusOK, status, "the shown key works: %s", body)
	status, _, body = r.do(t, "POST", "/v1/links", key, `{"url":"https://example.com/"}`)
	assert.Equal(t, http.StatusForbidden, status, "a viewer key makes no link: %s", body)

	// Rotate: the successor shown once, the old key refused.
	p.click(fmt.Sprintf(`button[aria-label="Rotate key %s"]`, id))
	p.waitText("#key-shown-title", "replaces "+id)
	var rotated string
	p.eval(`document.querySelector('#key-value').value`, &rotated)
	require.Len(t, rotated, 40)
	require.NotEqual(t, key, rotated)
	p.waitText(row+" .status", "revoked")
	status, _, _ = r.do(t, "GET", "/v1/links", key, "")
	assert.Equal(t, http.StatusForbidden, status, "the old key is refused")
	status, _, body = r.do(t, "GET", "/v1/links", rotated, "")
	assert.Equal(t, http.StatusOK, status, "the new key works: %s", body)
	var newID string
	p.eval(`document.querySelector('#key-shown-title').textContent.split(' ')[1]`, &newID)
	require.Len(t, newID, 8)

	// Revoke, after a confirming click.
	p.click("#key-done")
	newRow := fmt.Sprintf(`#keys-table tr[data-id=%q]`, newID)
	p.click(fmt.Sprintf(`button[aria-label="Revoke key %s"]`, newID))
	assert.Empty(t, p.unlabelled(), "every control has a name, the confirmation's too")
	status, _, _ = r.do(t, "GET", "/v1/links", rotated, "")
	assert.Equal(t, http.StatusOK, status, "not revoked before the confirmation")
	p.click("#confirm-revoke-" + newID)
	p.waitText(newRow+" .status", "revoked")
	status, _, _ = r.do(t, "GET", "/v1/links", rotated, "")
	assert.Equal(t, http.StatusForbidden, status, "the revoked key is refused")
	p.screenshot(screenshotDir(t), "console-keys.png", 1280, 600)

	// Revoking the key the console signed in with is the API's 409, shown.
	var own string
	p.eval(`[...document.querySelectorAll('#keys-table tbody tr')].map(r => r.dataset.id).find(i => i !== '`+id+`' && i !== '`+newID+`') || ''`, &own)
	require.NotEmpty(t, own, "the signed-in key is listed")
	p.click(fmt.Sprintf(`button[aria-label="Revoke key %s"]`, own))
	p.click("#confirm-revoke-" + own)
	p.waitText("#keys-error", "this request is made with that key")

	// A viewer is told the page is for admins, and stays signed in.
	status, _, body = r.do(t, "POST", "/v1/keys", r.key, `{"role":"viewer"}`)
	require.Equal(t, http.StatusCreated, status, string(body))
	var viewer struct{ Key string }
	require.NoError(t, json.Unmarshal(body, &viewer))
	p.click("#signout")
	p.setInput("#apikey", viewer.Key)
	p.click(`button[type=submit]`)
	// Still at #/keys: the sign-in lands there.
	p.waitText("#keys-denied", "Only the workspace's admins")
	p.run("still signed in", chromedp.WaitVisible(chromedp.CSS("#signout")))

	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.problems {
		assert.NotContains(t, s, key)
	}
	assert.Empty(t, p.problems, "no exception, console error or CSP violation")
}
