package redirectfn

import (
	"io"
	"log/slog"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/linkstore/storetest"
)

// newFixtureAt is newFixture configured with SHORTENER_CODE_LENGTH=length.
func newFixtureAt(t *testing.T, length int) *fixture {
	t.Helper()
	clock := storetest.NewClock(start)
	cfg, err := config.Load(func(k string) string {
		if k == "SHORTENER_CODE_LENGTH" {
			return strconv.Itoa(length)
		}
		return ""
	})
	require.NoError(t, err)
	f := &fixture{store: &countingStore{Store: linkstore.NewMemory(clock.Now)}, clock: clock}
	f.h = New(Options{Store: f.store, Config: cfg, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: clock.Now})
	return f
}

// configuredLengths are code lengths an operator may configure, the
// default, docs/codes.md's advice for public deployments and both bounds.
var configuredLengths = []int{6, 7, 8, 12, 16}

// TestCodesOfEveryLengthRedirect is the regression test: a generated code
// drawn under any allowed length redirects whatever length is configured
// now, in one read. On 1bdf09b a code of another length than the
// configured one was looked up lower-cased only, and was a 404.
func TestCodesOfEveryLengthRedirect(t *testing.T) {
	codes := []string{"Ab3dE5", "Ab3dE5g", "Ab3dE5gH", "Ab3dE5gH9jK1", "Ab3dE5gH9jK1mN0p"}
	for _, configured := range configuredLengths {
		for _, code := range codes {
			t.Run(strconv.Itoa(configured)+"/"+code, func(t *testing.T) {
				f := newFixtureAt(t, configured)
				f.put(t, link.Link{Code: code})

				resp := f.get(t, code)

				assert.Equal(t, 302, resp.StatusCode)
				assert.Equal(t, "https://example.com/"+code, resp.Headers["Location"])
				assert.Equal(t, "public, max-age=0, s-maxage=86400", resp.Headers["Cache-Control"])
				assert.Equal(t, int32(1), f.store.gets.Load(), "one read")
			})
		}
	}
}

// TestAliasInOtherCapitalsIsSentToItsOwnPath: an alias typed in a
// code-shaped spelling with other capitals is found under its lower-cased
// key, whatever length is configured, and answered with a 303 to its own
// path, never with its redirect: the click log keys a code-shaped path as
// typed, so a redirect logged under PROMO25 would count under a generated
// code's key. The 303 is cached briefly, the first miss is kept by the
// negative cache, and repeats read nothing.
func TestAliasInOtherCapitalsIsSentToItsOwnPath(t *testing.T) {
	for _, configured := range configuredLengths {
		for _, tt := range []struct{ code, alias, path string }{
			{code: "promo25", alias: "Promo25", path: "PROMO25"},
			{code: "promo25", alias: "Promo25", path: "Promo25"},
			{code: "mybrand8", alias: "MyBrand8", path: "MyBrand8"},
			{code: "summersale26", alias: "summersale26", path: "SummerSale26"},
		} {
			t.Run(strconv.Itoa(configured)+"/"+tt.path, func(t *testing.T) {
				f := newFixtureAt(t, configured)
				f.put(t, link.Link{Code: tt.code, Alias: tt.alias})

				for range 3 {
					resp := f.get(t, tt.path)
					assert.Equal(t, 303, resp.StatusCode)
					assert.Equal(t, "/"+tt.code, resp.Headers["Location"])
					assert.Equal(t, "public, max-age=0, s-maxage=10", resp.Headers["Cache-Control"])
					assert.Empty(t, resp.Body)
				}
				assert.Equal(t, int32(2), f.store.gets.Load(), "the spelling as typed, then the alias; repeats from the caches")

				resp := f.get(t, tt.code)
				assert.Equal(t, 302, resp.StatusCode)
				assert.Equal(t, "https://example.com/"+tt.code, resp.Headers["Location"])
				assert.Equal(t, "public, max-age=0, s-maxage=86400", resp.Headers["Cache-Control"], "the alias's own path is canonical")
				assert.Equal(t, int32(2), f.store.gets.Load())
			})
		}
	}
}

// TestGeneratedCodesAreCaseSensitive: a generated code is not found by
// another spelling, even one whose lower-cased key it is.
func TestGeneratedCodesAreCaseSensitive(t *testing.T) {
	for _, configured := range configuredLengths {
		t.Run(strconv.Itoa(configured), func(t *testing.T) {
			f := newFixtureAt(t, configured)
			f.put(t, link.Link{Code: "ab3de5gh"})

			assert.Equal(t, 404, f.get(t, "AB3DE5GH").StatusCode)
			assert.Equal(t, 404, f.get(t, "Ab3dE5gH").StatusCode)
			assert.Equal(t, 302, f.get(t, "ab3de5gh").StatusCode)
		})
	}
}

// TestAGeneratedCodeWinsOverAnAliasInOtherCapitals: when a generated code
// is spelt like an alias in other capitals, the path as typed is the code.
func TestAGeneratedCodeWinsOverAnAliasInOtherCapitals(t *testing.T) {
	f := newFixtureAt(t, 7)
	f.put(t, link.Link{Code: "promo25", Alias: "Promo25"})
	f.put(t, link.Link{Code: "PROMO25"})

	resp := f.get(t, "PROMO25")
	assert.Equal(t, 302, resp.StatusCode)
	assert.Equal(t, "https://example.com/PROMO25", resp.Headers["Location"])
	assert.Equal(t, int32(1), f.store.gets.Load())
}
