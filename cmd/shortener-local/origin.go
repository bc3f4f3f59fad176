package main

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"

	"github.com/shortlink-dev/shortener/functions/originauth/originauthfn"
	"github.com/shortlink-dev/shortener/internal/localgw"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/fnclients"
)

// originLock is the redirect origin's lock-down as deployed: the edge adds
// a secret header to every redirect origin request (CloudFront origin
// custom headers) and the gateway's redirect route runs the real origin
// authorizer, so a request that goes around the edge to the gateway is
// refused with 401 or 403, as on AWS (docs/deploy.md, "Only CloudFront
// reaches the origins"). The secret is made when the run starts and is
// never printed or logged.
type originLock struct {
	secret     string
	authorizer *localgw.Authorizer
}

func newOriginLock(cfg config.Config, log *slog.Logger) (originLock, error) {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	secret := hex.EncodeToString(b[:])
	h, err := originauthfn.Build(cfg, fnclients.Clients{OriginSecrets: originauthfn.Static{secret}, Log: log})
	if err != nil {
		return originLock{}, err
	}
	return originLock{
		secret: secret,
		// The gateway caches its answers for the deployed authorizer's
		// result TTL (localgw.Configure takes it from edgespec).
		authorizer: &localgw.Authorizer{Header: originauthfn.HeaderName, Handler: h.Handle},
	}, nil
}

// edgeHeaders are the redirect origin's custom headers for the local edge.
func (l originLock) edgeHeaders() map[string]string {
	return map[string]string{originauthfn.HeaderName: l.secret}
}
