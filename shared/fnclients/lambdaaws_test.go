package fnclients

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/cfinvalidate"
	"github.com/shortlink-dev/shortener/shared/sqssend"
	"github.com/shortlink-dev/shortener/shared/ssmparam"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

var lambdaVars = map[string]string{
	"AWS_REGION": "eu-west-1", "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_SESSION_TOKEN": "token",
}

func with(extra map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range lambdaVars {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// TestLambdaAWSReadsTheRoleFromTheEnvironment: the Region and the
// execution role's credentials, as Lambda sets them.
func TestLambdaAWSReadsTheRoleFromTheEnvironment(t *testing.T) {
	cfg, err := lambdaAWS(envOf(lambdaVars))
	require.NoError(t, err)
	assert.Equal(t, "eu-west-1", cfg.Region)
	creds, err := cfg.Credentials.Retrieve(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "AKIDEXAMPLE", creds.AccessKeyID)
	assert.Equal(t, "secret", creds.SecretAccessKey)
	assert.Equal(t, "token", creds.SessionToken)
	assert.Nil(t, cfg.BaseEndpoint)
	assert.Equal(t, "eu-west-1", dynamodb.NewFromConfig(cfg).Options().Region)
}

// TestLambdaAWSRefusesToStartWithoutARoleOrRegion: a function that could
// not sign its calls fails its init, naming what is missing.
func TestLambdaAWSRefusesToStartWithoutARoleOrRegion(t *testing.T) {
	_, err := lambdaAWS(envOf(with(map[string]string{"AWS_REGION": "", "AWS_SECRET_ACCESS_KEY": ""})))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "AWS_REGION is not set")
	assert.Contains(t, err.Error(), "AWS_SECRET_ACCESS_KEY")
	cfg, err := lambdaAWS(envOf(with(map[string]string{"AWS_REGION": "", "AWS_DEFAULT_REGION": "us-west-2"})))
	require.NoError(t, err)
	assert.Equal(t, "us-west-2", cfg.Region)
}

// TestLambdaAWSEndpointVariables: the service's own variable, then the
// global one, neither when told to ignore them, as the SDKs document.
func TestLambdaAWSEndpointVariables(t *testing.T) {
	endpoint := func(t *testing.T, env map[string]string) (ddb, q string) {
		t.Helper()
		cfg, err := lambdaAWS(envOf(env))
		require.NoError(t, err)
		str := func(p *string) string {
			if p == nil {
				return ""
			}
			return *p
		}
		return str(dynamodb.NewFromConfig(cfg).Options().BaseEndpoint), str(sqs.NewFromConfig(cfg).Options().BaseEndpoint)
	}
	ddb, q := endpoint(t, with(map[string]string{"AWS_ENDPOINT_URL_DYNAMODB": "http://127.0.0.1:8000"}))
	assert.Equal(t, "http://127.0.0.1:8000", ddb)
	assert.Empty(t, q, "another service's variable")

	ddb, q = endpoint(t, with(map[string]string{"AWS_ENDPOINT_URL_DYNAMODB": "http://127.0.0.1:8000", "AWS_ENDPOINT_URL": "http://127.0.0.1:1"}))
	assert.Equal(t, "http://127.0.0.1:8000", ddb, "the service's own first")
	assert.Equal(t, "http://127.0.0.1:1", q, "the global one for the rest")

	ddb, q = endpoint(t, with(map[string]string{"AWS_ENDPOINT_URL_DYNAMODB": "http://127.0.0.1:8000", "AWS_ENDPOINT_URL": "http://127.0.0.1:1",
		"AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "true"}))
	assert.Empty(t, ddb)
	assert.Empty(t, q)
}

// TestLambdaAWSEndpointVariablesReachTheParameterReader: the edge
// parameter is read with ssmparam and invalidations sent with cfinvalidate
// rather than the SDK's clients, and they resolve the endpoint variables
// as the SDK's clients do, so the packaging runs can point them at
// stand-ins.
func TestLambdaAWSEndpointVariablesReachTheParameterReader(t *testing.T) {
	endpoint := func(env map[string]string) string {
		cfg, err := lambdaAWS(envOf(env))
		require.NoError(t, err)
		return ssmparam.New(cfg).Endpoint()
	}
	assert.Equal(t, "https://ssm.eu-west-1.amazonaws.com", endpoint(lambdaVars))
	assert.Equal(t, "http://127.0.0.1:4583", endpoint(with(map[string]string{
		"AWS_ENDPOINT_URL_SSM": "http://127.0.0.1:4583", "AWS_ENDPOINT_URL": "http://127.0.0.1:1"})))
	assert.Equal(t, "http://127.0.0.1:1", endpoint(with(map[string]string{"AWS_ENDPOINT_URL": "http://127.0.0.1:1"})))
	assert.Equal(t, "https://ssm.eu-west-1.amazonaws.com", endpoint(with(map[string]string{
		"AWS_ENDPOINT_URL_SSM": "http://127.0.0.1:4583", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "true"})))

	cfg, err := lambdaAWS(envOf(with(map[string]string{"AWS_ENDPOINT_URL_CLOUDFRONT": "http://127.0.0.1:9000"})))
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:9000", cfinvalidate.New(cfg).Endpoint())
	cfg, err = lambdaAWS(envOf(lambdaVars))
	require.NoError(t, err)
	assert.Equal(t, "https://cloudfront.amazonaws.com", cfinvalidate.New(cfg).Endpoint())

	// The webhook queues' sends (sqssend), likewise.
	assert.Equal(t, "https://sqs.eu-west-1.amazonaws.com", sqssend.New(cfg).Endpoint())
	cfg, err = lambdaAWS(envOf(with(map[string]string{"AWS_ENDPOINT_URL_SQS": "http://127.0.0.1:9324", "AWS_ENDPOINT_URL": "http://127.0.0.1:1"})))
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:9324", sqssend.New(cfg).Endpoint())
}
