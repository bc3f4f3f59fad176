// Package dbfns builds the functions that call DynamoDB and no other AWS
// service: redirect, stats, ttlstream and reclaim. See wirecore for why
// the constructors are grouped.
package dbfns

import (
	"time"

	"github.com/shortlink-dev/shortener/functions/reclaim/reclaimfn"
	"github.com/shortlink-dev/shortener/functions/redirect/redirectfn"
	"github.com/shortlink-dev/shortener/functions/stats/statsfn"
	"github.com/shortlink-dev/shortener/functions/ttlstream/ttlstreamfn"
	"github.com/shortlink-dev/shortener/functions/wire/clicklayout"
	"github.com/shortlink-dev/shortener/functions/wire/wirecore"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/edgemarks/dynamomarks"
	"github.com/shortlink-dev/shortener/shared/linkcounter/dynamocounter"
	"github.com/shortlink-dev/shortener/shared/linkstore/dynamostore"
	"github.com/shortlink-dev/shortener/shared/missbudget/dynamomisses"
	"github.com/shortlink-dev/shortener/shared/password"
)

// NewRedirect builds the function behind GET and HEAD /{code}: it reads
// this Region's replica, with the redirect path's own timeout, and counts
// unknown codes per client in the Region's misses table (MISSES_TABLE),
// and marks the links the edge may hold in its marks table
// (EDGE_MARKS_TABLE).
func NewRedirect(cfg config.Config, c wirecore.Clients) (*redirectfn.Handler, error) {
	if err := wirecore.Require(cfg, "LINKS_TABLE"); err != nil {
		return nil, err
	}
	db := c.DynamoDBClient()
	o := redirectfn.Options{
		Store: dynamostore.New(db, dynamostore.Config{
			LinksTable: cfg.LinksTable, Timeout: cfg.RedirectTimeout,
		}),
		Config:  cfg,
		Log:     c.Logger("redirect"),
		Metrics: c.MetricsOf("redirect"),
		Verify:  password.Verify,
	}
	if cfg.MissesTable != "" {
		o.Misses = dynamomisses.New(db, dynamomisses.Config{Table: cfg.MissesTable, Timeout: cfg.RedirectTimeout})
	}
	if cfg.EdgeMarksTable != "" {
		// The Region's edge marks, written before a long-lived answer
		// leaves, bounded like the lookup.
		o.Marks = dynamomarks.New(db, dynamomarks.Config{Table: cfg.EdgeMarksTable, Timeout: cfg.RedirectTimeout})
	}
	if cfg.CountersTable != "" {
		// Only the primary Region has the table: elsewhere (a failover)
		// links with a click limit or a password answer 503 rather than
		// count apart and overshoot.
		o.Counters = dynamocounter.New(db, cfg.CountersTable)
	}
	return redirectfn.New(o), nil
}

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
	return &statsfn.Handler{
		Links:   dynamostore.New(db, dynamostore.Config{LinksTable: cfg.LinksTable, Timeout: cfg.DBTimeout}),
		Clicks:  clicks,
		Now:     time.Now,
		Log:     c.Logger("stats"),
		Metrics: c.MetricsOf("stats"),
		Owners:  wirecore.Owners(cfg, db),
	}, nil
}

// NewTTLStream builds the consumer of the links table's stream: it turns
// TTL deletions into tombstones, written to the primary Region's replica.
func NewTTLStream(cfg config.Config, c wirecore.Clients) (*ttlstreamfn.Handler, error) {
	if err := wirecore.Require(cfg, "LINKS_TABLE"); err != nil {
		return nil, err
	}
	return &ttlstreamfn.Handler{
		Store:   wirecore.LifecycleStore(cfg, c),
		Grace:   cfg.TombstoneGrace,
		Now:     time.Now,
		Log:     c.Logger("ttlstream"),
		Metrics: c.MetricsOf("ttlstream"),
	}, nil
}

// NewReclaim builds the reclaim state machine's task: expired links into
// tombstones, tombstones past their grace released, in the primary
// Region's replica.
func NewReclaim(cfg config.Config, c wirecore.Clients) (*reclaimfn.Handler, error) {
	if err := wirecore.Require(cfg, "LINKS_TABLE"); err != nil {
		return nil, err
	}
	return &reclaimfn.Handler{
		// Releases give the code back in the reservation table first.
		Store:   wirecore.Reserved(cfg, c.PrimaryDynamoDB(cfg), wirecore.LifecycleStore(cfg, c)),
		Grace:   cfg.TombstoneGrace,
		Now:     time.Now,
		Log:     c.Logger("reclaim"),
		Metrics: c.MetricsOf("reclaim"),
	}, nil
}
