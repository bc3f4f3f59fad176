package main

import (
	"errors"

	"github.com/shortlink-dev/shortener/functions/wire"
	"github.com/shortlink-dev/shortener/internal/localgw"
	"github.com/shortlink-dev/shortener/shared/config"
)

// newHandlers builds the API's functions with the constructors their
// main.go files call (functions/wire), over the local run's clients, so the
// local run cannot drift from the Lambdas.
func newHandlers(cfg config.Config, c wire.Clients) (localgw.Handlers, error) {
	create, cerr := wire.NewCreate(cfg, c)
	redirect, rerr := wire.NewRedirect(cfg, c)
	manage, merr := wire.NewManage(cfg, c)
	stats, serr := wire.NewStats(cfg, c)
	if err := errors.Join(cerr, rerr, merr, serr); err != nil {
		return localgw.Handlers{}, err
	}
	// Batch and QR are served by the create and manage Lambdas, as in AWS.
	return localgw.Handlers{Create: create.Handle, Redirect: redirect.Handle, Manage: manage.Handle,
		Batch: create.Handle, QR: manage.Handle, Stats: stats.Handle}, nil
}
