package redirectfn

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/fnclients"
	"github.com/shortlink-dev/shortener/shared/password"
)

// Build builds the function behind GET and HEAD /{code}, as its Lambda
// (functions/redirect) and the local run do: it reads this Region's
// replica, with the redirect path's own timeout, and counts unknown codes
// per client in the Region's misses table (MISSES_TABLE), and marks the
// links the edge may hold in its marks table (EDGE_MARKS_TABLE). It calls
// DynamoDB and no other AWS service.
func Build(cfg config.Config, c fnclients.Clients) (*Handler, error) {
	if err := fnclients.Require(cfg, "LINKS_TABLE"); err != nil {
		return nil, err
	}
	db := dynamodb.NewFromConfig(c.AWS)
	o := Options{
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
	return New(o), nil
}
