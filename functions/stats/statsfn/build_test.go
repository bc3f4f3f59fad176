package statsfn_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/stats/statsfn"
	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/fnclients/fntest"
)

func TestBuildNamesEachMissingSetting(t *testing.T) {
	fntest.Requires(t, statsfn.Build, "LINKS_TABLE", "KEYS_TABLE", "ANALYTICS_TABLE")
}

// TestBuildReadsTheCountsInThePrimary: stats runs in every Region, but the
// analytics table is in the primary Region only: stats reads its link
// from this Region's replica and its counts from the primary
// (PRIMARY_REGION, eu-west-1).
func TestBuildReadsTheCountsInThePrimary(t *testing.T) {
	ctx := context.Background()
	rec := &fntest.HostRecorder{}
	h, err := statsfn.Build(fntest.Load(t), fntest.Regional(rec))
	require.NoError(t, err)
	_, _ = h.Links.Get(ctx, "abc1234")
	_, _ = h.Clicks.Series(ctx, "abc1234", clickstore.Hour, time.Now().Add(-time.Hour), time.Now())
	assert.Equal(t, []string{"dynamodb.eu-central-1.amazonaws.com", "dynamodb.eu-west-1.amazonaws.com"}, rec.Hosts())
}
