package infra

import (
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"
)

// Suppression is one accepted cdk-nag finding: the rule, the findings it
// covers (empty: all of the rule's findings on the target) and why the
// rule does not fit this service.
type Suppression struct {
	Rule      string
	AppliesTo []string // regular expressions over the finding, as cdk-nag writes them
	Reason    string
	// Where: resources of these kinds, in the stacks that have them.
	Where string
}

// Suppressions are every suppression the app applies, for review in one
// place (and in the tests, which check each has a reason).
var Suppressions = []Suppression{
	{Rule: "AwsSolutions-APIG1", Where: "redirect HTTP API stages",
		Reason: "Every redirect request is already logged, hit or miss, by CloudFront real-time logs (100 % sampling) " +
			"into the click stream; origin access logs would duplicate the misses at CloudWatch Logs ingestion prices " +
			"(docs/cost-model.md). Handler errors are in the function's own log group."},
	{Rule: "AwsSolutions-APIG4", Where: "/v1 REST API methods",
		Reason: "Every method with a function behind it runs the /v1 Lambda authorizer (an API key from the keys table or a " +
			"signed-in user's token) before any function. GET /v1/problems is public on purpose: a static " +
			"page (mock integration, no function, no data) explaining the problem types every error refers to. GET /v1/health " +
			"is public on purpose: Route 53 health checkers carry no key; it runs no function and answers only ok or unavailable " +
			"from one read of a reserved item."},
	{Rule: "AwsSolutions-COG4", Where: "/v1 REST API methods",
		Reason: "One Lambda authorizer takes both credentials /v1 accepts, API keys and the identity provider's tokens (checked " +
			"for issuer, audience, expiry, signature and token use as Cognito documents); a Cognito user pool authorizer " +
			"would refuse every API key."},
	{Rule: "AwsSolutions-APIG2", Where: "/v1 REST API",
		Reason: "Path parameters are validated by API Gateway (request validator); bodies are validated by the handlers so " +
			"that every error is an RFC 9457 problem+json naming the field, which API Gateway's body validation cannot produce."},
	{Rule: "AwsSolutions-IAM4", AppliesTo: []string{`^Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs$`},
		Where: "API Gateway account CloudWatch role",
		Reason: "API Gateway writes execution and access logs only through the account-level role, and AWS documents this managed " +
			"policy for it; it grants log writes only."},
	{Rule: "AwsSolutions-SMG4", Where: "origin secret",
		Reason: "Secrets Manager's automatic rotation would change the value CloudFront must send without updating the " +
			"distribution, whose origin header is resolved only when the edge stack deploys; rotation is the documented " +
			"two-step (new version, then the edge stack pinned to it, both accepted meanwhile: docs/deploy.md)."},
	{Rule: "AwsSolutions-SQS3", Where: "stream consumers' on-failure queues",
		Reason: "These queues are themselves the dead letters: the on-failure destinations of the Lambda event source mappings. " +
			"cdk-nag recognises only queues named in another queue's redrive policy. Each has a depth alarm."},
	{Rule: "AwsSolutions-IAM5", AppliesTo: []string{`^Resource::\*$`, `^Resource::<ReclaimFunction[0-9A-F]+\.Arn>:\*$`},
		Where: "reclaim state machine role",
		Reason: "X-Ray tracing (xray:PutTraceSegments, PutTelemetryRecords, GetSampling*) and CloudWatch Logs delivery " +
			"(logs:CreateLogDelivery and friends) have no resource-level permissions, so AWS requires \"*\"; " +
			"<reclaim function ARN>:* is that one function's versions and aliases (lambda:InvokeFunction), nothing else."},
	{Rule: "AwsSolutions-IAM4", AppliesTo: []string{`^Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole$`},
		Where: "CDK's AwsCustomResource provider (non-primary regions)",
		Reason: "CDK's singleton provider that reads the local replica's stream ARN (DescribeTable) at deploy time; the managed " +
			"policy only lets it write its own logs. A replica's stream ARN is not a template attribute."},
	{Rule: "AwsSolutions-IAM4", AppliesTo: []string{`^Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole$`},
		Where: "CDK's AwsCustomResource provider (edge parameter writer)",
		Reason: "CDK's singleton provider that writes the distribution's ID and domain into the edge parameter of every region " +
			"at deploy time (PutParameter and DeleteParameter on exactly those parameters); the managed policy only lets it " +
			"write its own logs. It runs only during deployments."},
	{Rule: "AwsSolutions-APIG3", Where: "/v1 REST API",
		Reason: "(Warning.) /v1 answers only callers its authorizer allows, throttled by the usage plan; the optional " +
			"WAF web ACL (context waf) sits on the CloudFront distribution in front of it, and a second ACL on the stage " +
			"would bill every request twice."},
	{Rule: "AwsSolutions-CFR1", Where: "distribution",
		Reason: "(Warning.) Short links are followed worldwide; restricting countries is an operator's decision, " +
			"not a default of the product."},
	{Rule: "AwsSolutions-CFR2", Where: "distribution with WAF switched off",
		Reason: "(Warning.) Off by default (context waf=false): a web ACL bills every viewer request, 0.6x the CloudFront " +
			"request fee at the seed load (docs/cost-model.md). Enumeration is met at the origin instead, by a budget of " +
			"unknown codes per viewer address that only misses pay for, and percent-encoded paths by a CloudFront Function " +
			"(docs/codes.md, \"Enumeration: the miss budget\"; docs/deploy.md, context waf)."},
	{Rule: "AwsSolutions-CFR3", Where: "distribution",
		Reason: "Every viewer request is logged by real-time logs (100 % sampling) to the click stream; standard logs to S3 " +
			"would duplicate them."},
	{Rule: "AwsSolutions-CFR4", Where: "distribution without a custom domain",
		Reason: "Without a custom domain the distribution serves *.cloudfront.net with CloudFront's default certificate, whose " +
			"minimum protocol CloudFront fixes; with domainName and certificateArn the stack sets TLSv1.2_2021."},
	{Rule: "AwsSolutions-S1", Where: "console bucket",
		Reason: "The bucket holds only the console's public build (HTML, JS, CSS from the repository) and is read only by " +
			"CloudFront through an origin access control; viewer requests are already in the distribution's real-time " +
			"log, and S3 server access logs would need a second bucket for no new information."},
	{Rule: "AwsSolutions-IAM4", AppliesTo: []string{`^Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole$`},
		Where: "CDK's BucketDeployment provider",
		Reason: "CDK's singleton Lambda that copies the console's build into its bucket at deploy time (it needs a Lambda); " +
			"the managed policy only lets it write its own logs."},
	{Rule: "AwsSolutions-IAM5", AppliesTo: []string{
		`^Action::s3:(Abort|DeleteObject|GetBucket|GetObject|List)\*$`,
		`^Resource::<ConsoleBucket[0-9A-F]+\.Arn>/\*$`,
		`^Resource::arn:(aws|<AWS::Partition>):s3:::cdk-[a-z0-9]+-assets-.+/\*$`},
		Where: "CDK's BucketDeployment provider",
		Reason: "CDK's grantRead on the bootstrap asset bucket and grantReadWrite on the console bucket, made by the " +
			"BucketDeployment construct: it syncs a whole key prefix, so it needs object-level wildcards on exactly those two buckets."},
	{Rule: "AwsSolutions-S1", Where: "audit archive's access log bucket",
		Reason: "This bucket is the server access log destination of the audit archive bucket; logging it into another " +
			"bucket would only move the question there. Only S3's log delivery writes it, and its objects expire after a year."},
	{Rule: "AwsSolutions-IAM5", AppliesTo: []string{`^Resource::<DataAuditArchiveBucket[0-9A-F]+\.Arn>/audit/\*$`,
		`^Resource::\{"Fn::GetStackOutput":.*AuditArchiveBucket.*\}/audit/\*$`, `^Resource::.*/audit/\*$`},
		Where: "audit archive function",
		Reason: "s3:PutObject on the archive bucket's audit/ prefix only: each batch of entries is one new object under a key " +
			"made from its stream sequence numbers, so no fixed object ARN can be named. The role has no read, no delete, no " +
			"retention change and no governance bypass; Object Lock keeps every version it writes."},
	{Rule: "AwsSolutions-COG8", Where: "sign-in user pool",
		Reason: "The Plus feature plan (threat protection) bills every monthly active user with no free tier, where Essentials " +
			"covers the first 10,000; sign-in is for the people who manage links, most through the company's identity " +
			"provider, which does its own risk detection. The pool's own users need TOTP MFA and a 12-character password " +
			"policy, self sign-up is off. Plus is an operator's choice for the pool (docs/identity.md)."},
	{Rule: "AwsSolutions-L1", Where: "CDK's BucketDeployment provider",
		Reason: "The runtime of CDK's BucketDeployment provider is chosen by aws-cdk-lib (it runs the AWS CLI from a layer) and " +
			"moves with CDK upgrades; it runs only during deployments."},
}

