package clicklog_test

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/shortlink-dev/shortener/shared/clicklog"
)

func TestClassifyAgent(t *testing.T) {
	tests := []struct {
		name, ua string
		bot      bool
		want     clicklog.Agent
	}{
		{"chrome on windows", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", false, clicklog.Agent{Device: "desktop", OS: "Windows", Browser: "Chrome"}},
		{"edge on windows", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.86", false, clicklog.Agent{Device: "desktop", OS: "Windows", Browser: "Edge"}},
		{"safari on mac", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15", false, clicklog.Agent{Device: "desktop", OS: "macOS", Browser: "Safari"}},
		{"safari on iphone", "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1", false, clicklog.Agent{Device: "mobile", OS: "iOS", Browser: "Safari"}},
		{"chrome on iphone", "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1", false, clicklog.Agent{Device: "mobile", OS: "iOS", Browser: "Chrome"}},
		{"ipad", "Mozilla/5.0 (iPad; CPU OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1", false, clicklog.Agent{Device: "tablet", OS: "iOS", Browser: "Safari"}},
		{"android phone", "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36", false, clicklog.Agent{Device: "mobile", OS: "Android", Browser: "Chrome"}},
		{"android tablet", "Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", false, clicklog.Agent{Device: "tablet", OS: "Android", Browser: "Chrome"}},
		{"samsung internet", "Mozilla/5.0 (Linux; Android 14; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36", false, clicklog.Agent{Device: "mobile", OS: "Android", Browser: "Samsung Internet"}},
		{"firefox on linux", "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", false, clicklog.Agent{Device: "desktop", OS: "Linux", Browser: "Firefox"}},
		{"opera", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 OPR/115.0.0.0", false, clicklog.Agent{Device: "desktop", OS: "Windows", Browser: "Opera"}},
		{"chromebook", "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", false, clicklog.Agent{Device: "desktop", OS: "ChromeOS", Browser: "Chrome"}},
		{"bot keeps its os", "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36 (compatible; Googlebot/2.1)", true, clicklog.Agent{Device: "bot", OS: "Android", Browser: "Chrome"}},
		{"empty", "", false, clicklog.AgentOther},
		{"unknown", "SomeApp/1.0", false, clicklog.AgentOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, clicklog.ClassifyAgent(tt.ua, tt.bot))
		})
	}
}

func TestParseCampaign(t *testing.T) {
	long := strings.Repeat("é", 30) // 60 bytes
	tests := []struct {
		name, uri string
		want      clicklog.Campaign
	}{
		{"all three", "/abc?utm_source=news&utm_medium=email&utm_campaign=spring+sale", clicklog.Campaign{Source: "news", Medium: "email", Name: "spring sale"}},
		{"none", "/abc", clicklog.Campaign{}},
		{"other params", "/abc?x=1&y=2", clicklog.Campaign{}},
		{"escapes", "/abc?utm_source=%C3%A9t%C3%A9&utm_medium=a%26b", clicklog.Campaign{Source: "été", Medium: "a&b"}},
		{"first wins, any case", "/abc?UTM_SOURCE=a&utm_source=b", clicklog.Campaign{Source: "a"}},
		{"bad escape as sent", "/abc?utm_campaign=50%", clicklog.Campaign{Name: "50%"}},
		{"controls dropped", "/abc?utm_source=a%1Fb%00c%0A", clicklog.Campaign{Source: "abc"}},
		{"fragment ignored", "/abc?utm_source=a#utm_medium=b", clicklog.Campaign{Source: "a"}},
		{"cut at 50 bytes on a character", "/abc?utm_campaign=" + long, clicklog.Campaign{Name: strings.Repeat("é", 25)}},
		{"empty value", "/abc?utm_source=&utm_medium=x", clicklog.Campaign{Medium: "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := clicklog.ParseCampaign(tt.uri)
			assert.Equal(t, tt.want, got)
			if !got.IsZero() {
				assert.Equal(t, got, clicklog.CampaignFromKey(got.Key()))
			}
		})
	}
}

// FuzzClassifyAgent checks that any User-Agent classifies into the fixed
// names, without a panic.
func FuzzClassifyAgent(f *testing.F) {
	f.Add("Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1", false)
	f.Add("curl/8.5.0", true)
	f.Add("", false)
	f.Fuzz(func(t *testing.T, ua string, bot bool) {
		a := clicklog.ClassifyAgent(ua, bot)
		if !slices.Contains(clicklog.Devices, a.Device) || !slices.Contains(clicklog.OperatingSystems, a.OS) || !slices.Contains(clicklog.Browsers, a.Browser) {
			t.Fatalf("ClassifyAgent(%q) = %+v, a name outside the fixed sets", ua, a)
		}
		if bot != (a.Device == clicklog.DeviceBot) {
			t.Fatalf("ClassifyAgent(%q, %v) = %+v", ua, bot, a)
		}
	})
}

// FuzzParseCampaign checks that the values are bounded, valid UTF-8, free
// of controls (so Key's separator cannot appear) and survive Key.
func FuzzParseCampaign(f *testing.F) {
	f.Add("/abc?utm_source=news&utm_medium=email&utm_campaign=spring+sale")
	f.Add("/abc?utm_source=%C3%A9%1F&utm_campaign=%zz")
	f.Add("/abc?utm_medium=" + strings.Repeat("%E2%82%AC", 30))
	f.Fuzz(func(t *testing.T, uri string) {
		c := clicklog.ParseCampaign(uri)
		for _, v := range []string{c.Source, c.Medium, c.Name} {
			if len(v) > clicklog.MaxCampaignValue || !utf8.ValidString(v) || strings.ContainsAny(v, "\x00\x1f\n\t") {
				t.Fatalf("ParseCampaign(%q) = %+v: value %q not bounded and clean", uri, c, v)
			}
		}
		if !c.IsZero() && clicklog.CampaignFromKey(c.Key()) != c {
			t.Fatalf("Key of %+v does not read back", c)
		}
	})
}
