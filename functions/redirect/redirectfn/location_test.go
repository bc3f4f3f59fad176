package redirectfn

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/shortlink-dev/shortener/shared/link"
)

// Links stored before NormalizeURL percent-encoded long URLs hold raw
// non-ASCII characters, bidi controls and stray "%": the Location sent for
// them must still be a valid URI.
func TestLocationOfURLsStoredRaw(t *testing.T) {
	tests := []struct {
		name, stored, location string
	}{
		{name: "already a valid URI", stored: "https://example.com/a?b=%41#c", location: "https://example.com/a?b=%41#c"},
		{name: "raw non-ASCII query", stored: "https://example.com/?q=café", location: "https://example.com/?q=caf%C3%A9"},
		{name: "raw bidi override", stored: "https://example.com/\u202egnp.exe", location: "https://example.com/%E2%80%AEgnp.exe"},
		{name: "stray percent", stored: "https://example.com/100%", location: "https://example.com/100%25"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.put(t, link.Link{Code: "legacy1", URL: tt.stored})

			resp := f.get(t, "legacy1")

			assert.Equal(t, 302, resp.StatusCode)
			assert.Equal(t, tt.location, resp.Headers["Location"])
		})
	}
}
