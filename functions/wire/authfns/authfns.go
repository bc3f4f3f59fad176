// Package authfns builds the redirect origin's authorizer, the one
// function that reads Secrets Manager. See wirecore for why the
// constructors are grouped.
package authfns

import (
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/shortlink-dev/shortener/functions/originauth/originauthfn"
	"github.com/shortlink-dev/shortener/functions/wire/wirecore"
	"github.com/shortlink-dev/shortener/shared/config"
)

// NewOriginAuth builds the redirect origin's authorizer: only requests
// carrying CloudFront's origin secret reach the redirect function. It reads
// the secret's replica in this Region (ORIGIN_SECRET_ID) unless
// Clients.OriginSecrets gives the values.
func NewOriginAuth(cfg config.Config, c wirecore.Clients) (*originauthfn.Handler, error) {
	log := c.Logger("originauth")
	var secrets originauthfn.Secrets = c.OriginSecrets
	if c.OriginSecrets == nil {
		if err := wirecore.Require(cfg, "ORIGIN_SECRET_ID"); err != nil {
			return nil, err
		}
		secrets = &originauthfn.SecretsManager{Client: secretsmanager.NewFromConfig(c.AWS), SecretID: cfg.OriginSecretID, Log: log}
	}
	return &originauthfn.Handler{Secrets: secrets, Log: log}, nil
}
