package reclaimfn

import (
	"context"
	"errors"
	"time"

	"github.com/shortlink-dev/shortener/shared/cfkvs"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/edgeinfo"
	"github.com/shortlink-dev/shortener/shared/edgeversion"
	"github.com/shortlink-dev/shortener/shared/fnclients"
	"github.com/shortlink-dev/shortener/shared/fnstores"
)

// Build builds the reclaim state machine's task, as its Lambda
// (functions/reclaim) and the local run do: expired links into
// tombstones, tombstones past their grace released, in the primary
// Region's replica; with EDGE_VERSION_KEYS, old link versions swept from
// the key value store the edge parameter names (cfkvs), or from the one
// Clients.VersionStore gives.
func Build(cfg config.Config, c fnclients.Clients) (*Handler, error) {
	names := []string{"LINKS_TABLE"}
	if cfg.EdgeVersionKeys && c.VersionStore == nil && c.EdgeInfo == nil {
		names = append(names, "EDGE_PARAMETER")
	}
	if err := fnclients.Require(cfg, names...); err != nil {
		return nil, err
	}
	db := fnstores.PrimaryDynamoDB(cfg, c)
	return New(Options{
		// Releases give the code back in the reservation table first.
		Store:    fnstores.Reserved(cfg, db, fnstores.LifecycleLinks(cfg, db)),
		Grace:    cfg.TombstoneGrace,
		Now:      time.Now,
		Versions: versionSweeper(cfg, c),
		Log:      c.Logger("reclaim"),
		Metrics:  c.MetricsOf("reclaim"),
	}), nil
}

// versionSweeper is the sweep of old link versions, nil without versioned
// cache keys. The edge life is the redirect's longest s-maxage, the
// setting the redirect function sends it from.
func versionSweeper(cfg config.Config, c fnclients.Clients) *edgeversion.Sweeper {
	sw := &edgeversion.Sweeper{EdgeLife: time.Duration(cfg.EdgeTTL) * time.Second, Margin: cfg.EdgeVersionSweepMargin}
	switch {
	case c.VersionStore != nil:
		sw.API, sw.ARN = c.VersionStore, c.VersionStoreARN
	case cfg.EdgeVersionKeys:
		// The store is made with the distribution, after this function:
		// the edge parameter names it, read when first needed.
		info := c.EdgeSource(cfg)
		sw.API = cfkvs.New(c.AWS)
		sw.StoreARN = func(ctx context.Context) (string, error) {
			in, err := info.Info(ctx)
			if err == nil && in.VersionStoreARN == "" {
				err = errors.New("the edge parameter names no version store (" + edgeinfo.KeyVersionStore + "): is the edge stack deployed with edgeVersionKeys?")
			}
			return in.VersionStoreARN, err
		}
	default:
		return nil
	}
	return sw
}
