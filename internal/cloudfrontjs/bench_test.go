package cloudfrontjs

import (
	"context"
	"testing"

	"github.com/shortlink-dev/shortener/shared/edgespec"
)

// BenchmarkCanonicalPath is one viewer-request invocation of the deployed
// canonical-path function on a canonical path: a fresh engine, the code,
// the event in and the request out.
//
//	go test -run '^$' -bench CanonicalPath -benchmem ./internal/cloudfrontjs/
func BenchmarkCanonicalPath(b *testing.B) {
	f, err := Compile(edgespec.CanonicalPathFunction, edgespec.MustFunctionSource(edgespec.CanonicalPathFunction))
	if err != nil {
		b.Fatal(err)
	}
	ev := testEvent()
	b.ReportAllocs()
	for b.Loop() {
		res, err := f.ViewerRequest(context.Background(), ev)
		if err != nil || res.Request == nil {
			b.Fatal(res, err)
		}
	}
}
