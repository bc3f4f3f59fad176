package statsfn

import (
	"time"

	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/fnclients"
	"github.com/shortlink-dev/shortener/shared/fnstores"
)

// Build builds the function behind GET /v1/links/{code}/stats, as its
// Lambda (functions/stats) and the local run do. The link and the key's
// owner come from this Region's replicas; the click counts from the
// analytics table, which is in the primary Region only (PRIMARY_REGION;
// one cross-Region round trip from any other Region), in the layout the
// clicks function writes (fnstores.ClickStore). DynamoDB only.
func Build(cfg config.Config, c fnclients.Clients) (*Handler, error) {
	if err := fnclients.Require(cfg, "LINKS_TABLE", "KEYS_TABLE", "ANALYTICS_TABLE"); err != nil {
		return nil, err
	}
	db := fnstores.DynamoDB(c)
	clicks, _ := fnstores.ClickStore(fnstores.PrimaryDynamoDB(cfg, c), cfg.ClickStore, cfg.AnalyticsTable, cfg.DBTimeout)
	links := dynamo.NewLinkStore(db, dynamo.LinkConfig{LinksTable: cfg.LinksTable, Timeout: cfg.DBTimeout, TagsTable: cfg.LinkTagsTable})
	var tagged Tagged
	if cfg.LinkTagsTable != "" {
		tagged = TagPages{Pager: links} // GET /v1/stats?tag=: a Query of the tags table per page
	}
	return New(Options{
		Tagged:  tagged,
		Links:   links,
		Lists:   links, // GET /v1/stats: a Query on the by-owner index
		Clicks:  clicks,
		Now:     time.Now,
		Log:     c.Logger("stats"),
		Metrics: c.MetricsOf("stats"),
		Owners:  fnstores.Owners(cfg, db),
	}), nil
}
