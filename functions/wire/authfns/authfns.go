// Package authfns builds the redirect origin's authorizer, the one
// function that reads Secrets Manager and no DynamoDB table: it builds on
// lambdaenv, not wirecore. See wirecore for why the constructors are
// grouped.
package authfns

import (
	"fmt"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/shortlink-dev/shortener/functions/originauth/originauthfn"
	"github.com/shortlink-dev/shortener/functions/wire/lambdaenv"
	"github.com/shortlink-dev/shortener/shared/config"
)

// Clients are what the authorizer talks to: Secrets Manager (from AWS)
// unless OriginSecrets gives the values (the local run), and its log.
type Clients struct {
	AWS           aws.Config
	OriginSecrets originauthfn.Secrets
	Log           *slog.Logger
}

// Lambda is the authorizer's Clients in Lambda.
func Lambda(cfg config.Config, b lambdaenv.Base) (*originauthfn.Handler, error) {
	return NewOriginAuth(cfg, Clients{AWS: b.AWS, Log: b.Log})
}

// NewOriginAuth builds the redirect origin's authorizer: only requests
// carrying CloudFront's origin secret reach the redirect function. It reads
// the secret's replica in this Region (ORIGIN_SECRET_ID) unless
// Clients.OriginSecrets gives the values.
func NewOriginAuth(cfg config.Config, c Clients) (*originauthfn.Handler, error) {
	log := c.Log.With("function", "originauth")
	secrets := c.OriginSecrets
	if secrets == nil {
		if err := cfg.Require("ORIGIN_SECRET_ID"); err != nil {
			return nil, fmt.Errorf("configuration: %w", err)
		}
		secrets = &originauthfn.SecretsManager{Client: secretsmanager.NewFromConfig(c.AWS), SecretID: cfg.OriginSecretID, Log: log}
	}
	return originauthfn.New(originauthfn.Options{Secrets: secrets, Log: log}), nil
}
