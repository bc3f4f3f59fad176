// Package sitefns builds the function that learns the short links' host
// from the edge parameter when no custom domain is configured, and
// invalidates nothing: create. It links no CloudFront client, and reads
// the parameter with ssmparam rather than the SDK's SSM client, so
// create's bootstrap links DynamoDB's client alone (docs/benchmarks.md,
// "Cold start"). The parameter's wiring lives here too, for edgefns
// (manage), which also learns the distribution it invalidates from it.
// See wirecore for why the constructors are grouped.
package sitefns

import (
	"context"

	"github.com/shortlink-dev/shortener/functions/create/createfn"
	"github.com/shortlink-dev/shortener/functions/wire/wirecore"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/edgeinfo"
	"github.com/shortlink-dev/shortener/shared/linkapi"
	"github.com/shortlink-dev/shortener/shared/linkstore/dynamostore"
	"github.com/shortlink-dev/shortener/shared/ssmparam"
)

// Clients are wirecore's and where the distribution is learnt: EdgeInfo,
// when set, tells it instead of the SSM parameter EDGE_PARAMETER names.
type Clients struct {
	wirecore.Clients
	EdgeInfo edgeinfo.Source
}

// Lambda is c as a Lambda entry point has it: the edge parameter read
// from SSM (ssmparam) with the SDK configuration.
func Lambda(c wirecore.Clients) Clients { return Clients{Clients: c} }

// NewCreate builds the function behind POST /v1/links and
// POST /v1/links/batch. It sends no invalidation, not even for a new
// custom alias whose 404 the edge may hold: CloudFront keeps that 404 at
// most its error caching minimum TTL, so the alias shows within the
// promise without one (docs/lifecycle.md, "How fast a change shows").
// It needs the edge parameter only to learn the short links' host, when
// SHORTENER_BASE_URL is not set.
func NewCreate(cfg config.Config, c Clients) (*createfn.Handler, error) {
	// With the reservation table, Idempotency-Key claims live there (a
	// retry in another Region meets them) and the idempotency table is
	// never used, so the stack gives neither its name nor a grant on it.
	names := []string{"LINKS_TABLE", "KEYS_TABLE"}
	if cfg.ReservationTable == "" {
		names = append(names, "IDEMPOTENCY_TABLE")
	}
	if cfg.BaseURL == "" && c.EdgeInfo == nil {
		names = append(names, "EDGE_PARAMETER")
	}
	if err := wirecore.Require(cfg, names...); err != nil {
		return nil, err
	}
	var baseURL linkapi.BaseURLFunc
	if cfg.BaseURL == "" {
		baseURL = BaseURL(c.Source(cfg))
	}
	db := c.DynamoDBClient()
	return createfn.New(createfn.Options{
		Owners: wirecore.Owners(cfg, db),
		Store: wirecore.Reserved(cfg, db, dynamostore.New(db, dynamostore.Config{
			LinksTable: cfg.LinksTable, IdempotencyTable: cfg.IdempotencyTable, Timeout: cfg.DBTimeout,
		})),
		Config:  cfg,
		BaseURL: baseURL,
		Log:     c.Logger("create"),
		Metrics: c.MetricsOf("create"),
	})
}

// Source is where the distribution is learnt: EdgeInfo, or the SSM
// parameter EDGE_PARAMETER names, in this Region (the edge stack writes it
// in every Region). It is read when first needed, never at start-up
// (docs/deploy.md, "How the functions learn about the distribution").
func (c Clients) Source(cfg config.Config) edgeinfo.Source {
	if c.EdgeInfo != nil {
		return c.EdgeInfo
	}
	return &edgeinfo.Parameter{API: ssmparam.New(c.AWS), Name: cfg.EdgeParameter}
}

// BaseURL is the short links' base URL learnt from info: the
// distribution's own host, for a deployment without a custom domain.
func BaseURL(info edgeinfo.Source) linkapi.BaseURLFunc {
	return func(ctx context.Context) (string, error) {
		in, err := info.Info(ctx)
		return in.BaseURL(), err
	}
}
