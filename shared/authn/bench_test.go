package authn

import (
	"context"
	"testing"
)

// BenchmarkVerify is one access token checked with its key cached: the
// authorizer's cost per request once warm.
func BenchmarkVerify(b *testing.B) {
	a, _, _ := testKeys(b)
	f := newFixture(b, UseAccess)
	tok := sign(b, a, "kid-a", f.accessClaims())
	ctx := context.Background()
	if _, err := f.v.Verify(ctx, tok); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.v.Verify(ctx, tok); err != nil {
			b.Fatal(err)
		}
	}
}
