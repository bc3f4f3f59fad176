package managefn

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/shortlink-dev/shortener/shared/cfinvalidate"
	"github.com/shortlink-dev/shortener/shared/cfkvs"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/edgecache"
	"github.com/shortlink-dev/shortener/shared/edgeinfo"
	"github.com/shortlink-dev/shortener/shared/edgemarks"
	"github.com/shortlink-dev/shortener/shared/edgeversion"
	"github.com/shortlink-dev/shortener/shared/fnclients"
	"github.com/shortlink-dev/shortener/shared/fnstores"
	"github.com/shortlink-dev/shortener/shared/linkapi"
	"github.com/shortlink-dev/shortener/shared/workspace"
)

// Build builds the function behind the management API, as its Lambda
// (functions/manage) and the local run do: GET /v1/links, GET, PATCH and
// DELETE /v1/links/{code}, its QR code, and GET /v1/audit. It reads strongly consistently
// before its conditional writes, and invalidates the CloudFront
// distribution learnt from the edge parameter (with cfinvalidate, not the
// SDK's CloudFront client), or, with EDGE_VERSION_KEYS, puts new link
// versions into the key value store the edge parameter names instead
// (cfkvs).
func Build(cfg config.Config, c fnclients.Clients) (*Handler, error) {
	// Without a distribution to invalidate, a change would keep being
	// served from the edge for up to a day: it refuses to start instead.
	edge, baseURL, edgeHosts, err := edgeSite(cfg, c, "LINKS_TABLE", "KEYS_TABLE", "AUDIT_TABLE")
	if err != nil {
		return nil, err
	}
	db := fnstores.DynamoDB(c)
	var members workspace.Store
	if cfg.MembersTable != "" {
		// Strongly consistent: an admin reads the members before changing
		// them. In the primary Region's replica (PRIMARY_REGION), where
		// every change is written, so the last-admin count's conditions
		// are checked against one replica.
		members = fnstores.Members(cfg, dynamodb.NewFromConfig(c.In(cfg.PrimaryRegion)), true)
	}
	// The keys API writes the primary Region's replica, as the members
	// API does: a global table's conditions (a new hash not yet taken, a
	// revoked key's first time kept) hold only against the replica they
	// are checked in, and concurrent writes in two Regions would be
	// settled by last writer wins. Strongly consistent reads of it see
	// every change made there; the authorizers everywhere read their own
	// replica, which has a new key within the replication lag.
	keys := dynamo.NewKeyStore(dynamodb.NewFromConfig(c.In(cfg.PrimaryRegion)), dynamo.KeyConfig{
		Table: cfg.KeysTable, Timeout: cfg.DBTimeout, ConsistentReads: true,
	})
	auditLog := fnstores.Audit(cfg, db)
	return New(Options{
		Audit:    auditLog,
		AuditLog: auditLog,
		Owners:   fnstores.Owners(cfg, db),
		Members:  members,
		Keys:     keys,
		Store: fnstores.Reserved(cfg, db, dynamo.NewLinkStore(db, dynamo.LinkConfig{
			LinksTable: cfg.LinksTable, Timeout: cfg.DBTimeout, ConsistentReads: true, TagsTable: cfg.LinkTagsTable,
		})),
		Edge:      edge,
		BaseURL:   baseURL,
		EdgeHosts: edgeHosts,
		Config:    cfg,
		Grace:     cfg.TombstoneGrace,
		Log:       c.Logger("manage"),
		Metrics:   c.MetricsOf("manage"),
		Marks:     edgeMarks(cfg, c),
	}), nil
}

// edgeMarks reads the edge marks of every Region whose redirect serves
// the edge (EDGE_MARKS_TABLES), each with a client of its Region; nil
// without them, and every change is invalidated.
func edgeMarks(cfg config.Config, c fnclients.Clients) *edgemarks.Check {
	if len(cfg.EdgeMarksTables) == 0 {
		return nil
	}
	check := &edgemarks.Check{}
	for _, t := range cfg.EdgeMarksTables {
		db := dynamodb.NewFromConfig(c.In(t.Region))
		check.Regions = append(check.Regions, dynamo.NewMarkStore(db, dynamo.Config{Table: t.Name, Timeout: cfg.DBTimeout}))
	}
	return check
}

// edgeSite checks the settings of a function that invalidates the edge
// and shows short URLs, and returns the edge and, when the short links'
// host is learnt at run time, where to learn it, and otherwise where to
// learn the distribution's own host beside the custom domain, whose links
// would loop too. Given an edge of its own (the local run's), the caller
// gives SHORTENER_BASE_URL too. Otherwise EDGE_PARAMETER names the SSM
// parameter the edge stack publishes the distribution in; it is read when
// first needed, never at start-up (docs/deploy.md, "How the functions
// learn about the distribution").
func edgeSite(cfg config.Config, c fnclients.Clients, names ...string) (edgecache.Invalidator, linkapi.BaseURLFunc, linkapi.HostsFunc, error) {
	if c.Edge != nil {
		names = append(names, "SHORTENER_BASE_URL")
	} else if c.EdgeInfo == nil {
		names = append(names, "EDGE_PARAMETER")
	}
	if err := fnclients.Require(cfg, names...); err != nil {
		return nil, nil, nil, err
	}
	if c.Edge != nil {
		return c.Edge, nil, nil, nil
	}
	info := c.EdgeSource(cfg)
	var edge edgecache.Invalidator = &edgecache.Deferred{API: cfinvalidate.New(c.AWS), ID: func(ctx context.Context) (string, error) {
		in, err := info.Info(ctx)
		return in.DistributionID, err
	}}
	if cfg.EdgeVersionKeys {
		// The redirect cache is keyed on link versions: a change puts new
		// ones instead of invalidating (docs/cost-model.md, "Versioned
		// cache keys"), into the store the edge stack publishes. A put
		// that fails (the store full or unreachable) invalidates as
		// before, so the change still leaves the edge.
		log := c.Logger("manage")
		edge = &edgeversion.Writer{API: cfkvs.New(c.AWS), StoreARN: func(ctx context.Context) (string, error) {
			in, err := info.Info(ctx)
			if err == nil && in.VersionStoreARN == "" {
				err = errors.New("the edge parameter names no version store (" + edgeinfo.KeyVersionStore + "): is the edge stack deployed with edgeVersionKeys?")
			}
			return in.VersionStoreARN, err
		}, Fallback: edge, OnFallback: func(paths []string, err error) {
			log.Warn("link versions not put; invalidating instead", "paths", paths, "error", err.Error())
		}}
	}
	if cfg.BaseURL != "" {
		return edge, nil, edgeinfo.HostsOf(info), nil
	}
	return edge, edgeinfo.BaseURLOf(info), nil, nil
}
