package ttlstreamfn

import (
	"time"

	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/fnclients"
	"github.com/shortlink-dev/shortener/shared/fnstores"
)

// Build builds the consumer of the links table's stream, as its Lambda
// (functions/ttlstream) and the local run do: it turns TTL deletions into
// tombstones, written to the primary Region's replica. DynamoDB only.
func Build(cfg config.Config, c fnclients.Clients) (*Handler, error) {
	if err := fnclients.Require(cfg, "LINKS_TABLE"); err != nil {
		return nil, err
	}
	return New(Options{
		Store:   fnstores.LifecycleLinks(cfg, fnstores.PrimaryDynamoDB(cfg, c)),
		Grace:   cfg.TombstoneGrace,
		Now:     time.Now,
		Log:     c.Logger("ttlstream"),
		Metrics: c.MetricsOf("ttlstream"),
	}), nil
}
