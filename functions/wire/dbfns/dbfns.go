// Package dbfns builds the redirect function, which calls DynamoDB and no
// other AWS service. The other functions on DynamoDB alone have their own
// packages (statsfns; lifecyclefns: ttlstream and reclaim), so that none
// links and initialises another's handler. See wirecore for why the
// constructors are grouped.
package dbfns

import (
	"github.com/shortlink-dev/shortener/functions/redirect/redirectfn"
	"github.com/shortlink-dev/shortener/functions/wire/wirecore"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/dynamo"
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
		Store: dynamo.NewLinkStore(db, dynamo.LinkConfig{
			LinksTable: cfg.LinksTable, Timeout: cfg.RedirectTimeout,
		}),
		Config:  cfg,
		Log:     c.Logger("redirect"),
		Metrics: c.MetricsOf("redirect"),
		Verify:  password.Verify,
	}
	if cfg.MissesTable != "" {
		o.Misses = dynamo.NewMissCounter(db, dynamo.Config{Table: cfg.MissesTable, Timeout: cfg.RedirectTimeout})
	}
	if cfg.EdgeMarksTable != "" {
		// The Region's edge marks, written before a long-lived answer
		// leaves, bounded like the lookup.
		o.Marks = dynamo.NewMarkStore(db, dynamo.Config{Table: cfg.EdgeMarksTable, Timeout: cfg.RedirectTimeout})
	}
	if cfg.CountersTable != "" {
		// Only the primary Region has the table: elsewhere (a failover)
		// links with a click limit or a password answer 503 rather than
		// count apart and overshoot.
		o.Counters = dynamo.NewCounter(db, cfg.CountersTable)
	}
	return redirectfn.New(o), nil
}
