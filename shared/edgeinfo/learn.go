package edgeinfo

import "context"

// BaseURLOf is the short links' base URL learnt from src: the
// distribution's own host, for a deployment without a custom domain.
func BaseURLOf(src Source) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		in, err := src.Info(ctx)
		return in.BaseURL(), err
	}
}

// HostsOf are the hosts the distribution answers on that configuration
// does not name, learnt from src: its own *.cloudfront.net name, which
// serves every short link beside a custom domain, so a long URL on it
// loops as one on the custom domain does. (The custom domain is the
// distribution's only alternate domain name, and SHORTENER_BASE_URL names
// it.)
func HostsOf(src Source) func(context.Context) ([]string, error) {
	return func(ctx context.Context) ([]string, error) {
		in, err := src.Info(ctx)
		if err != nil {
			return nil, err
		}
		return []string{in.DomainName}, nil
	}
}
