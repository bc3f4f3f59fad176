// Package edgesite is what the functions that learn about the CloudFront
// distribution from the edge parameter share: where it is read from (the
// SSM parameter EDGE_PARAMETER names, through ssmparam rather than the
// SDK's SSM client, or a stand-in the local run gives) and the short
// links' base URL learnt from it. sitefns (create) and edgefns (manage)
// build on it; it links neither function's handler, so neither bootstrap
// links the other's (docs/benchmarks.md, "Cold start").
package edgesite

import (
	"context"

	"github.com/shortlink-dev/shortener/functions/wire/wirecore"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/edgeinfo"
	"github.com/shortlink-dev/shortener/shared/linkapi"
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

// EdgeHosts are the hosts the distribution answers on that configuration
// does not name, learnt from info: its own *.cloudfront.net name, which
// serves every short link beside a custom domain, so a long URL on it
// loops as one on the custom domain does. (The custom domain is the
// distribution's only alternate domain name, and SHORTENER_BASE_URL names
// it.)
func EdgeHosts(info edgeinfo.Source) linkapi.HostsFunc {
	return func(ctx context.Context) ([]string, error) {
		in, err := info.Info(ctx)
		if err != nil {
			return nil, err
		}
		return []string{in.DomainName}, nil
	}
}
