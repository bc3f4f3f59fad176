package originauthfn

import (
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/fnclients"
)

// Build builds the redirect origin's authorizer, as its Lambda
// (functions/originauth) and the local run do: only requests carrying
// CloudFront's origin secret reach the redirect function. It reads the
// secret's replica in this Region (ORIGIN_SECRET_ID) unless
// Clients.OriginSecrets gives the values: the one function that reads
// Secrets Manager, and no DynamoDB table.
func Build(cfg config.Config, c fnclients.Clients) (*Handler, error) {
	log := c.Logger("originauth")
	var secrets Secrets = c.OriginSecrets
	if c.OriginSecrets == nil {
		if err := fnclients.Require(cfg, "ORIGIN_SECRET_ID"); err != nil {
			return nil, err
		}
		secrets = &SecretsManager{Client: secretsmanager.NewFromConfig(c.AWS), SecretID: cfg.OriginSecretID, Log: log}
	}
	return New(Options{Secrets: secrets, Log: log}), nil
}
