// Package lifecyclefns builds the links' lifecycle functions, ttlstream
// and reclaim: DynamoDB only. Apart from dbfns so that they do not link
// and initialise the redirect and stats paths' packages; see wirecore for
// why the constructors are grouped.
package lifecyclefns

import (
	"time"

	"github.com/shortlink-dev/shortener/functions/reclaim/reclaimfn"
	"github.com/shortlink-dev/shortener/functions/ttlstream/ttlstreamfn"
	"github.com/shortlink-dev/shortener/functions/wire/wirecore"
	"github.com/shortlink-dev/shortener/shared/config"
)

// NewTTLStream builds the consumer of the links table's stream: it turns
// TTL deletions into tombstones, written to the primary Region's replica.
func NewTTLStream(cfg config.Config, c wirecore.Clients) (*ttlstreamfn.Handler, error) {
	if err := wirecore.Require(cfg, "LINKS_TABLE"); err != nil {
		return nil, err
	}
	return ttlstreamfn.New(ttlstreamfn.Options{
		Store:   wirecore.LifecycleStore(cfg, c),
		Grace:   cfg.TombstoneGrace,
		Now:     time.Now,
		Log:     c.Logger("ttlstream"),
		Metrics: c.MetricsOf("ttlstream"),
	}), nil
}

// NewReclaim builds the reclaim state machine's task: expired links into
// tombstones, tombstones past their grace released, in the primary
// Region's replica.
func NewReclaim(cfg config.Config, c wirecore.Clients) (*reclaimfn.Handler, error) {
	if err := wirecore.Require(cfg, "LINKS_TABLE"); err != nil {
		return nil, err
	}
	return reclaimfn.New(reclaimfn.Options{
		// Releases give the code back in the reservation table first.
		Store:   wirecore.Reserved(cfg, c.PrimaryDynamoDB(cfg), wirecore.LifecycleStore(cfg, c)),
		Grace:   cfg.TombstoneGrace,
		Now:     time.Now,
		Log:     c.Logger("reclaim"),
		Metrics: c.MetricsOf("reclaim"),
	}), nil
}
