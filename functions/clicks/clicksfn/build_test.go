package clicksfn_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/clicks/clicksfn"
	"github.com/shortlink-dev/shortener/functions/stats/statsfn"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/dynamo/packedclicks"
	"github.com/shortlink-dev/shortener/shared/fnclients/fntest"
)

func TestBuildNamesEachMissingSetting(t *testing.T) {
	fntest.Requires(t, clicksfn.Build, "ANALYTICS_TABLE")
}

// TestStatsReadTheLayoutClicksWrite: SHORTENER_CLICK_STORE chooses the
// analytics table's layout for both functions; the packed one has clicks
// compact it.
func TestStatsReadTheLayoutClicksWrite(t *testing.T) {
	for _, tt := range []struct {
		layout      string
		wantPacked  bool
		wantCompact bool
	}{
		{layout: config.ClickStoreItems},
		{layout: config.ClickStorePacked, wantPacked: true, wantCompact: true},
	} {
		t.Run(tt.layout, func(t *testing.T) {
			cfg := config.Config{AnalyticsTable: "analytics", LinksTable: "links", KeysTable: "keys", ClickStore: tt.layout}

			h, err := clicksfn.Build(cfg, fntest.Lambda())
			require.NoError(t, err)
			s, err := statsfn.Build(cfg, fntest.Lambda())
			require.NoError(t, err)

			_, packed := h.Store.(*packedclicks.Store)
			assert.Equal(t, tt.wantPacked, packed)
			assert.Equal(t, tt.wantCompact, h.Compactor != nil)
			_, packed = s.Clicks.(*packedclicks.Store)
			assert.Equal(t, tt.wantPacked, packed, "stats reads the layout clicks writes")
		})
	}
}
