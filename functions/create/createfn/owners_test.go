package createfn

import "github.com/shortlink-dev/shortener/shared/apikey"

// fixtureKey is the API key of the testdata events.
const fixtureKey = "k3yV4lu3Examp1e"

// testOwners is the keys table the tests resolve API keys with: the
// fixtures' key belongs to owner p6r4ocs3d1, another key to someone-else.
var testOwners = apikey.NewResolver(apikey.NewMemory(map[string]string{
	fixtureKey:          "p6r4ocs3d1",
	"someone-elses-key": "someone-else",
}), apikey.ResolverOptions{})
