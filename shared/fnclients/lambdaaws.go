package fnclients

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/shortlink-dev/shortener/shared/config"
)

// lambdaAWS is the SDK configuration of a function in Lambda, read from
// the environment Lambda gives every on-demand function: the Region and
// the execution role's credentials
// (https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html#configuration-envvars-runtime).
//
// It is not the SDK's LoadDefaultConfig on purpose. That reads shared
// config and credentials files and carries the SSO, web identity, STS,
// container and instance metadata providers; none of them applies in
// Lambda, and linking them (their packages' initialisation) and running
// them was about half of what a function's init did beyond the trivial
// handler's (docs/benchmarks.md, "Cold start"). Like LoadDefaultConfig, it
// takes the credentials from the environment once: they last as long as
// the execution environment.
//
// The SDK's endpoint variables keep their documented meaning
// (https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html):
// AWS_ENDPOINT_URL_<SERVICE> before AWS_ENDPOINT_URL, both ignored with
// AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true. The packaging test
// (internal/rie) points DynamoDB at DynamoDB Local through them.
func lambdaAWS(getenv config.Getenv) (aws.Config, error) {
	region := getenv("AWS_REGION")
	if region == "" {
		region = getenv("AWS_DEFAULT_REGION")
	}
	key, secret := getenv("AWS_ACCESS_KEY_ID"), getenv("AWS_SECRET_ACCESS_KEY")
	var errs []error
	if region == "" {
		errs = append(errs, errors.New("AWS_REGION is not set"))
	}
	if key == "" || secret == "" {
		errs = append(errs, errors.New("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set (Lambda sets them from the execution role)"))
	}
	if err := errors.Join(errs...); err != nil {
		return aws.Config{}, err
	}
	env := endpointEnv(getenv)
	cfg := aws.Config{
		Region:        region,
		Credentials:   aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider(key, secret, getenv("AWS_SESSION_TOKEN"))),
		ConfigSources: []any{env},
	}
	if ignore, _, _ := env.GetIgnoreConfiguredEndpoints(context.Background()); !ignore {
		if base := getenv("AWS_ENDPOINT_URL"); base != "" {
			cfg.BaseEndpoint = aws.String(base)
		}
	}
	return cfg, nil
}

// endpointEnv answers the SDK clients' questions about configured
// endpoints from the environment. The clients look for these two methods
// on each of aws.Config's ConfigSources.
type endpointEnv config.Getenv

// GetServiceBaseEndpoint is AWS_ENDPOINT_URL_<service>, the service's SDK
// ID upper-cased with spaces as underscores ("DynamoDB": DYNAMODB).
func (e endpointEnv) GetServiceBaseEndpoint(ctx context.Context, sdkID string) (string, bool, error) {
	if ignore, _, _ := e.GetIgnoreConfiguredEndpoints(ctx); ignore {
		return "", false, nil
	}
	v := e("AWS_ENDPOINT_URL_" + strings.ToUpper(strings.ReplaceAll(sdkID, " ", "_")))
	return v, v != "", nil
}

// GetIgnoreConfiguredEndpoints is AWS_IGNORE_CONFIGURED_ENDPOINT_URLS.
func (e endpointEnv) GetIgnoreConfiguredEndpoints(context.Context) (bool, bool, error) {
	v := e("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")
	if v == "" {
		return false, false, nil
	}
	b, err := strconv.ParseBool(v)
	return b, err == nil, err
}
