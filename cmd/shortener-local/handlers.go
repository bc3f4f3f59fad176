package main

import (
	"io"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	create "github.com/shortlink-dev/shortener/functions/create/handler"
	manage "github.com/shortlink-dev/shortener/functions/manage/handler"
	redirect "github.com/shortlink-dev/shortener/functions/redirect/handler"
	"github.com/shortlink-dev/shortener/internal/localgw"
	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/edgecache"
	"github.com/shortlink-dev/shortener/shared/linkstore/dynamostore"
	"github.com/shortlink-dev/shortener/shared/metrics"
)

// newHandlers builds each function's handler the way its main.go does, from
// the same configuration, over db. Each function logs as its Lambda does,
// tagged with its name since here they share one stream, and writes its
// EMF metrics to metricsOut (stdout in Lambda).
//
// Both go through the handler packages' constructors, as their main.go
// files do, so the local run cannot drift from the Lambdas.
func newHandlers(cfg config.Config, db *dynamodb.Client, edge edgecache.Invalidator, owners apigw.Owners, log *slog.Logger, metricsOut io.Writer) (localgw.Handlers, error) {
	c, err := create.New(create.Options{
		Edge:   edge,
		Owners: owners,
		Store: dynamostore.New(db, dynamostore.Config{
			LinksTable: cfg.LinksTable, IdempotencyTable: cfg.IdempotencyTable, Timeout: cfg.DBTimeout,
		}),
		Config:  cfg,
		Log:     log.With("function", "create"),
		Metrics: metrics.New(metricsOut, "Shortener", "create"),
	})
	if err != nil {
		return localgw.Handlers{}, err
	}
	r := redirect.New(redirect.Options{
		Store: dynamostore.New(db, dynamostore.Config{
			LinksTable: cfg.LinksTable, Timeout: cfg.RedirectTimeout,
		}),
		Config:  cfg,
		Log:     log.With("function", "redirect"),
		Metrics: metrics.New(metricsOut, "Shortener", "redirect"),
	})
	m := manage.New(manage.Options{
		Owners: owners,
		Store: dynamostore.New(db, dynamostore.Config{
			LinksTable: cfg.LinksTable, Timeout: cfg.DBTimeout, ConsistentReads: true,
		}),
		Edge:    edge,
		Config:  cfg,
		Grace:   cfg.TombstoneGrace,
		Log:     log.With("function", "manage"),
		Metrics: metrics.New(metricsOut, "Shortener", "manage"),
	})
	// Batch and QR are served by the create and manage Lambdas, as in AWS.
	return localgw.Handlers{Create: c.Handle, Redirect: r.Handle, Manage: m.Handle, Batch: c.Handle, QR: m.Handle}, nil
}
