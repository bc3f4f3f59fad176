// Package sitefns builds the function that learns the short links' host
// from the edge parameter when no custom domain is configured, and
// invalidates nothing: create. It links no CloudFront client, and reads
// the parameter with ssmparam rather than the SDK's SSM client (edgesite),
// so create's bootstrap links DynamoDB's client alone (docs/benchmarks.md,
// "Cold start"). See wirecore for why the constructors are grouped.
package sitefns

import (
	"github.com/shortlink-dev/shortener/functions/create/createfn"
	"github.com/shortlink-dev/shortener/functions/wire/edgesite"
	"github.com/shortlink-dev/shortener/functions/wire/wirecore"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/linkapi"
)

// Clients are wirecore's and where the distribution is learnt (edgesite).
type Clients = edgesite.Clients

// Lambda is c as a Lambda entry point has it (edgesite.Lambda).
func Lambda(c wirecore.Clients) Clients { return edgesite.Lambda(c) }

// NewCreate builds the function behind POST /v1/links and
// POST /v1/links/batch. It sends no invalidation, not even for a new
// custom alias whose 404 the edge may hold: CloudFront keeps that 404 at
// most its error caching minimum TTL, so the alias shows within the
// promise without one (docs/lifecycle.md, "How fast a change shows").
// It needs the edge parameter to learn the distribution's own host: the
// short links' host when SHORTENER_BASE_URL is not set, and beside a
// custom domain a host whose links would loop all the same. Given an edge
// of its own (the local run's), the base URL is the only host.
func NewCreate(cfg config.Config, c Clients) (*createfn.Handler, error) {
	// With the reservation table, Idempotency-Key claims live there (a
	// retry in another Region meets them) and the idempotency table is
	// never used, so the stack gives neither its name nor a grant on it.
	names := []string{"LINKS_TABLE", "KEYS_TABLE"}
	if cfg.ReservationTable == "" {
		names = append(names, "IDEMPOTENCY_TABLE")
	}
	learn := c.Edge == nil || cfg.BaseURL == ""
	if learn && c.EdgeInfo == nil {
		names = append(names, "EDGE_PARAMETER")
	}
	if err := wirecore.Require(cfg, names...); err != nil {
		return nil, err
	}
	var baseURL linkapi.BaseURLFunc
	var edgeHosts linkapi.HostsFunc
	switch {
	case cfg.BaseURL == "":
		baseURL = edgesite.BaseURL(c.Source(cfg))
	case learn:
		edgeHosts = edgesite.EdgeHosts(c.Source(cfg))
	}
	db := c.DynamoDBClient()
	return createfn.New(createfn.Options{
		Owners: wirecore.Owners(cfg, db),
		Store: wirecore.Reserved(cfg, db, dynamo.NewLinkStore(db, dynamo.LinkConfig{
			LinksTable: cfg.LinksTable, IdempotencyTable: cfg.IdempotencyTable, Timeout: cfg.DBTimeout,
		})),
		Config:    cfg,
		BaseURL:   baseURL,
		EdgeHosts: edgeHosts,
		Log:       c.Logger("create"),
		Metrics:   c.MetricsOf("create"),
	})
}
