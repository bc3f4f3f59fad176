package clicklog_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/shortlink-dev/shortener/shared/clicklog"
)

var sinkRecord clicklog.Record

func benchLine(b *testing.B) []byte {
	lines := bytes.SplitAfter(mustReadB(b, "testdata/sample.log"), []byte{'\n'})
	return lines[0]
}

func mustReadB(b *testing.B, path string) []byte {
	b.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

func BenchmarkParse(b *testing.B) {
	line := benchLine(b)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		r, err := clicklog.Parse(line)
		if err != nil {
			b.Fatal(err)
		}
		sinkRecord = r
	}
}

func BenchmarkSplitFields(b *testing.B) {
	line := benchLine(b)
	b.SetBytes(int64(len(line)))
	n := 0
	for b.Loop() {
		n += len(bytes.Split(line, []byte{'\t'}))
	}
}

func BenchmarkClassify(b *testing.B) {
	r, err := clicklog.Parse(benchLine(b))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, ok := clicklog.Classify(&r); !ok {
			b.Fatal("not a click")
		}
	}
}

func BenchmarkIsBotAgent(b *testing.B) {
	r, err := clicklog.Parse(benchLine(b))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if clicklog.IsBotAgent(r.UserAgent) {
			b.Fatal("a bot")
		}
	}
}

func BenchmarkParser(b *testing.B) {
	line := benchLine(b)
	b.SetBytes(int64(len(line)))
	var p clicklog.Parser
	for b.Loop() {
		r, err := p.Parse(line)
		if err != nil {
			b.Fatal(err)
		}
		sinkRecord = r
	}
}

func BenchmarkCodeKey(b *testing.B) {
	for b.Loop() {
		if _, ok := clicklog.CodeKey("Ab3dE5g"); !ok {
			b.Fatal("no code")
		}
	}
}

func BenchmarkReferrerHost(b *testing.B) {
	for b.Loop() {
		if clicklog.ReferrerHost("https://news.ycombinator.com/item?id=42") == "" {
			b.Fatal("no host")
		}
	}
}
