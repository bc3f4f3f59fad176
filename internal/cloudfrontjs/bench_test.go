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

// BenchmarkVersionKey is one viewer-request invocation of the deployed
// version-key function on a path the store holds a version for (an await
// of the store's get, then the header set), beside BenchmarkCanonicalPath,
// whose work it includes. The engine's time is not CloudFront's compute
// utilization; the comparison is.
//
//	go test -run '^$' -bench 'CanonicalPath|VersionKey' -benchmem ./internal/cloudfrontjs/
func BenchmarkVersionKey(b *testing.B) {
	f, err := Compile(edgespec.VersionKeyFunction, edgespec.MustFunctionSource(edgespec.VersionKeyFunction),
		WithKeyValueStore(mapStore{"/abc1234": "1764757200123"}))
	if err != nil {
		b.Fatal(err)
	}
	ev := testEvent()
	ev.Request.URI = "/abc1234"
	b.ReportAllocs()
	for b.Loop() {
		res, err := f.ViewerRequest(context.Background(), ev)
		if err != nil || res.Request == nil {
			b.Fatal(res, err)
		}
	}
}
