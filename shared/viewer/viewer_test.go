package viewer_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/viewer"
)

const (
	iPhone  = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1"
	iPad    = "Mozilla/5.0 (iPad; CPU OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1"
	pixel   = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36"
	galaxy  = "Mozilla/5.0 (Linux; Android 13; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"
	mac     = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15"
	windows = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"
	linux   = "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0"
	tizenTV = "Mozilla/5.0 (SMART-TV; LINUX; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) 76.0.3809.146/6.0 TV Safari/537.36"
)

func TestFromUserAgent(t *testing.T) {
	tests := []struct {
		ua   string
		want viewer.Device
	}{
		{iPhone, viewer.Device{Mobile: true, IOS: true}},
		{iPad, viewer.Device{Tablet: true, IOS: true}},
		{pixel, viewer.Device{Mobile: true, Android: true}},
		{galaxy, viewer.Device{Tablet: true, Android: true}},
		{mac, viewer.Device{Desktop: true}},
		{windows, viewer.Device{Desktop: true}},
		{tizenTV, viewer.Device{SmartTV: true}},
		{"", viewer.Device{Desktop: true}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, viewer.FromUserAgent(tt.ua), tt.ua)
	}
}

// TestFromHeaders reads what the edge adds, through a case-insensitive
// lookup as the redirect does it.
func TestFromHeaders(t *testing.T) {
	view := func(ua, country, lang string) link.Viewer {
		h := http.Header{}
		for _, kv := range viewer.FromUserAgent(ua).Headers() {
			h.Set(kv[0], kv[1])
		}
		h.Set("User-Agent", ua)
		h.Set(viewer.CountryHeader, country)
		h.Set("Accept-Language", lang)
		return viewer.FromHeaders(h.Get)
	}
	assert.Equal(t, link.Viewer{Country: "DE", Device: "mobile", OS: "ios", Language: "de"}, view(iPhone, "DE", "de-DE,de;q=0.9,en;q=0.8"))
	assert.Equal(t, link.Viewer{Country: "FR", Device: "tablet", OS: "android", Language: "fr"}, view(galaxy, "FR", "fr"))
	assert.Equal(t, link.Viewer{Device: "desktop", OS: "macos"}, view(mac, "de", ""), "a country that is not two capitals is unknown")
	assert.Equal(t, link.Viewer{Country: "US", Device: "desktop", OS: "windows", Language: "en"}, view(windows, "US", "en-US"))
	assert.Equal(t, link.Viewer{Device: "desktop", OS: "linux"}, view(linux, "", "*"))
	assert.Equal(t, link.Viewer{}, viewer.FromHeaders(func(string) string { return "" }), "no headers: nothing known")
}

func TestPrimaryLanguage(t *testing.T) {
	tests := map[string]string{
		"":                             "",
		"de":                           "de",
		"de-AT, en;q=0.5":              "de",
		"en;q=0.5, fr-CH":              "fr",
		"en;q=0.8, de;q=0.8":           "en",
		"*":                            "",
		"fr;q=0, en;q=0.1":             "en",
		"FR-ca":                        "fr",
		"en;q=1.5, de":                 "de",
		"en;q=abc, de;q=0.2":           "de",
		"zh-Hant-TW;q=0.9, i-klingon":  "zh",
		"de ; q = 0.7 , it ; q = 0.9 ": "it",
		"1234, en;q=0.3":               "en",
		"en;q=0.300":                   "en",
		"en;q=0.3000":                  "",
		"en;q=-0.5":                    "",
	}
	for in, want := range tests {
		assert.Equal(t, want, viewer.PrimaryLanguage(in), in)
	}
}

// FuzzPrimaryLanguage: any header gives "" or a lower-case subtag of 2-8
// letters that the header holds (in some case).
func FuzzPrimaryLanguage(f *testing.F) {
	for _, s := range []string{"de-DE,de;q=0.9,en;q=0.8", "*", "fr;q=0", "en;q=1.000", "x;q=0.5,yy", ",,;;==", "de;q=0.7;foo=bar"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		got := viewer.PrimaryLanguage(h)
		if got == "" {
			return
		}
		if len(got) < 2 || len(got) > 8 {
			t.Fatalf("%q -> %q", h, got)
		}
		for i := 0; i < len(got); i++ {
			if got[i] < 'a' || got[i] > 'z' {
				t.Fatalf("%q -> %q", h, got)
			}
		}
	})
}
