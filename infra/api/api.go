package api

import (
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigateway"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2authorizers"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2integrations"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/shortlink-dev/shortener/infra/edge"
	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// RedirectProps configure the redirect origin.
type RedirectProps struct {
	Function awslambda.IFunction
	// Authorizer is functions/originauth: it lets through only requests
	// carrying CloudFront's origin secret (edge.OriginVerifyHeader).
	Authorizer awslambda.IFunction
}

// OriginAuthorizerTTL is how long API Gateway caches the authorizer's
// answer per header value: CloudFront sends one value, so the authorizer
// runs about once per TTL; a rotation keeps the old value accepted longer
// than this (docs/deploy.md).
const OriginAuthorizerTTL = 5 * time.Minute

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
// $3.50 (docs/sources.md S34) and every edge miss pays it; the redirect path needs
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
	// Only CloudFront may get an answer: the secret
	// header is the authorizer's identity source, so API Gateway refuses a
	// request without it with 401 and invokes nothing, neither the
	// authorizer nor the redirect function
	// (https://docs.aws.amazon.com/apigatewayv2/latest/api-reference/apis-apiid-authorizers.html,
	// IdentitySource); a wrong value is 403. Both answers are cached per
	// header value, so a caller cycling guesses pays an authorizer run per
	// guess and the redirect function's concurrency is never spent on it.
	authorizer := awsapigatewayv2authorizers.NewHttpLambdaAuthorizer(jsii.String("OriginSecret"), p.Authorizer,
		&awsapigatewayv2authorizers.HttpLambdaAuthorizerProps{
			ResponseTypes:   &[]awsapigatewayv2authorizers.HttpLambdaResponseType{awsapigatewayv2authorizers.HttpLambdaResponseType_SIMPLE},
			IdentitySource:  jsii.Strings("$request.header." + edge.OriginVerifyHeader),
			ResultsCacheTtl: awscdk.Duration_Seconds(jsii.Number(OriginAuthorizerTTL.Seconds())),
		})
	httpAPI.AddRoutes(&awsapigatewayv2.AddRoutesOptions{
		Path:        jsii.String("/{code}"),
		Methods:     &[]awsapigatewayv2.HttpMethod{awsapigatewayv2.HttpMethod_GET, awsapigatewayv2.HttpMethod_HEAD},
		Integration: integration,
		Authorizer:  authorizer,
	})
	// A protected link's password form (link.UnlockPath), on the same
	// function behind the same authorizer.
	httpAPI.AddRoutes(&awsapigatewayv2.AddRoutesOptions{
		Path:        jsii.String(link.UnlockPath("{code}")),
		Methods:     &[]awsapigatewayv2.HttpMethod{awsapigatewayv2.HttpMethod_POST},
		Integration: integration,
		Authorizer:  authorizer,
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
	// Webhooks serves POST|GET /v1/webhooks, DELETE /v1/webhooks/{id} and
	// GET /v1/webhooks/{id}/deliveries; nil leaves them out.
	Webhooks awslambda.IFunction

	// HealthTable is read by GET /v1/health (HealthPath): the links table's
	// replica in this Region; nil leaves the route out.
	HealthTable awsdynamodb.ITableV2

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

// Stage-wide throttle: the create path is provisioned for 1,000/s (the sizing in docs/cost-model.md).
const (
	// ProblemBase is shared/apigw's: API Gateway's own problems point
	// into the same page (GET /v1/problems) as the functions' do.
	ProblemBase = apigw.ProblemBase

	stageRateLimit  = 1000
	stageBurstLimit = 2000
)

// NewManagement creates the /v1 REST API. Every method but GET
// /v1/problems (a static page; see addProblemsPage) requires an API key in
// the usage plan, which gives each key its throttle and daily quota. That
// is all API Gateway's keys are for: the handlers find the caller's owner
// by the key in the keys table (shared/apikey), since a key's ID changes
// with every new key and differs per Region. Only REST APIs
// have keys and usage plans (docs/sources.md S33), and /v1 carries 1 % of the
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
		// QR codes leave the manage function base64-encoded. API Gateway
		// decodes them only for a request whose first Accept media type
		// matches a binary media type, and "*/*" matches every request;
		// apigw.BinaryMediaTypes says why and what it costs.
		BinaryMediaTypes: jsii.Strings(apigw.BinaryMediaTypes...),
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
	addProblemsPage(links.ParentResource())
	if p.HealthTable != nil {
		addHealth(c, links.ParentResource(), p.HealthTable)
	}
	if p.Webhooks != nil {
		hooks := links.ParentResource().AddResource(jsii.String("webhooks"), nil)
		wh := integrate(p.Webhooks)
		hooks.AddMethod(jsii.String("POST"), wh, plain)
		hooks.AddMethod(jsii.String("GET"), wh, plain)
		withID := &awsapigateway.MethodOptions{
			RequestValidator:  validator,
			RequestParameters: &map[string]*bool{"method.request.path.id": jsii.Bool(true)},
		}
		one := hooks.AddResource(jsii.String("{id}"), nil)
		one.AddMethod(jsii.String("DELETE"), wh, withID)
		one.AddResource(jsii.String("deliveries"), nil).AddMethod(jsii.String("GET"), wh, withID)
	}

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

// addProblemsPage answers GET /v1/problems, the page every problem type
// refers to (apigw.ProblemsPage, from docs/problems.md), from API Gateway
// itself: a mock integration whose response template is the page, so no
// function runs and no API key is needed to read what an error means.
// The page holds no '#' or '$', which the template language (VTL) would
// read as syntax; shared/apigw's tests keep it so.
func addProblemsPage(v1 awsapigateway.IResource) {
	page := jsii.String(apigw.ProblemsPage())
	v1.AddResource(jsii.String("problems"), nil).AddMethod(jsii.String("GET"),
		awsapigateway.NewMockIntegration(&awsapigateway.IntegrationOptions{
			RequestTemplates: &map[string]*string{"application/json": jsii.String(`{"statusCode": 200}`)},
			IntegrationResponses: &[]*awsapigateway.IntegrationResponse{{
				StatusCode: jsii.String("200"),
				ResponseParameters: &map[string]*string{
					"method.response.header.Content-Type":  jsii.String("'text/html; charset=utf-8'"),
					"method.response.header.Cache-Control": jsii.String("'" + apigw.ProblemsPageCacheControl + "'"),
				},
				// Chosen by the request's Accept; the page whatever it is.
				ResponseTemplates: &map[string]*string{"application/json": page, "text/html": page},
			}},
		}),
		&awsapigateway.MethodOptions{
			ApiKeyRequired:    jsii.Bool(false),
			AuthorizationType: awsapigateway.AuthorizationType_NONE,
			MethodResponses: &[]*awsapigateway.MethodResponse{{
				StatusCode: jsii.String("200"),
				ResponseParameters: &map[string]*bool{
					"method.response.header.Content-Type":  jsii.Bool(true),
					"method.response.header.Cache-Control": jsii.Bool(true),
				},
			}},
		})
}

// HealthPath is the health endpoint under the API's stage: what Route 53
// health checks ask each Region (infra/failover), and what the local edge
// asks each local Region.
const HealthPath = "/v1/health"

// addHealth answers GET /v1/health from API Gateway itself: an AWS
// integration reads one item of the links table's replica in this Region
// (GetItem of the reserved alias "health", which no link can hold,
// eventually consistent: half a read unit) and answers 200, or 503 when
// DynamoDB answers an error (API Gateway itself answers 504 when it does not
// answer). No function runs, nothing is written, no API key is needed: Route
// 53's health checkers call it about once a second in all (docs/deploy.md,
// "Failover"), so it must cost next to nothing and say whether this Region
// can serve /v1.
func addHealth(scope constructs.Construct, v1 awsapigateway.IResource, table awsdynamodb.ITableV2) {
	role := awsiam.NewRole(scope, jsii.String("HealthRole"), &awsiam.RoleProps{
		AssumedBy:   awsiam.NewServicePrincipal(jsii.String("apigateway.amazonaws.com"), nil),
		Description: jsii.String("GET /v1/health: one GetItem on the links table's replica in this Region"),
	})
	table.Grant(role, jsii.String("dynamodb:GetItem"))
	stack := awscdk.Stack_Of(scope)
	request := `{"TableName":"` + *table.TableName() + `","Key":{"` + tableschema.AttrCode + `":{"S":"health"}},` +
		`"ProjectionExpression":"` + tableschema.AttrCode + `","ConsistentRead":false}`
	noStore := map[string]*string{"method.response.header.Cache-Control": jsii.String("'no-store'")}
	v1.AddResource(jsii.String("health"), nil).AddMethod(jsii.String("GET"),
		awsapigateway.NewAwsIntegration(&awsapigateway.AwsIntegrationProps{
			Service: jsii.String("dynamodb"),
			Action:  jsii.String("GetItem"),
			Region:  stack.Region(),
			Options: &awsapigateway.IntegrationOptions{
				CredentialsRole:     role,
				PassthroughBehavior: awsapigateway.PassthroughBehavior_NEVER,
				RequestTemplates:    &map[string]*string{"application/json": jsii.String(request)},
				IntegrationResponses: &[]*awsapigateway.IntegrationResponse{{
					StatusCode:         jsii.String("200"),
					ResponseParameters: &noStore,
					ResponseTemplates:  &map[string]*string{"application/json": jsii.String(`{"status":"ok"}`)},
				}, {
					// DynamoDB's own errors (throttling, 5xx, access).
					SelectionPattern:   jsii.String(`[45]\d{2}`),
					StatusCode:         jsii.String("503"),
					ResponseParameters: &noStore,
					ResponseTemplates:  &map[string]*string{"application/json": jsii.String(`{"status":"unavailable"}`)},
				}},
			},
		}),
		&awsapigateway.MethodOptions{
			ApiKeyRequired:    jsii.Bool(false),
			AuthorizationType: awsapigateway.AuthorizationType_NONE,
			MethodResponses: &[]*awsapigateway.MethodResponse{
				{StatusCode: jsii.String("200"), ResponseParameters: &map[string]*bool{"method.response.header.Cache-Control": jsii.Bool(true)}},
				{StatusCode: jsii.String("503"), ResponseParameters: &map[string]*bool{"method.response.header.Cache-Control": jsii.Bool(true)}},
			},
		})
}

// accessLogFormat is one JSON object per request. No source IP: behind
// CloudFront it is an edge address, and the service stores no client IPs.
const accessLogFormat = `{"requestId":"$context.requestId","time":"$context.requestTimeEpoch",` +
	`"method":"$context.httpMethod","resource":"$context.resourcePath","status":"$context.status",` +
	`"apiKeyId":"$context.identity.apiKeyId","latencyMs":"$context.responseLatency",` +
	`"integrationLatencyMs":"$context.integrationLatency","responseBytes":"$context.responseLength",` +
	`"error":$context.error.messageString}`
