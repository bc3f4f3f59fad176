package createfn

import (
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/edgeinfo"
	"github.com/shortlink-dev/shortener/shared/fnclients"
	"github.com/shortlink-dev/shortener/shared/fnstores"
	"github.com/shortlink-dev/shortener/shared/linkapi"
)

// Build builds the function behind POST /v1/links and POST
// /v1/links/batch, as its Lambda (functions/create) and the local run do.
// It sends no invalidation, not even for a new custom alias whose 404 the
// edge may hold: CloudFront keeps that 404 at most its error caching
// minimum TTL, so the alias shows within the promise without one
// (docs/lifecycle.md, "How fast a change shows"). It needs the edge
// parameter to learn the distribution's own host: the short links' host
// when SHORTENER_BASE_URL is not set, and beside a custom domain a host
// whose links would loop all the same. Given an edge of its own (the
// local run's), the base URL is the only host. It links no CloudFront
// client, and reads the parameter with ssmparam rather than the SDK's SSM
// client, so its bootstrap links DynamoDB's client alone
// (docs/benchmarks.md, "Cold start").
func Build(cfg config.Config, c fnclients.Clients) (*Handler, error) {
	// With the reservation table, Idempotency-Key claims live there (a
	// retry in another Region meets them) and the idempotency table is
	// never used, so the stack gives neither its name nor a grant on it.
	names := []string{"LINKS_TABLE", "KEYS_TABLE", "AUDIT_TABLE"}
	if cfg.ReservationTable == "" {
		names = append(names, "IDEMPOTENCY_TABLE")
	}
	learn := c.Edge == nil || cfg.BaseURL == ""
	if learn && c.EdgeInfo == nil {
		names = append(names, "EDGE_PARAMETER")
	}
	if err := fnclients.Require(cfg, names...); err != nil {
		return nil, err
	}
	var baseURL linkapi.BaseURLFunc
	var edgeHosts linkapi.HostsFunc
	switch {
	case cfg.BaseURL == "":
		baseURL = edgeinfo.BaseURLOf(c.EdgeSource(cfg))
	case learn:
		edgeHosts = edgeinfo.HostsOf(c.EdgeSource(cfg))
	}
	db := fnstores.DynamoDB(c)
	auditLog := fnstores.Audit(cfg, db)
	return New(Options{
		Owners: fnstores.Owners(cfg, db),
		Store: fnstores.Reserved(cfg, db, dynamo.NewLinkStore(db, dynamo.LinkConfig{
			LinksTable: cfg.LinksTable, IdempotencyTable: cfg.IdempotencyTable, Timeout: cfg.DBTimeout, TagsTable: cfg.LinkTagsTable, Audit: auditLog,
		})),
		Audit:     auditLog,
		Config:    cfg,
		BaseURL:   baseURL,
		EdgeHosts: edgeHosts,
		Log:       c.Logger("create"),
		Metrics:   c.MetricsOf("create"),
	})
}
