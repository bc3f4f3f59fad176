package main

import (
	"errors"

	"github.com/shortlink-dev/shortener/functions/apiauth/apiauthfn"
	"github.com/shortlink-dev/shortener/functions/create/createfn"
	"github.com/shortlink-dev/shortener/functions/manage/managefn"
	"github.com/shortlink-dev/shortener/functions/redirect/redirectfn"
	"github.com/shortlink-dev/shortener/functions/stats/statsfn"
	"github.com/shortlink-dev/shortener/internal/localgw"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/fnclients"
)

// newHandlers builds the API's functions with the builds their main.go
// files call (functions/<fn>/<fn>fn, Build), over the local run's
// clients, so the local run cannot drift from the Lambdas; the redirect
// and stats functions' DynamoDB through metered (costsPath). getenv is the
// functions' environment, which the authorizer's settings are read from.
func newHandlers(cfg config.Config, getenv func(string) string, c fnclients.Clients, metered func(fn string, c fnclients.Clients) fnclients.Clients) (localgw.Handlers, error) {
	create, cerr := createfn.Build(cfg, c)
	redirect, rerr := redirectfn.Build(cfg, metered("redirect", c))
	manage, merr := managefn.Build(cfg, c)
	stats, serr := statsfn.Build(cfg, metered("stats", c))
	// The /v1 authorizer with the local usage-plan key, checking tokens
	// of the local OpenID provider (AUTH_ISSUER) as deployed.
	auth, aerr := apiauthfn.Build(cfg, c, apiauthfn.SettingsFrom(func(k string) string {
		if k == "USAGE_PLAN_KEY" {
			return LocalUsageKey
		}
		return getenv(k)
	}), apiauthfn.Tokens)
	if err := errors.Join(cerr, rerr, merr, serr, aerr); err != nil {
		return localgw.Handlers{}, err
	}
	// Batch and QR are served by the create and manage Lambdas, as in AWS.
	return localgw.Handlers{Create: create.Handle, Redirect: redirect.Handle, Manage: manage.Handle,
		Batch: create.Handle, QR: manage.Handle, Stats: stats.Handle,
		APIAuthorizer: &localgw.RESTAuthorizer{Handler: auth.Handle}}, nil
}
