package api

import (
	"fmt"
	"strconv"
	"strings"

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

	"github.com/shortlink-dev/shortener/infra/golambda"
	"github.com/shortlink-dev/shortener/infra/loggroup"
	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/edgespec"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// RedirectProps configure the redirect origin.
type RedirectProps struct {
	Function awslambda.IFunction
	// Authorizer is functions/originauth: it lets through only requests
	// carrying CloudFront's origin secret (edgespec.OriginAuthHeader).
	Authorizer awslambda.IFunction
	// Spec is the API to build; edgespec.Redirect() when nil.
	Spec *edgespec.API
}

// OriginAuthorizerTTL is edgespec's: how long API Gateway caches the
// origin authorizer's answer per header value.
const OriginAuthorizerTTL = edgespec.OriginAuthorizerTTL

// Redirect is the HTTP API CloudFront sends redirect misses to.
type Redirect struct {
	// Construct is the scope of its resources. (A named field, not an
	// embedded one: a Go struct embedding a construct is not a jsii object.)
	Construct constructs.Construct
	API       awsapigatewayv2.HttpApi
	// OriginDomain is the API's execute-api host name, for CloudFront.
	OriginDomain *string
	// Spec is the description it was built from.
	Spec edgespec.API
}

// NewRedirect creates the redirect HTTP API from its description
// (edgespec.Redirect says why it is an HTTP API and what each part is
// for): one route per method and path, each function's Lambda proxy
// integration shared by its routes, the Lambda authorizers. It panics on a
// part of the description it does not build, so a synthesis never
// deploys less than the description says.
func NewRedirect(scope constructs.Construct, id string, p RedirectProps) *Redirect {
	spec := edgespec.Redirect()
	if p.Spec != nil {
		spec = *p.Spec
	}
	mustBuild(spec, edgespec.HTTPAPI)
	if spec.CORS != nil || spec.Throttle != nil {
		unbuilt(spec, "CORS or a stage throttle on an HTTP API")
	}
	functions := map[edgespec.Lambda]awslambda.IFunction{edgespec.LambdaRedirect: p.Function, edgespec.LambdaOriginAuth: p.Authorizer}
	c := constructs.NewConstruct(scope, jsii.String(id))
	httpAPI := awsapigatewayv2.NewHttpApi(c, jsii.String("Api"), &awsapigatewayv2.HttpApiProps{
		Description:        jsii.String(spec.Description),
		CreateDefaultStage: jsii.Bool(spec.Stage == "$default"),
	})
	if spec.Stage != "$default" {
		unbuilt(spec, "a stage other than $default")
	}
	var payload awsapigatewayv2.PayloadFormatVersion
	switch spec.PayloadFormatVersion {
	case "1.0":
		payload = awsapigatewayv2.PayloadFormatVersion_VERSION_1_0()
	case "2.0":
		payload = awsapigatewayv2.PayloadFormatVersion_VERSION_2_0()
	default:
		unbuilt(spec, "payload format version "+strconv.Quote(spec.PayloadFormatVersion))
	}
	integrations := map[edgespec.Lambda]awsapigatewayv2integrations.HttpLambdaIntegration{}
	integration := func(r edgespec.Route) awsapigatewayv2integrations.HttpLambdaIntegration {
		fn := r.Integration.Function
		if in, ok := integrations[fn]; ok {
			return in
		}
		props := &awsapigatewayv2integrations.HttpLambdaIntegrationProps{PayloadFormatVersion: payload}
		if spec.IntegrationTimeout > 0 {
			props.Timeout = awscdk.Duration_Millis(jsii.Number(float64(spec.IntegrationTimeout.Milliseconds())))
		}
		in := awsapigatewayv2integrations.NewHttpLambdaIntegration(jsii.String(constructName(string(fn))), functions[fn], props)
		integrations[fn] = in
		return in
	}
	authorizers := map[string]awsapigatewayv2authorizers.HttpLambdaAuthorizer{}
	for _, a := range spec.Authorizers {
		var response awsapigatewayv2authorizers.HttpLambdaResponseType
		switch a.Response {
		case edgespec.SimpleResponse:
			response = awsapigatewayv2authorizers.HttpLambdaResponseType_SIMPLE
		case edgespec.IAMPolicyResponse:
			response = awsapigatewayv2authorizers.HttpLambdaResponseType_IAM
		default:
			unbuilt(spec, "authorizer response "+string(a.Response))
		}
		if a.Type != edgespec.RequestAuthorizer || a.PayloadFormatVersion != "2.0" || functions[a.Function] == nil {
			unbuilt(spec, "authorizer "+a.Name+": only REQUEST Lambda authorizers, payload 2.0, of a function given")
		}
		authorizers[a.Name] = awsapigatewayv2authorizers.NewHttpLambdaAuthorizer(jsii.String(a.Name), functions[a.Function],
			&awsapigatewayv2authorizers.HttpLambdaAuthorizerProps{
				ResponseTypes:   &[]awsapigatewayv2authorizers.HttpLambdaResponseType{response},
				IdentitySource:  jsii.Strings(a.IdentitySources...),
				ResultsCacheTtl: awscdk.Duration_Seconds(jsii.Number(a.ResultTTL.Seconds())),
			})
	}
	for _, r := range spec.Routes {
		if r.Integration.Kind != edgespec.LambdaProxy || functions[r.Integration.Function] == nil {
			unbuilt(spec, "route "+r.Key()+": only Lambda proxy integrations of a function given")
		}
		opts := &awsapigatewayv2.AddRoutesOptions{
			Path:        jsii.String(r.Path),
			Methods:     &[]awsapigatewayv2.HttpMethod{awsapigatewayv2.HttpMethod(r.Method)},
			Integration: integration(r),
		}
		if r.Authorizer != "" {
			opts.Authorizer = authorizers[r.Authorizer]
		}
		// One route per method: AddRoutes names each route by method and
		// path, whatever it is given at once.
		httpAPI.AddRoutes(opts)
	}
	stack := awscdk.Stack_Of(c)
	domain := jsii.String(*httpAPI.ApiId() + ".execute-api." + *stack.Region() + "." + *stack.UrlSuffix())
	return &Redirect{Construct: c, API: httpAPI, OriginDomain: domain, Spec: spec}
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

	// Authorizer is functions/apiauth, the /v1 Lambda authorizer
	// (edgespec.APIAuthorizer). It gets USAGE_PLAN_KEY, the value of this
	// Region's usage-plan key, here.
	Authorizer *golambda.Function

	// The usage plan of edgespec.Management: per deployment and Region,
	// metered on its one usage-plan key.
	RateLimit   float64
	BurstLimit  float64
	QuotaPerDay float64

	Retention awslogs.RetentionDays

	// Spec is the API to build; edgespec.Management with the usage plan
	// above when nil.
	Spec *edgespec.API
}

// Management is the REST API and its usage plan.
type Management struct {
	// Construct is the scope of its resources. (A named field, not an
	// embedded one: a Go struct embedding a construct is not a jsii object.)
	Construct constructs.Construct
	API       awsapigateway.RestApi
	UsagePlan awsapigateway.UsagePlan
	// UsageKey is the usage plan's one API key, which the authorizer
	// returns as usageIdentifierKey; nil without a plan.
	UsageKey awsapigateway.IApiKey
	// OriginDomain and OriginPath locate the stage for CloudFront.
	OriginDomain *string
	OriginPath   string
	// Spec is the description it was built from.
	Spec edgespec.API
}

// StageName is the management API's stage; CloudFront prefixes it.
const StageName = edgespec.ManagementStage

// ProblemBase is shared/apigw's: API Gateway's own problems point into
// the same page (GET /v1/problems) as the functions' do.
const ProblemBase = apigw.ProblemBase

// HealthPath is the health endpoint under the API's stage: what Route 53
// health checks ask each Region (infra/failover), and what the local edge
// asks each local Region.
const HealthPath = edgespec.HealthPath

// UsagePlan is edgespec.DefaultUsagePlan with p's per-key throttle and
// daily quota.
func (p ManagementProps) UsagePlan() edgespec.UsagePlan {
	plan := edgespec.DefaultUsagePlan
	plan.Throttle = edgespec.Throttle{RateLimit: p.RateLimit, BurstLimit: int(p.BurstLimit)}
	plan.Quota = int(p.QuotaPerDay)
	return plan
}

// gatewayResponseIDs keep the construct IDs (and so the logical IDs) the
// gateway responses had before they came from the description.
var gatewayResponseIDs = map[string]string{
	edgespec.ResponseMissingAuthenticationToken: "UnknownRoute",
	edgespec.ResponseInvalidAPIKey:              "BadKey",
	edgespec.ResponseQuotaExceeded:              "Quota",
	edgespec.ResponseThrottled:                  "Throttled",
	edgespec.ResponseUnauthorized:               "Unauthenticated",
	edgespec.ResponseAccessDenied:               "Denied",
	edgespec.ResponseAuthorizerFailure:          "AuthorizerFailed",
}

// NewManagement creates the /v1 REST API from its description
// (edgespec.Management says what each part is for): the resource tree and
// one method per route, in the description's order, each function's
// Lambda proxy integration, the problems page and the health check that
// API Gateway answers itself, the stage and method throttles, the gateway
// responses and the usage plan. A route of a function not given (or the
// health route without HealthTable) is left out; any other part it does
// not build panics, so a synthesis never deploys less than the
// description says.
func NewManagement(scope constructs.Construct, id string, p ManagementProps) *Management {
	spec := edgespec.Management(p.UsagePlan())
	if p.Spec != nil {
		spec = *p.Spec
	}
	checkManagement(spec)
	c := constructs.NewConstruct(scope, jsii.String(id))
	access := loggroup.New(c, "AccessLogs", p.Retention)
	rest := awsapigateway.NewRestApi(c, jsii.String("Api"), &awsapigateway.RestApiProps{
		Description:      jsii.String(spec.Description),
		EndpointTypes:    &[]awsapigateway.EndpointType{awsapigateway.EndpointType_REGIONAL},
		ApiKeySourceType: keySource(spec),
		BinaryMediaTypes: jsii.Strings(spec.BinaryMediaTypes...),
		// The account-level role API Gateway needs to write any log.
		CloudWatchRole: jsii.Bool(true),
		DeployOptions:  stageOptions(spec, access),
	})
	routes := newRestRoutes(c, rest, spec, p)
	routes.add()
	addGatewayResponses(rest, spec)
	plan := addUsagePlan(rest, spec)
	m := &Management{Construct: c, API: rest, UsagePlan: plan, OriginPath: "/" + spec.Stage, Spec: spec}
	if plan != nil && spec.APIKeySource == edgespec.KeySourceAuthorizer {
		m.UsageKey = addUsageKey(c, plan, p.Authorizer)
	}

	stack := awscdk.Stack_Of(c)
	m.OriginDomain = jsii.String(*rest.RestApiId() + ".execute-api." + *stack.Region() + "." + *stack.UrlSuffix())
	return m
}

// addUsageKey creates the usage plan's one API key and gives its value
// to the authorizer, which returns it as usageIdentifierKey for every
// caller it allows (key source AUTHORIZER), so no operator adds keys to
// the plan. Its value is no credential: with key source AUTHORIZER, API
// Gateway reads no x-api-key header, so knowing the value lets nobody in;
// it names the plan's meter. It is made from the stack's name and Region,
// unique in the account, and stays the same across deployments.
func addUsageKey(c constructs.Construct, plan awsapigateway.UsagePlan, authorizer *golambda.Function) awsapigateway.IApiKey {
	stack := awscdk.Stack_Of(c)
	value := awscdk.Fn_Join(jsii.String("-"), jsii.Strings("shortener-usage", *stack.StackName(), *stack.Region()))
	key := awsapigateway.NewApiKey(c, jsii.String("UsageKey"), &awsapigateway.ApiKeyProps{
		Description: jsii.String("The /v1 usage plan's meter in this Region: the authorizer returns it for every allowed caller"),
		Value:       value,
		Enabled:     jsii.Bool(true),
	})
	plan.AddApiKey(key, nil)
	if authorizer != nil {
		authorizer.Fn.AddEnvironment(jsii.String("USAGE_PLAN_KEY"), value, nil)
	}
	return key
}

// checkManagement refuses a spec with what a REST API is not built with
// here.
func checkManagement(spec edgespec.API) {
	mustBuild(spec, edgespec.RESTAPI)
	if spec.CORS != nil {
		unbuilt(spec, "CORS on the REST API")
	}
	for _, a := range spec.Authorizers {
		if a.Type != edgespec.RequestAuthorizer || a.Response != edgespec.IAMPolicyResponse || a.Function != edgespec.LambdaAPIAuth ||
			len(a.IdentitySources) > 0 || a.ResultTTL > 0 {
			unbuilt(spec, "authorizer "+a.Name+": only the /v1 REQUEST authorizer, without identity sources or cache")
		}
	}
	if spec.PayloadFormatVersion != "" && spec.PayloadFormatVersion != "1.0" {
		unbuilt(spec, "a REST API's Lambda proxy payload is 1.0")
	}
}

// keySource is where the REST API reads API keys from.
func keySource(spec edgespec.API) awsapigateway.ApiKeySourceType {
	switch spec.APIKeySource {
	case "HEADER":
		return awsapigateway.ApiKeySourceType_HEADER
	case "AUTHORIZER":
		return awsapigateway.ApiKeySourceType_AUTHORIZER
	}
	unbuilt(spec, "API key source "+strconv.Quote(spec.APIKeySource))
	return ""
}

// stageOptions is the stage: its access log, and the spec's throttling
// of the stage and of single methods.
func stageOptions(spec edgespec.API, access awslogs.ILogGroup) *awsapigateway.StageOptions {
	stage := &awsapigateway.StageOptions{
		StageName:            jsii.String(spec.Stage),
		AccessLogDestination: awsapigateway.NewLogGroupLogDestination(access),
		AccessLogFormat:      awsapigateway.AccessLogFormat_Custom(jsii.String(accessLogFormat)),
		LoggingLevel:         awsapigateway.MethodLoggingLevel_ERROR,
		DataTraceEnabled:     jsii.Bool(false),
		MetricsEnabled:       jsii.Bool(false),
	}
	if t := spec.Throttle; t != nil {
		stage.ThrottlingRateLimit, stage.ThrottlingBurstLimit = jsii.Number(t.RateLimit), jsii.Number(float64(t.BurstLimit))
	}
	methodThrottles := map[string]*awsapigateway.MethodDeploymentOptions{}
	for _, r := range spec.Routes {
		if t := r.Throttle; t != nil {
			// The stage's method settings address a method as
			// resource path and method.
			methodThrottles[r.Path+"/"+r.Method] = &awsapigateway.MethodDeploymentOptions{
				ThrottlingRateLimit: jsii.Number(t.RateLimit), ThrottlingBurstLimit: jsii.Number(float64(t.BurstLimit)),
			}
		}
	}
	if len(methodThrottles) > 0 {
		stage.MethodOptions = &methodThrottles
	}
	return stage
}

// restRoutes adds a spec's routes to a REST API: its resources, made once
// per path, and one Lambda integration per function.
type restRoutes struct {
	scope        constructs.Construct
	rest         awsapigateway.RestApi
	spec         edgespec.API
	healthTable  awsdynamodb.ITableV2
	functions    map[edgespec.Lambda]awslambda.IFunction
	validator    awsapigateway.RequestValidator
	integrations map[edgespec.Lambda]awsapigateway.Integration
	resources    map[string]awsapigateway.IResource
	authorizer   *golambda.Function
	authorizers  map[string]awsapigateway.IAuthorizer
}

// newRestRoutes is the routes of spec on rest, to p's functions.
func newRestRoutes(c constructs.Construct, rest awsapigateway.RestApi, spec edgespec.API, p ManagementProps) *restRoutes {
	return &restRoutes{
		scope: c, rest: rest, spec: spec, healthTable: p.HealthTable,
		functions: map[edgespec.Lambda]awslambda.IFunction{
			edgespec.LambdaCreate: p.Create, edgespec.LambdaManage: p.Manage, edgespec.LambdaStats: p.Stats, edgespec.LambdaWebhooks: p.Webhooks,
		},
		integrations: map[edgespec.Lambda]awsapigateway.Integration{},
		resources:    map[string]awsapigateway.IResource{"/": rest.Root()},
		authorizer:   p.Authorizer,
		authorizers:  map[string]awsapigateway.IAuthorizer{},
	}
}

// authorize is the route's authorizer, made once: a REQUEST authorizer
// with no identity source and no cache, so API Gateway invokes it for
// every request, headers or none (identitySource is optional when
// caching is off: https://docs.aws.amazon.com/apigateway/latest/api/API_CreateAuthorizer.html).
func (r *restRoutes) authorize(route edgespec.Route) awsapigateway.IAuthorizer {
	if a, ok := r.authorizers[route.Authorizer]; ok {
		return a
	}
	if r.authorizer == nil {
		unbuilt(r.spec, "route "+route.Key()+": authorizer "+route.Authorizer+" without its function")
	}
	a := awsapigateway.NewRequestAuthorizer(r.scope, jsii.String(route.Authorizer+"Authorizer"), &awsapigateway.RequestAuthorizerProps{
		Handler:         r.authorizer.Fn,
		IdentitySources: &[]*string{},
		ResultsCacheTtl: awscdk.Duration_Seconds(jsii.Number(0)),
	})
	// CDK writes the empty list as IdentitySource ""; no identity source
	// at all is what API Gateway documents for an uncached authorizer.
	a.Node().DefaultChild().(awsapigateway.CfnAuthorizer).AddPropertyDeletionOverride(jsii.String("IdentitySource"))
	r.authorizers[route.Authorizer] = a
	return a
}

// integrate is fn's proxy integration.
func (r *restRoutes) integrate(fn edgespec.Lambda) awsapigateway.Integration {
	if in, ok := r.integrations[fn]; ok {
		return in
	}
	in := awsapigateway.NewLambdaIntegration(r.functions[fn], &awsapigateway.LambdaIntegrationOptions{
		Proxy:           jsii.Bool(true),
		AllowTestInvoke: jsii.Bool(false),
	})
	r.integrations[fn] = in
	return in
}

// resource is path's resource, its parents made first.
func (r *restRoutes) resource(path string) awsapigateway.IResource {
	if res, ok := r.resources[path]; ok {
		return res
	}
	i := strings.LastIndex(path, "/")
	parent := path[:i]
	if parent == "" {
		parent = "/"
	}
	res := r.resource(parent).AddResource(jsii.String(path[i+1:]), nil)
	r.resources[path] = res
	return res
}

// add adds every route of the spec.
func (r *restRoutes) add() {
	// Bodies are validated by the handlers, which answer problem+json
	// (RFC 9457); API Gateway checks the path parameters.
	r.validator = r.rest.AddRequestValidator(jsii.String("PathParameters"), &awsapigateway.RequestValidatorOptions{
		ValidateRequestParameters: jsii.Bool(true),
	})
	spec := r.spec
	for _, route := range spec.Routes {
		switch in := route.Integration; in.Kind {
		case edgespec.LambdaProxy:
			r.lambdaProxy(route, in.Function)
		case edgespec.MockIntegration:
			if in.Page != edgespec.ProblemsPage || route.Method != "GET" || route.APIKeyRequired {
				unbuilt(spec, "route "+route.Key()+": a mock integration other than GET of the problems page without a key")
			}
			addProblemsPage(r.resource(route.Path))
		case edgespec.ServiceIntegration:
			if in.Action != edgespec.HealthAction || route.Method != "GET" || route.APIKeyRequired {
				unbuilt(spec, "route "+route.Key()+": a service integration other than the health check's GetItem without a key")
			}
			if r.healthTable != nil {
				addHealth(r.scope, r.resource(route.Path), r.healthTable)
			}
		}
	}
}

// lambdaProxy adds a route to function, unless the stack has no such
// function.
func (r *restRoutes) lambdaProxy(route edgespec.Route, function edgespec.Lambda) {
	fn, known := r.functions[function]
	if !known {
		unbuilt(r.spec, "route "+route.Key()+": function "+string(function))
	}
	if fn == nil {
		return
	}
	opts := &awsapigateway.MethodOptions{RequestValidator: r.validator, ApiKeyRequired: jsii.Bool(route.APIKeyRequired)}
	if route.Authorizer != "" {
		opts.Authorizer = r.authorize(route)
		opts.AuthorizationType = awsapigateway.AuthorizationType_CUSTOM
	}
	if params := route.PathParameters(); len(params) > 0 {
		required := map[string]*bool{}
		for _, name := range params {
			required["method.request.path."+name] = jsii.Bool(true)
		}
		opts.RequestParameters = &required
	}
	r.resource(route.Path).AddMethod(jsii.String(route.Method), r.integrate(function), opts)
}

// addGatewayResponses makes API Gateway's own refusals problem+json.
func addGatewayResponses(rest awsapigateway.RestApi, spec edgespec.API) {
	for _, g := range spec.GatewayResponses {
		id, ok := gatewayResponseIDs[g.Type]
		if !ok {
			id = g.Type
		}
		status := strconv.Itoa(g.Status)
		rest.AddGatewayResponse(jsii.String("Problem"+id), &awsapigateway.GatewayResponseOptions{
			Type:       awsapigateway.ResponseType_Of(jsii.String(g.Type)),
			StatusCode: jsii.String(status),
			ResponseHeaders: &map[string]*string{
				"Content-Type": jsii.String("'" + apigw.ContentTypeProblem + "'"),
			},
			Templates: &map[string]*string{
				"application/json": jsii.String(`{"type":"` + ProblemBase + g.Slug + `","title":"` + g.Title +
					`","status":` + status + `,"detail":"` + g.Detail + `","instance":"$context.path"}`),
			},
		})
	}
}

// addUsagePlan adds the spec's usage plan, if it has one.
func addUsagePlan(rest awsapigateway.RestApi, spec edgespec.API) awsapigateway.UsagePlan {
	u := spec.UsagePlan
	if u == nil {
		return nil
	}
	if u.QuotaPeriod != edgespec.QuotaPerDay {
		unbuilt(spec, "quota period "+string(u.QuotaPeriod))
	}
	return rest.AddUsagePlan(jsii.String("UsagePlan"), &awsapigateway.UsagePlanProps{
		Description: jsii.String(u.Description),
		Throttle: &awsapigateway.ThrottleSettings{
			RateLimit:  jsii.Number(u.Throttle.RateLimit),
			BurstLimit: jsii.Number(float64(u.Throttle.BurstLimit)),
		},
		Quota: &awsapigateway.QuotaSettings{
			Limit:  jsii.Number(float64(u.Quota)),
			Period: awsapigateway.Period_DAY,
		},
		ApiStages: &[]*awsapigateway.UsagePlanPerApiStage{{Api: rest, Stage: rest.DeploymentStage()}},
	})
}

// mustBuild panics unless spec is a valid description of kind.
func mustBuild(spec edgespec.API, kind edgespec.APIKind) {
	if err := spec.Validate(); err != nil {
		panic(err)
	}
	if spec.Kind != kind {
		unbuilt(spec, "kind "+string(spec.Kind))
	}
}

// unbuilt panics: the description has a part this package does not build.
func unbuilt(spec edgespec.API, what string) {
	panic(fmt.Sprintf("infra/api: API %q: %s is not built", spec.Name, what))
}

// constructName is a function's name as a construct ID: "Redirect".
func constructName(fn string) string {
	if fn == "" {
		return fn
	}
	return strings.ToUpper(fn[:1]) + fn[1:]
}

// addProblemsPage answers GET /v1/problems, the page every problem type
// refers to (apigw.ProblemsPage, from docs/problems.md), from API Gateway
// itself: a mock integration whose response template is the page, so no
// function runs and no API key is needed to read what an error means.
// The page holds no '#' or '$', which the template language (VTL) would
// read as syntax; shared/apigw's tests keep it so.
func addProblemsPage(res awsapigateway.IResource) {
	page := jsii.String(apigw.ProblemsPage())
	res.AddMethod(jsii.String("GET"),
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

// addHealth answers GET /v1/health from API Gateway itself: an AWS
// integration reads one item of the links table's replica in this Region
// (GetItem of the reserved alias "health", which no link can hold,
// eventually consistent: half a read unit) and answers 200, or 503 when
// DynamoDB answers an error (API Gateway itself answers 504 when it does not
// answer). No function runs, nothing is written, no API key is needed: Route
// 53's health checkers call it about once a second in all (docs/deploy.md,
// "Failover"), so it must cost next to nothing and say whether this Region
// can serve /v1.
func addHealth(scope constructs.Construct, res awsapigateway.IResource, table awsdynamodb.ITableV2) {
	role := awsiam.NewRole(scope, jsii.String("HealthRole"), &awsiam.RoleProps{
		AssumedBy:   awsiam.NewServicePrincipal(jsii.String("apigateway.amazonaws.com"), nil),
		Description: jsii.String("GET /v1/health: one GetItem on the links table's replica in this Region"),
	})
	table.Grant(role, jsii.String("dynamodb:GetItem"))
	stack := awscdk.Stack_Of(scope)
	request := `{"TableName":"` + *table.TableName() + `","Key":{"` + tableschema.AttrCode + `":{"S":"health"}},` +
		`"ProjectionExpression":"` + tableschema.AttrCode + `","ConsistentRead":false}`
	noStore := map[string]*string{"method.response.header.Cache-Control": jsii.String("'no-store'")}
	res.AddMethod(jsii.String("GET"),
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
