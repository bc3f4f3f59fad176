// Package edgefns builds the functions that invalidate the CloudFront
// distribution: create and manage. See wirecore for why the constructors
// are grouped.
package edgefns

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/cloudfront"

	"github.com/shortlink-dev/shortener/functions/create/createfn"
	"github.com/shortlink-dev/shortener/functions/manage/managefn"
	"github.com/shortlink-dev/shortener/functions/wire/wirecore"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/edgecache"
	"github.com/shortlink-dev/shortener/shared/linkstore/dynamostore"
)

// NewCreate builds the function behind POST /v1/links and
// POST /v1/links/batch. It invalidates the edge for each new custom alias
// when there is an edge (Clients.Edge or DISTRIBUTION_ID).
func NewCreate(cfg config.Config, c wirecore.Clients) (*createfn.Handler, error) {
	// Without a distribution to invalidate, a new alias's cached 404
	// would outlive the negative-cache TTL: it refuses to start instead.
	edge, err := invalidatingEdge(cfg, c, "LINKS_TABLE", "IDEMPOTENCY_TABLE", "KEYS_TABLE", "SHORTENER_BASE_URL")
	if err != nil {
		return nil, err
	}
	db := c.DynamoDBClient()
	return createfn.New(createfn.Options{
		Edge:   edge,
		Owners: wirecore.Owners(cfg, db),
		Store: dynamostore.New(db, dynamostore.Config{
			LinksTable: cfg.LinksTable, IdempotencyTable: cfg.IdempotencyTable, Timeout: cfg.DBTimeout,
		}),
		Config:  cfg,
		Log:     c.Logger("create"),
		Metrics: c.MetricsOf("create"),
	})
}

// NewManage builds the function behind the management API: GET /v1/links,
// GET, PATCH and DELETE /v1/links/{code} and its QR code. It reads
// strongly consistently before its conditional writes.
func NewManage(cfg config.Config, c wirecore.Clients) (*managefn.Handler, error) {
	// Without a distribution to invalidate, a change would keep being
	// served from the edge for up to a day: it refuses to start instead.
	edge, err := invalidatingEdge(cfg, c, "LINKS_TABLE", "KEYS_TABLE", "SHORTENER_BASE_URL")
	if err != nil {
		return nil, err
	}
	db := c.DynamoDBClient()
	return managefn.New(managefn.Options{
		Owners: wirecore.Owners(cfg, db),
		Store: dynamostore.New(db, dynamostore.Config{
			LinksTable: cfg.LinksTable, Timeout: cfg.DBTimeout, ConsistentReads: true,
		}),
		Edge:    edge,
		Config:  cfg,
		Grace:   cfg.TombstoneGrace,
		Log:     c.Logger("manage"),
		Metrics: c.MetricsOf("manage"),
	}), nil
}

// invalidatingEdge checks the settings of a function that invalidates the
// edge, DISTRIBUTION_ID among them unless the caller gives an edge of its
// own (the local run's), and returns that edge.
func invalidatingEdge(cfg config.Config, c wirecore.Clients, names ...string) (edgecache.Invalidator, error) {
	if c.Edge == nil {
		names = append(names, "DISTRIBUTION_ID")
	}
	if err := wirecore.Require(cfg, names...); err != nil {
		return nil, err
	}
	return edge(cfg, c)
}

// edge is the edge cache to invalidate: Clients.Edge, or the CloudFront
// distribution DISTRIBUTION_ID names; nil when there is neither.
func edge(cfg config.Config, c wirecore.Clients) (edgecache.Invalidator, error) {
	if c.Edge != nil {
		return c.Edge, nil
	}
	if cfg.DistributionID == "" {
		return nil, nil
	}
	cf, err := edgecache.NewCloudFront(cloudfront.NewFromConfig(c.AWS), edgecache.CloudFrontConfig{DistributionID: cfg.DistributionID})
	if err != nil {
		return nil, fmt.Errorf("edge cache: %w", err)
	}
	return cf, nil
}
