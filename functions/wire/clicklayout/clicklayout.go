// Package clicklayout chooses the analytics table's layout for the clicks
// and stats functions (SHORTENER_CLICK_STORE), so both read what the other
// writes.
package clicklayout

import (
	"time"

	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/dynamo/packedclicks"
)

// ClickStore is the click store the clicks and stats functions share on
// the analytics table, in the layout config.Config.ClickStore names:
// clickstore/packedclicks (config.ClickStorePacked, the default: rollups
// per shard batch, compacted into segments and bucket-day items; compactor
// is then the store, which the clicks function runs after every few
// batches) or shared/dynamo (config.ClickStoreItems: one item per
// code and bucket).
// A zero timeout is the store's default. The two layouts do not read each
// other's items.
func ClickStore(db dynamo.API, layout, table string, timeout time.Duration) (store clickstore.Store, compactor *packedclicks.Store) {
	if layout == config.ClickStorePacked {
		p := packedclicks.New(db, packedclicks.Config{Table: table, Timeout: timeout})
		return p, p
	}
	return dynamo.NewClickStore(db, dynamo.ClickConfig{Table: table, Timeout: timeout}), nil
}
