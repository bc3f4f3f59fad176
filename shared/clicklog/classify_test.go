package clicklog_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/shortlink-dev/shortener/shared/clicklog"
	"github.com/shortlink-dev/shortener/shared/link"
)

func TestClassifySample(t *testing.T) {
	// What each line of testdata/sample.log is.
	type want struct {
		ok    bool
		click clicklog.Click
	}
	wants := []want{
		{ok: true, click: clicklog.Click{Code: "Ab3dE5g", Country: "DE", Referrer: "news.ycombinator.com"}},
		{ok: true, click: clicklog.Click{Code: "Ab3dE5g", Country: "US"}},
		{ok: true, click: clicklog.Click{Code: "Ab3dE5g", Country: "US", Bot: true}},            // Slackbot
		{ok: true, click: clicklog.Click{Code: "Ab3dE5g", Country: "FR", Bot: true}},            // HEAD
		{ok: true, click: clicklog.Click{Code: "spring-sale", Country: "GB", Referrer: "t.co"}}, // alias, lower-cased
		{ok: false}, // 404
		{ok: false}, // 410
		{ok: false}, // the API
		{ok: false}, // the viewer hung up: 000
		{ok: false}, // favicon.ico
		{ok: true, click: clicklog.Click{Code: "promo25", Country: "IE", Referrer: "www.example.com", Bot: true}}, // facebookexternalhit
		{ok: true, click: clicklog.Click{Code: "Ab3dE5g", Country: "US", Bot: true}},                              // Googlebot
	}
	lines := readLines(t, "sample.log")
	for i, line := range lines {
		t.Run(string(line[:40]), func(t *testing.T) {
			r, err := clicklog.Parse(line)
			if !assert.NoError(t, err) {
				return
			}

			got, ok := clicklog.Classify(&r)

			assert.Equal(t, wants[i].ok, ok)
			if ok {
				w := wants[i].click
				w.Time = r.Time
				assert.Equal(t, w, got)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		method   string
		uri      string
		ua       string
		wantCode string // "" when the record is dropped
		wantBot  bool
	}{
		{name: "302 GET", status: 302, method: "GET", uri: "/Ab3dE5g", ua: "Mozilla/5.0", wantCode: "Ab3dE5g"},
		{name: "301", status: 301, method: "GET", uri: "/Ab3dE5g", ua: "Mozilla/5.0", wantCode: "Ab3dE5g"},
		{name: "307", status: 307, method: "GET", uri: "/Ab3dE5g", ua: "Mozilla/5.0", wantCode: "Ab3dE5g"},
		{name: "308", status: 308, method: "GET", uri: "/Ab3dE5g", ua: "Mozilla/5.0", wantCode: "Ab3dE5g"},
		{name: "HEAD is a bot", status: 302, method: "HEAD", uri: "/Ab3dE5g", ua: "Mozilla/5.0", wantCode: "Ab3dE5g", wantBot: true},
		{name: "no user agent is a bot", status: 302, method: "GET", uri: "/Ab3dE5g", wantCode: "Ab3dE5g", wantBot: true},
		{name: "query string ignored", status: 302, method: "GET", uri: "/Ab3dE5g?utm=x/y", ua: "Mozilla/5.0", wantCode: "Ab3dE5g"},
		{name: "generated code keeps its case", status: 302, method: "GET", uri: "/ABCDEFG", ua: "Mozilla/5.0", wantCode: "ABCDEFG"},
		{name: "alias lower-cased", status: 302, method: "GET", uri: "/My_Alias-1", ua: "Mozilla/5.0", wantCode: "my_alias-1"},
		// Generated codes of every allowed length keep their case,
		// whatever length is configured; the redirect
		// answers an alias's code-shaped spelling in other capitals with
		// a 303, never with a redirect logged under that spelling.
		{name: "code of 6 keeps its case", status: 302, method: "GET", uri: "/Promo2", ua: "Mozilla/5.0", wantCode: "Promo2"},
		{name: "code of 8 keeps its case", status: 302, method: "GET", uri: "/Ab3dE5gH", ua: "Mozilla/5.0", wantCode: "Ab3dE5gH"},
		{name: "code of 12 keeps its case", status: 302, method: "GET", uri: "/Ab3dE5gH9jK1", ua: "Mozilla/5.0", wantCode: "Ab3dE5gH9jK1"},
		{name: "code of 16 keeps its case", status: 302, method: "GET", uri: "/Ab3dE5gH9jK1mN0p", ua: "Mozilla/5.0", wantCode: "Ab3dE5gH9jK1mN0p"},
		{name: "too long for a code is an alias", status: 302, method: "GET", uri: "/Ab3dE5gH9jK1mN0pQ", ua: "Mozilla/5.0", wantCode: "ab3de5gh9jk1mn0pq"},
		{name: "too short for a code is an alias", status: 302, method: "GET", uri: "/Promo", ua: "Mozilla/5.0", wantCode: "promo"},
		{name: "the 303 to an alias's own path", status: 303, method: "GET", uri: "/PROMO25", ua: "Mozilla/5.0"},
		{name: "shortest alias", status: 302, method: "GET", uri: "/abc", ua: "Mozilla/5.0", wantCode: "abc"},
		{name: "longest alias", status: 302, method: "GET", uri: "/" + strings.Repeat("a", link.AliasSyntaxMaxLen), ua: "x", wantCode: strings.Repeat("a", link.AliasSyntaxMaxLen)},
		{name: "200", status: 200, method: "GET", uri: "/Ab3dE5g", ua: "Mozilla/5.0"},
		{name: "303", status: 303, method: "GET", uri: "/Ab3dE5g", ua: "Mozilla/5.0"},
		{name: "304", status: 304, method: "GET", uri: "/Ab3dE5g", ua: "Mozilla/5.0"},
		{name: "404", status: 404, method: "GET", uri: "/Ab3dE5g", ua: "Mozilla/5.0"},
		{name: "410", status: 410, method: "GET", uri: "/Ab3dE5g", ua: "Mozilla/5.0"},
		{name: "000", status: 0, method: "GET", uri: "/Ab3dE5g", ua: "Mozilla/5.0"},
		{name: "POST", status: 302, method: "POST", uri: "/Ab3dE5g", ua: "Mozilla/5.0"},
		{name: "OPTIONS", status: 302, method: "OPTIONS", uri: "/Ab3dE5g", ua: "Mozilla/5.0"},
		{name: "lower-case method", status: 302, method: "get", uri: "/Ab3dE5g", ua: "Mozilla/5.0"},
		{name: "root", status: 302, method: "GET", uri: "/", ua: "Mozilla/5.0"},
		{name: "empty uri", status: 302, method: "GET", uri: "", ua: "Mozilla/5.0"},
		{name: "no leading slash", status: 302, method: "GET", uri: "Ab3dE5g", ua: "Mozilla/5.0"},
		{name: "two segments", status: 302, method: "GET", uri: "/v1/links", ua: "Mozilla/5.0"},
		{name: "trailing slash", status: 302, method: "GET", uri: "/Ab3dE5g/", ua: "Mozilla/5.0"},
		{name: "reserved", status: 302, method: "GET", uri: "/admin", ua: "Mozilla/5.0"},
		{name: "reserved in capitals", status: 302, method: "GET", uri: "/HEALTHZ", ua: "Mozilla/5.0"},
		{name: "dot", status: 302, method: "GET", uri: "/robots.txt", ua: "Mozilla/5.0"},
		// YOURLS's own keywords start at one character; a deployment may
		// allow them (link.AliasSyntaxMinLen), so the log counts them.
		{name: "alias of one", status: 302, method: "GET", uri: "/a", ua: "Mozilla/5.0", wantCode: "a"},
		{name: "alias of two in capitals", status: 302, method: "GET", uri: "/Zz", ua: "Mozilla/5.0", wantCode: "zz"},
		{name: "reserved of two", status: 302, method: "GET", uri: "/V1", ua: "Mozilla/5.0"},
		{name: "too long", status: 302, method: "GET", uri: "/" + strings.Repeat("a", link.AliasSyntaxMaxLen+1), ua: "Mozilla/5.0"},
		{name: "non-ASCII", status: 302, method: "GET", uri: "/café", ua: "Mozilla/5.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := clicklog.Record{Time: at(1796040000, 0), Status: tt.status, Method: tt.method, URI: tt.uri, UserAgent: tt.ua,
				ResponseResultType: "Hit", ResultType: "Hit"}

			got, ok := clicklog.Classify(&r)

			assert.Equal(t, tt.wantCode != "", ok)
			assert.Equal(t, tt.wantCode, got.Code)
			assert.Equal(t, tt.wantBot, got.Bot)
		})
	}
}

func TestIsBotAgent(t *testing.T) {
	tests := []struct {
		ua   string
		want bool
	}{
		// People.
		{ua: safari},
		{ua: chrome},
		{ua: "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"},
		{ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/440.0.0]"},
		{ua: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36 [LinkedInApp]"},
		{ua: "Mozilla/5.0 (Linux; Android 9; CUBOT X19) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36"},
		{ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Teams/24.1 Chrome/120.0 Safari/537.36"},
		{ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) Mobile/15E148 Twitter for iPhone"},
		// Link previews.
		{ua: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", want: true},
		{ua: "Slackbot 1.0 (+https://api.slack.com/robots)", want: true},
		{ua: "Twitterbot/1.0", want: true},
		{ua: "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", want: true},
		{ua: "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)", want: true},
		{ua: "TelegramBot (like TwitterBot)", want: true},
		{ua: "WhatsApp/2.23.20.0 A", want: true},
		{ua: "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)", want: true},
		{ua: "http.rb/5.1.1 (Mastodon/4.2.0; +https://mastodon.social/)", want: true},
		{ua: "Mozilla/5.0 (Windows NT 6.1; WOW64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/51.0.2704.103 Safari/537.36 SkypeUriPreview Preview/0.5", want: true},
		// Crawlers.
		{ua: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", want: true},
		{ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0 Safari/537.36", want: true},
		{ua: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)", want: true},
		{ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)", want: true},
		{ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36", want: true},
		{ua: "Some-Crawler/1.0", want: true},
		// Command-line clients and libraries, by their first token.
		{ua: "curl/8.5.0", want: true},
		{ua: "Wget/1.21.4", want: true},
		{ua: "python-requests/2.31.0", want: true},
		{ua: "Python/3.12 aiohttp/3.9.1", want: true},
		{ua: "Go-http-client/2.0", want: true},
		{ua: "Java/17.0.2", want: true},
		{ua: "okhttp/4.12.0", want: true},
		{ua: "Mozilla/5.0 (X11; Linux x86_64) curl/8.5.0"}, // a browser-like string naming curl later is not a client's
		{ua: "Mozilla/5.0 (compatible; CCBot/2.0; +https://commoncrawl.org/faq/)", want: true},
		// Case and position do not matter.
		{ua: "SLACKBOT", want: true},
		{ua: "x twitterBOT", want: true},
		{ua: strings.Repeat("x", 600) + " Googlebot", want: true},
		{ua: strings.Repeat("x", 600)},
		// No agent at all.
		{ua: "", want: true},
	}
	for _, tt := range tests {
		name := tt.ua
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tt.want, clicklog.IsBotAgent(tt.ua))
		})
	}
}

func TestBotAgentListsAreLowerCase(t *testing.T) {
	// The matchers compare with a lower-cased User-Agent.
	for _, a := range clicklog.BotAgents {
		assert.Equal(t, strings.ToLower(a), a)
		assert.GreaterOrEqual(t, len(a), 6, "%q: the search skips by the shortest entry", a)
		assert.True(t, clicklog.IsBotAgent("Mozilla/5.0 "+strings.ToUpper(a)+"/1.0"), a)
	}
	for _, a := range clicklog.BotAgentPrefixes {
		assert.Equal(t, strings.ToLower(a), a)
		assert.NotEmpty(t, a)
		assert.True(t, clicklog.IsBotAgent(strings.ToUpper(a)+"1.0"), a)
	}
}

func TestReferrerHost(t *testing.T) {
	tests := []struct {
		ref  string
		want string
	}{
		{ref: "https://news.ycombinator.com/item?id=42", want: "news.ycombinator.com"},
		{ref: "https://t.co/", want: "t.co"},
		{ref: "http://Example.COM", want: "example.com"},
		{ref: "https://example.com:8443/x", want: "example.com"},
		{ref: "https://user:pw@example.com/", want: "example.com"},
		{ref: "https://example.com./", want: "example.com"},
		{ref: "https://example.com?q=1", want: "example.com"},
		{ref: "https://example.com#frag", want: "example.com"},
		{ref: "android-app://com.slack/", want: "com.slack"},
		{ref: "https://xn--bcher-kva.example/", want: "xn--bcher-kva.example"},
		{ref: ""},
		{ref: "-"},
		{ref: "/relative/path"},
		{ref: "example.com"},
		{ref: "://example.com"},
		{ref: "https://"},
		{ref: "https:///path"},
		{ref: "https://[2001:db8::1]/"},
		{ref: "https://bücher.example/"},
		{ref: "https://exa mple.com/"},
		{ref: "https://exa#mple.com/", want: "exa"},
		{ref: "https://" + strings.Repeat("a", 254) + "/"},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			assert.Equal(t, tt.want, clicklog.ReferrerHost(tt.ref))
		})
	}
}

func TestCodeKey(t *testing.T) {
	tests := []struct {
		segment string
		want    string
		ok      bool
	}{
		{segment: "Ab3dE5g", want: "Ab3dE5g", ok: true},
		{segment: "Ab3dE5gH", want: "Ab3dE5gH", ok: true},
		{segment: "Ab3dE5gH9jK1", want: "Ab3dE5gH9jK1", ok: true},
		{segment: "Spring-Sale", want: "spring-sale", ok: true},
		{segment: "Promo", want: "promo", ok: true},
		{segment: "lower", want: "lower", ok: true},
		{segment: "stats"},
		{segment: "Stats"},
		{segment: "a.b"},
		{segment: ""},
	}
	for _, tt := range tests {
		t.Run(tt.segment, func(t *testing.T) {
			got, ok := clicklog.CodeKey(tt.segment)

			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestClassifyDestination: a decided link's redirect counts with the
// destination its Content-Type names; the 303 answering a right password
// (a POST) is the click, other 303s and POSTs are not; a destination no
// link can have is ignored, the click still counted.
func TestClassifyDestination(t *testing.T) {
	tests := []struct {
		name        string
		status      int
		method, ct  string
		click       bool
		destination string
		uri         string // "/Ab3dE5g" when empty; a POST's "/unlock/Ab3dE5g"
	}{
		{"rule", 302, "GET", "text/plain; charset=utf-8; destination=rule-2", true, "rule-2", ""},
		{"target", 307, "GET", "text/plain; charset=utf-8; destination=target-0", true, "target-0", ""},
		{"head", 302, "HEAD", "text/plain; destination=default", true, "default", ""},
		{"expired", 302, "GET", "text/plain; charset=utf-8; destination=expired", true, "expired", ""},
		{"plain link", 302, "GET", "", true, "", ""},
		{"password right", 303, "POST", "text/plain; charset=utf-8; destination=default", true, "default", ""},
		{"password right at the link's own path", 303, "POST", "text/plain; destination=default", false, "", "/Ab3dE5g"},
		{"password right under another prefix", 303, "POST", "text/plain; destination=default", false, "", "/lock/Ab3dE5g"},
		{"303 without destination", 303, "POST", "text/html", false, "", ""},
		{"303 GET with destination", 303, "GET", "text/plain; destination=default", false, "", ""},
		{"POST 302", 302, "POST", "text/plain; destination=default", false, "", ""},
		{"form", 200, "GET", "text/html; charset=utf-8", false, "", ""},
		{"unknown label", 302, "GET", "text/plain; destination=rule-99", true, "", ""},
		{"not a parameter", 302, "GET", "text/plain; xdestination=rule-1", true, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			uri := tt.uri
			if uri == "" {
				uri = "/Ab3dE5g"
				if tt.method == "POST" {
					uri = "/unlock/Ab3dE5g"
				}
			}
			r := clicklog.Record{Time: at(1796040000, 0), Status: tt.status, Method: tt.method, URI: uri,
				UserAgent: "Mozilla/5.0", ResponseResultType: "Miss", ResultType: "Miss", ContentType: tt.ct}
			c, ok := clicklog.Classify(&r)
			assert.Equal(t, tt.click, ok)
			assert.Equal(t, tt.destination, c.Destination)
			if ok {
				assert.Equal(t, "Ab3dE5g", c.Code)
			}
		})
	}
}

func FuzzDestinationOf(f *testing.F) {
	for _, s := range []string{"text/plain; charset=utf-8; destination=rule-2", "destination=target-9", "destination=default;x", "a;destination= expired "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ct string) {
		if d := clicklog.DestinationOf(ct); d != "" && !link.ValidLabel(d) {
			t.Fatalf("%q -> %q", ct, d)
		}
	})
}
