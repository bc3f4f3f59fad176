package redirectfn_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/redirect/redirectfn"
	"github.com/shortlink-dev/shortener/shared/fnclients/fntest"
)

func TestBuildNamesEachMissingSetting(t *testing.T) {
	fntest.Requires(t, redirectfn.Build, "LINKS_TABLE")
}

// TestBuildMarksInItsRegionsTable: the redirect writes its Region's edge
// marks table (EDGE_MARKS_TABLE), or none.
func TestBuildMarksInItsRegionsTable(t *testing.T) {
	cfg := fntest.Load(t)
	h, err := redirectfn.Build(cfg, fntest.Lambda())
	require.NoError(t, err)
	assert.Nil(t, h.Marks)
	cfg.EdgeMarksTable = "app-edge-marks"
	h, err = redirectfn.Build(cfg, fntest.Lambda())
	require.NoError(t, err)
	assert.NotNil(t, h.Marks)
}