func suppression(rule, where string) *cdknag.NagPackSuppression {
	for _, s := range Suppressions {
		if s.Rule == rule && s.Where == where {
			out := &cdknag.NagPackSuppression{Id: jsii.String(s.Rule), Reason: jsii.String(s.Reason)}
			if len(s.AppliesTo) > 0 {
				applies := make([]any, len(s.AppliesTo))
				for i, re := range s.AppliesTo {
					applies[i] = &cdknag.RegexAppliesTo{Regex: jsii.String("/" + re + "/")}
				}
				out.AppliesTo = &applies
			}
			return out
		}
	}
	panic("no suppression " + rule + " for " + where)
}

func suppress(target any, rules ...*cdknag.NagPackSuppression) {
	cdknag.NagSuppressions_AddResourceSuppressions(target, &rules, jsii.Bool(true))
}

// addNagChecks runs cdk-nag's AWS Solutions rules on every stack during
// synthesis (an unsuppressed error fails `cdk synth`) and applies the
// suppressions above to exactly the resources they are about.
func addNagChecks(app awscdk.App, s *Stacks) {
	awscdk.Aspects_Of(app).Add(cdknag.NewAwsSolutionsChecks(&cdknag.NagPackProps{Verbose: jsii.Bool(true)}), nil)
	for _, r := range s.Regional {
		suppress(r.Redirect.API,
			suppression("AwsSolutions-APIG1", "redirect HTTP API stages"))
		suppress(r.TTLStream.DeadLetters, suppression("AwsSolutions-SQS3", "stream consumers' on-failure queues"))
		if r.Management != nil {
			suppress(r.Management.API,
				suppression("AwsSolutions-APIG4", "/v1 REST API methods"),
				suppression("AwsSolutions-COG4", "/v1 REST API methods"),
				suppression("AwsSolutions-APIG2", "/v1 REST API"),
				suppression("AwsSolutions-APIG3", "/v1 REST API"),
				suppression("AwsSolutions-IAM4", "API Gateway account CloudWatch role"))
		}
		if !r.Primary {
			// The singleton provider's path is fixed by CDK.
			if p := r.Stack.Node().TryFindChild(jsii.String(awsCustomResourceProviderID)); p != nil {
				suppress(p, suppression("AwsSolutions-IAM4", "CDK's AwsCustomResource provider (non-primary regions)"))
			}
			continue
		}
		suppress(r.Clicks.Consumer.DeadLetters, suppression("AwsSolutions-SQS3", "stream consumers' on-failure queues"))
		suppress(r.Webhooks.StreamConsumer.DeadLetters, suppression("AwsSolutions-SQS3", "stream consumers' on-failure queues"))
		if r.AuditArchive != nil {
			suppress(r.AuditArchive.DeadLetters, suppression("AwsSolutions-SQS3", "stream consumers' on-failure queues"))
			suppress(r.Functions["auditarchive"].Role, suppression("AwsSolutions-IAM5", "audit archive function"))
		}
		suppress(r.Reclaim.StateMachine.Role(),
			suppression("AwsSolutions-IAM5", "reclaim state machine role"))
	}
	suppress(s.Data.OriginSecret, suppression("AwsSolutions-SMG4", "origin secret"))
	if a := s.Data.AuditArchive; a != nil {
		suppress(a.AccessLogs, suppression("AwsSolutions-S1", "audit archive's access log bucket"))
	}
	if s.Data.Auth != nil {
		suppress(s.Data.Auth.Pool, suppression("AwsSolutions-COG8", "sign-in user pool"))
	}
	dist := []*cdknag.NagPackSuppression{
		suppression("AwsSolutions-CFR1", "distribution"),
		suppression("AwsSolutions-CFR3", "distribution"),
	}
	if s.Edge.Edge.WebACL == nil {
		dist = append(dist, suppression("AwsSolutions-CFR2", "distribution with WAF switched off"))
	}
	if s.Edge.CustomDomain == "" {
		dist = append(dist, suppression("AwsSolutions-CFR4", "distribution without a custom domain"))
	}
	suppress(s.Edge.Edge.Distribution, dist...)
	suppress(s.Edge.Console.Bucket, suppression("AwsSolutions-S1", "console bucket"))
	if p := s.Edge.Stack.Node().TryFindChild(jsii.String(awsCustomResourceProviderID)); p != nil {
		suppress(p, suppression("AwsSolutions-IAM4", "CDK's AwsCustomResource provider (edge parameter writer)"))
	}
	// The provider is a singleton at the stack's root, its ID fixed by CDK.
	for _, child := range *s.Edge.Stack.Node().Children() {
		if strings.HasPrefix(*child.Node().Id(), "Custom::CDKBucketDeployment") {
			suppress(child,
				suppression("AwsSolutions-IAM4", "CDK's BucketDeployment provider"),
				suppression("AwsSolutions-IAM5", "CDK's BucketDeployment provider"),
				suppression("AwsSolutions-L1", "CDK's BucketDeployment provider"))
		}
	}
}

// awsCustomResourceProviderID is the construct ID CDK gives the singleton
// Lambda behind every AwsCustomResource in a stack.
const awsCustomResourceProviderID = "AWS679f53fac002430cb0da5b7982bd2287"
