package reclaimfn

import (
	"time"

	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/fnclients"
	"github.com/shortlink-dev/shortener/shared/fnstores"
)

// Build builds the reclaim state machine's task, as its Lambda
// (functions/reclaim) and the local run do: expired links into
// tombstones, tombstones past their grace released, in the primary
// Region's replica. DynamoDB only.
func Build(cfg config.Config, c fnclients.Clients) (*Handler, error) {
	if err := fnclients.Require(cfg, "LINKS_TABLE"); err != nil {
		return nil, err
	}
	db := fnstores.PrimaryDynamoDB(cfg, c)
	return New(Options{
		// Releases give the code back in the reservation table first.
		Store:   fnstores.Reserved(cfg, db, fnstores.LifecycleLinks(cfg, db)),
		Grace:   cfg.TombstoneGrace,
		Now:     time.Now,
		Log:     c.Logger("reclaim"),
		Metrics: c.MetricsOf("reclaim"),
	}), nil
}
