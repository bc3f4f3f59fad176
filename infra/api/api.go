package api

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigateway"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2integrations"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// RedirectProps configure the redirect origin.
type RedirectProps struct {
	Function awslambda.IFunction
}

// Redirect is the HTTP API CloudFront sends redirect misses to.
type Redirect struct {
	// Construct is the scope of its resources. (A named field, not an
	// embedded one: a Go struct embedding a construct is not a jsii object.)
	Construct constructs.Construct
	API       awsapigatewayv2.HttpApi
	// OriginDomain is the API's execute-api host name, for CloudFront.
	OriginDomain *string
}

// NewRedirect creates the HTTP API with GET and HEAD /{code}.
//
// An HTTP API, not REST: it costs $1.00 per million requests against REST's
// $3.50 (AWS-FACTS S34) and every edge miss pays it; the redirect path needs
// none of REST's extras (keys, usage plans, validation). Payload format 1.0
// keeps the event REST-shaped (events.APIGatewayProxyRequest), so the same
// handler serves both APIs and the local gateway.
func NewRedirect(scope constructs.Construct, id string, p RedirectProps) *Redirect {
	c := constructs.NewConstruct(scope, jsii.String(id))
	httpAPI := awsapigatewayv2.NewHttpApi(c, jsii.String("Api"), &awsapigatewayv2.HttpApiProps{
		Description:        jsii.String("Short link redirects (CloudFront origin)"),
		CreateDefaultStage: jsii.Bool(true),
	})
	integration := awsapigatewayv2integrations.NewHttpLambdaIntegration(jsii.String("Redirect"), p.Function,
		&awsapigatewayv2integrations.HttpLambdaIntegrationProps{
			PayloadFormatVersion: awsapigatewayv2.PayloadFormatVersion_VERSION_1_0(),
			// Past this CloudFront has long failed the request over.
			Timeout: awscdk.Duration_Seconds(jsii.Number(10)),
		})
	httpAPI.AddRoutes(&awsapigatewayv2.AddRoutesOptions{
		Path:        jsii.String("/{code}"),
		Methods:     &[]awsapigatewayv2.HttpMethod{awsapigatewayv2.HttpMethod_GET, awsapigatewayv2.HttpMethod_HEAD},
		Integration: integration,
	})
	stack := awscdk.Stack_Of(c)
	domain := jsii.String(*httpAPI.ApiId() + ".execute-api." + *stack.Region() + "." + *stack.UrlSuffix())
	return &Redirect{Construct: c, API: httpAPI, OriginDomain: domain}
}

// ManagementProps configure the /v1 API.
type ManagementProps struct {
	Create awslambda.IFunction // POST /v1/links
	Manage awslambda.IFunction // GET /v1/links, GET|PATCH|DELETE /v1/links/{code}
	Stats  awslambda.IFunction // GET /v1/links/{code}/stats

	// Per API key.
	RateLimit   float64
	BurstLimit  float64
	QuotaPerDay float64

	Retention awslogs.RetentionDays
}

// Management is the REST API and its usage plan.
type Management struct {
	// Construct is the scope of its resources. (A named field, not an
	// embedded one: a Go struct embedding a construct is not a jsii object.)
	Construct constructs.Construct
	API       awsapigateway.RestApi
	UsagePlan awsapigateway.UsagePlan
	// OriginDomain and OriginPath locate the stage for CloudFront.
	OriginDomain *string
	OriginPath   string
}

// StageName is the management API's stage; CloudFront prefixes it.
const StageName = "prod"

// Stage-wide throttle: the create path is provisioned for 1,000/s (seeds).
const (
	// ProblemBase matches shared/apigw's problem types (docs/problems.md).
	ProblemBase = "https://github.com/shortlink-dev/shortener/blob/main/docs/problems.md#"

	stageRateLimit  = 1000
	stageBurstLimit = 2000
)

