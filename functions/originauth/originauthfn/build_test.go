package originauthfn_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/originauth/originauthfn"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/fnclients"
	"github.com/shortlink-dev/shortener/shared/fnclients/fntest"
)

func TestBuildNamesEachMissingSetting(t *testing.T) {
	fntest.Requires(t, originauthfn.Build, "ORIGIN_SECRET_ID")
}

// TestTheLocalSecretStandsInForSecretsManager: the local run has no
// Secrets Manager; its own secret takes the place.
func TestTheLocalSecretStandsInForSecretsManager(t *testing.T) {
	c := fntest.Lambda()
	c.OriginSecrets = originauthfn.Static{"s3cr3t"}
	h, err := originauthfn.Build(fntest.Load(t, "ORIGIN_SECRET_ID"), c)
	require.NoError(t, err)
	assert.Equal(t, originauthfn.Static{"s3cr3t"}, h.Secrets)
}

func TestBuildLogsUnderTheFunctionsName(t *testing.T) {
	var logs bytes.Buffer
	c := fnclients.Clients{Log: slog.New(slog.NewJSONHandler(&logs, nil)), OriginSecrets: originauthfn.Static{"s3cr3t"}}
	h, err := originauthfn.Build(config.Config{}, c)
	require.NoError(t, err)

	res, err := h.Handle(context.Background(), events.APIGatewayV2CustomAuthorizerV2Request{
		Headers: map[string]string{strings.ToLower(originauthfn.HeaderName): "guess"},
	})
	require.NoError(t, err)
	require.False(t, res.IsAuthorized)

	var line map[string]any
	require.NoError(t, json.Unmarshal(logs.Bytes(), &line), "%s", logs.String())
	assert.Equal(t, "originauth", line["function"])
}
