package ttlstreamfn_test

import (
	"testing"

	"github.com/shortlink-dev/shortener/functions/ttlstream/ttlstreamfn"
	"github.com/shortlink-dev/shortener/shared/fnclients/fntest"
)

func TestBuildNamesEachMissingSetting(t *testing.T) {
	fntest.Requires(t, ttlstreamfn.Build, "LINKS_TABLE")
}