// NewManagement creates the /v1 REST API. Every method requires an API key
// in the usage plan, which gives each key its throttle and daily quota.
// That is all API Gateway's keys are for: the handlers find the caller's
// owner by the key in the keys table (shared/apikey), since a key's ID
// changes with every new key and differs per Region. Only REST APIs
// have keys and usage plans (AWS-FACTS S33), and /v1 carries 1 % of the
// traffic, so REST's higher price is small here (docs/cost-model.md).
func NewManagement(scope constructs.Construct, id string, p ManagementProps) *Management {
	c := constructs.NewConstruct(scope, jsii.String(id))
	access := awslogs.NewLogGroup(c, jsii.String("AccessLogs"), &awslogs.LogGroupProps{
		Retention:     p.Retention,
		RemovalPolicy: awscdk.RemovalPolicy_DESTROY,
	})
	rest := awsapigateway.NewRestApi(c, jsii.String("Api"), &awsapigateway.RestApiProps{
		Description:      jsii.String("Short link management API (/v1), behind CloudFront"),
		EndpointTypes:    &[]awsapigateway.EndpointType{awsapigateway.EndpointType_REGIONAL},
		ApiKeySourceType: awsapigateway.ApiKeySourceType_HEADER,
		// QR codes leave the manage function base64-encoded; API Gateway
		// turns them back into bytes for clients that accept image/png.
		BinaryMediaTypes: &[]*string{jsii.String("image/png")},
		// The account-level role API Gateway needs to write any log.
		CloudWatchRole: jsii.Bool(true),
		DefaultMethodOptions: &awsapigateway.MethodOptions{
			ApiKeyRequired: jsii.Bool(true),
		},
		DeployOptions: &awsapigateway.StageOptions{
			StageName:            jsii.String(StageName),
			AccessLogDestination: awsapigateway.NewLogGroupLogDestination(access),
			AccessLogFormat:      awsapigateway.AccessLogFormat_Custom(jsii.String(accessLogFormat)),
			LoggingLevel:         awsapigateway.MethodLoggingLevel_ERROR,
			DataTraceEnabled:     jsii.Bool(false),
			MetricsEnabled:       jsii.Bool(false),
			ThrottlingRateLimit:  jsii.Number(stageRateLimit),
			ThrottlingBurstLimit: jsii.Number(stageBurstLimit),
		},
	})
	// Bodies are validated by the handlers, which answer problem+json
	// (RFC 9457); API Gateway checks the path parameters.
	validator := rest.AddRequestValidator(jsii.String("PathParameters"), &awsapigateway.RequestValidatorOptions{
		ValidateRequestParameters: jsii.Bool(true),
	})
	integrate := func(fn awslambda.IFunction) awsapigateway.Integration {
		return awsapigateway.NewLambdaIntegration(fn, &awsapigateway.LambdaIntegrationOptions{
			Proxy:           jsii.Bool(true),
			AllowTestInvoke: jsii.Bool(false),
		})
	}
	withCode := &awsapigateway.MethodOptions{
		RequestValidator:  validator,
		RequestParameters: &map[string]*bool{"method.request.path.code": jsii.Bool(true)},
	}
	plain := &awsapigateway.MethodOptions{RequestValidator: validator}

	links := rest.Root().AddResource(jsii.String("v1"), nil).AddResource(jsii.String("links"), nil)
	create, manage := integrate(p.Create), integrate(p.Manage)
	links.AddMethod(jsii.String("POST"), create, plain)
	links.AddMethod(jsii.String("GET"), manage, plain)
	// The static resource wins over {code}; "batch" is a reserved alias.
	links.AddResource(jsii.String("batch"), nil).AddMethod(jsii.String("POST"), create, plain)
	one := links.AddResource(jsii.String("{code}"), nil)
	for _, m := range []string{"GET", "PATCH", "DELETE"} {
		one.AddMethod(jsii.String(m), manage, withCode)
	}
	one.AddResource(jsii.String("qr"), nil).AddMethod(jsii.String("GET"), manage, withCode)
	one.AddResource(jsii.String("stats"), nil).AddMethod(jsii.String("GET"), integrate(p.Stats), withCode)

	// API Gateway refuses a missing or unknown key itself, before any
	// function runs, and tells the two apart no more than INVALID_API_KEY
	// does (both 403; the local run can say 401 for a missing one).
	// Answer these as the rest of the API answers errors.
	for _, r := range []struct {
		id, status, title string
		kind              awsapigateway.ResponseType
		slug, detail      string
	}{
		{"UnknownRoute", "404", "Not found", awsapigateway.ResponseType_MISSING_AUTHENTICATION_TOKEN(), "not-found", "no such resource"},
		{"BadKey", "403", "Missing or unknown API key", awsapigateway.ResponseType_INVALID_API_KEY(), "forbidden", "send a valid API key in the x-api-key header"},
		{"Quota", "429", "Quota exceeded", awsapigateway.ResponseType_QUOTA_EXCEEDED(), "rate-limited", "this API key has used its quota for today"},
		{"Throttled", "429", "Too many requests", awsapigateway.ResponseType_THROTTLED(), "rate-limited", "slow down and retry"},
	} {
		rest.AddGatewayResponse(jsii.String("Problem"+r.id), &awsapigateway.GatewayResponseOptions{
			Type:       r.kind,
			StatusCode: jsii.String(r.status),
			ResponseHeaders: &map[string]*string{
				"Content-Type": jsii.String("'application/problem+json'"),
			},
			Templates: &map[string]*string{
				"application/json": jsii.String(`{"type":"` + ProblemBase + r.slug + `","title":"` + r.title +
					`","status":` + r.status + `,"detail":"` + r.detail + `","instance":"$context.path"}`),
			},
		})
	}

	plan := rest.AddUsagePlan(jsii.String("UsagePlan"), &awsapigateway.UsagePlanProps{
		Description: jsii.String("Per API key throttle and daily quota for /v1"),
		Throttle: &awsapigateway.ThrottleSettings{
			RateLimit:  jsii.Number(p.RateLimit),
			BurstLimit: jsii.Number(p.BurstLimit),
		},
		Quota: &awsapigateway.QuotaSettings{
			Limit:  jsii.Number(p.QuotaPerDay),
			Period: awsapigateway.Period_DAY,
		},
		ApiStages: &[]*awsapigateway.UsagePlanPerApiStage{{Api: rest, Stage: rest.DeploymentStage()}},
	})
	// No API key in the template: a key only works once it is in the keys
	// table too, so keys are issued with `shortener keys add` and then
	// added to this plan (docs/deploy.md).

	stack := awscdk.Stack_Of(c)
	domain := jsii.String(*rest.RestApiId() + ".execute-api." + *stack.Region() + "." + *stack.UrlSuffix())
	return &Management{Construct: c, API: rest, UsagePlan: plan, OriginDomain: domain, OriginPath: "/" + StageName}
}

// accessLogFormat is one JSON object per request. No source IP: behind
// CloudFront it is an edge address, and the service stores no client IPs.
const accessLogFormat = `{"requestId":"$context.requestId","time":"$context.requestTimeEpoch",` +
	`"method":"$context.httpMethod","resource":"$context.resourcePath","status":"$context.status",` +
	`"apiKeyId":"$context.identity.apiKeyId","latencyMs":"$context.responseLatency",` +
	`"integrationLatencyMs":"$context.integrationLatency","responseBytes":"$context.responseLength",` +
	`"error":$context.error.messageString}`
