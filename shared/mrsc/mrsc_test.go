package mrsc

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSetOf(t *testing.T) {
	for _, tc := range []struct {
		name    string
		regions []string
		want    []string
	}{
		{"one US Region", []string{"us-west-2"}, Sets[0]},
		{"two EU Regions", []string{"eu-west-3", "eu-central-1"}, Sets[1]},
		{"all of AP", []string{"ap-northeast-1", "ap-northeast-2", "ap-northeast-3"}, Sets[2]},
		{"across sets", []string{"us-east-1", "eu-west-1"}, nil},
		{"in no set", []string{"sa-east-1"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, SetOf(tc.regions...))
		})
	}
}

// TestSetsAreDisjoint: a Region belongs to one set at most, so the set of
// a table's first Region is the only one its others may come from.
func TestSetsAreDisjoint(t *testing.T) {
	seen := map[string]bool{}
	for _, set := range Sets {
		for _, r := range set {
			assert.False(t, seen[r], r)
			seen[r] = true
		}
	}
}
