package managefn

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apigw/apigwtest"
)

// TestPatchDeletedIsGone: a link its owner deleted cannot be revived, and
// PATCH says so with 410 (as the document and the handler's own text say),
// not the 404 of a link that never was; to another owner it stays 404, so
// the answer tells nothing of other owners' links.
func TestPatchDeletedIsGone(t *testing.T) {
	tests := []struct {
		name   string
		alias  string
		path   string
		owner  string
		status int
	}{
		{name: "generated code, its owner", path: code, owner: ownerA, status: 410},
		{name: "alias in another case, its owner", alias: "summer-sale", path: "Summer-Sale", owner: ownerA, status: 410},
		{name: "another owner", path: code, owner: ownerB, status: 404},
		{name: "never existed", path: "zZ9yY8x", owner: ownerA, status: 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			seeded := code
			if tt.alias != "" {
				seeded = tt.alias
			}
			f.seed(t, seeded, tt.alias, ownerA)
			target := code
			if tt.alias != "" {
				target = tt.alias
			}
			del := f.do(t, withIfMatch(at(event(t, "delete-link.json"), target), "*"))
			require.Equal(t, 204, del.StatusCode, del.Body)

			resp := f.do(t, as(withIfMatch(at(apigwtest.WithBody(event(t, "patch-link.json"), `{"url":"https://example.com/again"}`), tt.path), "*"), tt.owner))
			p := apigwtest.RequireProblem(t, resp, tt.status, "")
			if tt.status == 410 {
				assert.Contains(t, p.Detail, "deleted")
			}
		})
	}
}
