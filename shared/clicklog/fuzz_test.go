package clicklog_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/shortlink-dev/shortener/shared/clicklog"
	"github.com/shortlink-dev/shortener/shared/link"
)

// FuzzParse checks that Parse never panics, that whatever it accepts
// Format writes back into a line Parse reads as the same record, and that
// classifying an accepted record never panics either. testdata/fuzz/FuzzParse
// holds the seed corpus beyond the sample lines added here.
func FuzzParse(f *testing.F) {
	for _, line := range bytes.SplitAfter(mustRead(f, "testdata/sample.log"), []byte{'\n'}) {
		f.Add(line)
	}
	for _, line := range bytes.SplitAfter(mustRead(f, "testdata/sample-ip.log"), []byte{'\n'}) {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := clicklog.Parse(line)
		if err != nil {
			if r != (clicklog.Record{}) {
				t.Fatalf("Parse(%q) returned %+v with error %v", line, r, err)
			}
			return
		}
		out := clicklog.Format(r)
		again, err := clicklog.Parse(out)
		if err != nil {
			t.Fatalf("Parse(%q) = %+v, formatted as %q, which does not parse: %v", line, r, out, err)
		}
		if again != r {
			t.Fatalf("round trip changed the record:\n line %q\n first  %+v\n format %q\n second %+v", line, r, out, again)
		}
		if twice := clicklog.Format(again); !bytes.Equal(twice, out) {
			t.Fatalf("Format is not stable: %q then %q", out, twice)
		}
		if bytes.Count(out, []byte{'\n'}) != 1 || out[len(out)-1] != '\n' {
			t.Fatalf("Format(%+v) = %q, not one line", r, out)
		}
		if c, ok := clicklog.Classify(&r); ok && c.Code == "" {
			t.Fatalf("Classify(%+v) accepted a click without a code", r)
		}
	})
}

func mustRead(f *testing.F, path string) []byte {
	f.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// FuzzIsBotAgent checks the bot matcher against the plain definition: the
// User-Agent, ASCII lower-cased, contains one of BotAgents or starts with
// one of BotAgentPrefixes.
func FuzzIsBotAgent(f *testing.F) {
	for _, ua := range []string{"", "Mozilla/5.0", "Slackbot 1.0", "xxcURL/8", "GOOGLEBOT", "cubot x19", "a curl/", "wget/"} {
		f.Add(ua)
	}
	f.Fuzz(func(t *testing.T, ua string) {
		low := []byte(ua)
		for i, c := range low {
			if c >= 'A' && c <= 'Z' {
				low[i] = c + 'a' - 'A'
			}
		}
		want := ua == ""
		for _, a := range clicklog.BotAgents {
			want = want || bytes.Contains(low, []byte(a))
		}
		for _, a := range clicklog.BotAgentPrefixes {
			want = want || bytes.HasPrefix(low, []byte(a))
		}
		if got := clicklog.IsBotAgent(ua); got != want {
			t.Fatalf("IsBotAgent(%q) = %v, want %v", ua, got, want)
		}
	})
}

// FuzzCodeKey checks CodeKey, written not to allocate, against the rule it
// implements: a click counts under the first key the redirect function
// looks a segment up by (link.LookupKeys), and only segments it looks up
// are clicks. Were they to drift, clicks would be counted under keys the
// redirect never answered for.
func FuzzCodeKey(f *testing.F) {
	for _, s := range []string{"Ab3dE5g", "ab3de5g", "Ab3dE5", "Ab3dE5gH", "Ab3dE5gH9jK1", "Ab3dE5gH9jK1mN0p",
		"Ab3dE5gH9jK1mN0pQ", "PROMO25", "Promo", "Spring-Sale", "my_link", "Healthz", "v1", "a.b", "", "café"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, segment string) {
		got, ok := clicklog.CodeKey(segment)
		keys := link.LookupKeys(segment)
		if ok != (len(keys) > 0) || ok && got != keys[0] {
			t.Fatalf("CodeKey(%q) = %q, %v; LookupKeys = %q", segment, got, ok, keys)
		}
	})
}
