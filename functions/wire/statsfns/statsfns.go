// Package statsfns builds the stats function: DynamoDB only. Apart from
// dbfns so that stats does not link and initialise the redirect path's
// packages (its cache, the click log's bot tables, password hashing); see
// wirecore for why the constructors are grouped.
package statsfns

import (
	"time"

	"github.com/shortlink-dev/shortener/functions/stats/statsfn"
	"github.com/shortlink-dev/shortener/functions/wire/clicklayout"
	"github.com/shortlink-dev/shortener/functions/wire/wirecore"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/linkstore/dynamostore"
)

// NewStats builds the function behind GET /v1/links/{code}/stats. The
// link and the key's owner come from this Region's replicas; the click
// counts from the analytics table, which is in the primary Region only
// (PRIMARY_REGION; one cross-Region round trip from any other Region), in
// the layout the clicks function writes (clicklayout).
func NewStats(cfg config.Config, c wirecore.Clients) (*statsfn.Handler, error) {
	if err := wirecore.Require(cfg, "LINKS_TABLE", "KEYS_TABLE", "ANALYTICS_TABLE"); err != nil {
		return nil, err
	}
	db := c.DynamoDBClient()
	clicks, _ := clicklayout.ClickStore(c.PrimaryDynamoDB(cfg), cfg.ClickStore, cfg.AnalyticsTable, cfg.DBTimeout)
	return statsfn.New(statsfn.Options{
		Links:   dynamostore.New(db, dynamostore.Config{LinksTable: cfg.LinksTable, Timeout: cfg.DBTimeout}),
		Clicks:  clicks,
		Now:     time.Now,
		Log:     c.Logger("stats"),
		Metrics: c.MetricsOf("stats"),
		Owners:  wirecore.Owners(cfg, db),
	}), nil
}
