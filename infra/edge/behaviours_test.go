package edge

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/shortlink-dev/shortener/shared/edgespec"
)

// TestKeyBehavioursOf: each behaviour a KeyValues names reaches its
// constructor, with the names for a list; one the kind lacks is a panic
// naming the kind.
func TestKeyBehavioursOf(t *testing.T) {
	list := func(kind string) func(...*string) string {
		return func(names ...*string) string {
			s := make([]string, len(names))
			for i, n := range names {
				s[i] = *n
			}
			return kind + ":" + strings.Join(s, ",")
		}
	}
	full := keyBehaviours[string]{kind: "test", none: func() string { return "none" }, all: func() string { return "all" },
		allowList: list("allow"), denyList: list("deny")}
	tests := []struct {
		k    edgespec.KeyValues
		want string
	}{
		{edgespec.KeyValues{Behavior: edgespec.KeyNone}, "none"},
		{edgespec.KeyValues{Behavior: edgespec.KeyAll}, "all"},
		{edgespec.KeyValues{Behavior: edgespec.KeyAllowList, Names: []string{"a", "b"}}, "allow:a,b"},
		{edgespec.KeyValues{Behavior: edgespec.KeyAllExcept, Names: []string{"c"}}, "deny:c"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, full.of(tt.k), tt.k.Behavior)
	}

	headers := keyBehaviours[string]{kind: "cache key header", none: func() string { return "none" }, allowList: list("allow")}
	assert.PanicsWithValue(t, `edge: cache key header behaviour "all"`, func() { headers.of(edgespec.KeyValues{Behavior: edgespec.KeyAll}) })
	assert.PanicsWithValue(t, `edge: cache key header behaviour "allViewer"`, func() { headers.of(edgespec.KeyValues{Behavior: edgespec.KeyAllViewer}) })
}
