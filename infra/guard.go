package infra

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// GuardSuppression is one accepted CloudFormation Guard finding: a rule of
// AWS Control Tower's proactive controls (the ones `make synth` checks with
// cfn-guard, scripts/guard.sh), on resources of one type, and why it does
// not fit this service. It is written into each resource's metadata as
// `guard: SuppressedRules: [Rule]`, which infra/cfnguard honours.
type GuardSuppression struct {
	Rule         string // the Guard rule's name
	Control      string // the control it implements (docs: https://docs.aws.amazon.com/controltower/latest/userguide/proactive-controls.html)
	ResourceType string // the CloudFormation type the rule checks
	Where        string
	Reason       string
}

// GuardSuppressions are every Guard suppression the app applies, for
// review in one place (and in the tests, which check each has a reason
// and is applied). The findings worth fixing were fixed instead: the alarm
// topics' keys deny grants to anything but AWS services (CT.KMS.PR.3).
var GuardSuppressions = []GuardSuppression{
	{Rule: "lambda_inside_vpc_check", Control: "CT.LAMBDA.PR.3", ResourceType: "AWS::Lambda::Function", Where: "functions",
		Reason: "The functions reach only regional AWS APIs (DynamoDB, Secrets Manager, CloudFront) and no private resource; " +
			"a VPC would add NAT gateways or an interface endpoint per service and Availability Zone in every region " +
			"(a fixed monthly cost) and network setup to cold starts, and would restrict nothing the functions' " +
			"least-privilege roles do not already restrict."},
	{Rule: "lambda_function_public_access_prohibited_check", Control: "CT.LAMBDA.PR.2", ResourceType: "AWS::Lambda::Permission",
		Where: "API Gateway invoke permissions",
		Reason: "Each permission lets only API Gateway (apigateway.amazonaws.com) invoke, with SourceArn set to this API's " +
			"execute-api ARN (account, region, API ID, method and path; for the /v1 authorizer, its authorizer's ARN). The rule accepts a SourceArn only as a literal " +
			"string or a reference to a resource, not the Fn::Join CDK writes for it."},
	{Rule: "cloudwatch_log_group_encrypted_check", Control: "CT.CLOUDWATCH.PR.3", ResourceType: "AWS::Logs::LogGroup", Where: "log groups",
		Reason: "CloudWatch Logs encrypts every log group at rest with service-managed keys " +
			"(https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/encrypt-log-data-kms.html). A customer managed " +
			"key would add a key per region and a key policy to keep in step with every log group, for logs that hold " +
			"no secret: API keys and the origin secret are never logged."},
	{Rule: "cloudwatch_log_group_retention_period_check", Control: "CT.CLOUDWATCH.PR.2", ResourceType: "AWS::Logs::LogGroup",
		Where: "log groups kept under a year",
		Reason: "Retention is the operator's choice (context logRetentionDays, 30 days by default: docs/deploy.md). The logs " +
			"are for debugging; what must last is in DynamoDB (links, click counts, point-in-time recovery) and every " +
			"redirect is recorded by CloudFront's real-time logs. With logRetentionDays of 365 or more, nothing is suppressed."},
	{Rule: "api_gw_v2_access_logs_enabled_check", Control: "CT.APIGATEWAY.PR.4", ResourceType: "AWS::ApiGatewayV2::Stage",
		Where: "redirect HTTP API stages",
		Reason: "Every redirect request is already logged, hit or miss, by CloudFront real-time logs (100 % sampling) " +
			"into the click stream; origin access logs would duplicate the misses at CloudWatch Logs ingestion prices " +
			"(docs/cost-model.md). Handler errors are in the function's own log group."},
	{Rule: "api_gw_xray_enabled_check", Control: "CT.APIGATEWAY.PR.2", ResourceType: "AWS::ApiGateway::Stage", Where: "/v1 REST API stage",
		Reason: "The functions behind /v1 do not emit X-Ray segments, so a trace would show only API Gateway's own span, " +
			"which the stage's JSON access log (latency, integration latency, status per request) and its CloudWatch " +
			"metrics already give, while X-Ray bills every sampled request."},
	{Rule: "sqs_dlq_check", Control: "CT.SQS.PR.1", ResourceType: "AWS::SQS::Queue", Where: "stream consumers' on-failure queues",
		Reason: "These queues are themselves the dead letters: the on-failure destinations of the Lambda event source " +
			"mappings, which hold a failed batch's shard and sequence numbers. A queue behind them would only move the " +
			"same message once more. Each has a depth alarm."},
	{Rule: "sqs_dlq_check", Control: "CT.SQS.PR.1", ResourceType: "AWS::SQS::Queue", Where: "webhook deliveries' dead letters",
		Reason: "This queue is itself the dead-letter queue of the webhook deliveries queue (which has a redrive policy to " +
			"it): deliveries whose retries are spent or that failed too often. A queue behind it would only move the same " +
			"message once more. It has a depth alarm (infra/webhooks)."},
	{Rule: "cloudfront_access_logs_enabled_check", Control: "CT.CLOUDFRONT.PR.5", ResourceType: "AWS::CloudFront::Distribution",
		Where: "distribution",
		Reason: "Every viewer request is logged by real-time logs (100 % sampling) to the click stream; standard logs to S3 " +
			"would duplicate them."},
	{Rule: "cloudfront_default_root_object_configured_check", Control: "CT.CLOUDFRONT.PR.1", ResourceType: "AWS::CloudFront::Distribution",
		Where: "distribution",
		Reason: "A default root object makes CloudFront ask the origin for an object name instead of /; the origins here " +
			"are the redirect and /v1 APIs, which serve no such object, so / keeps reaching the redirect origin like any path."},
	{Rule: "cloudfront_custom_ssl_certificate_check", Control: "CT.CLOUDFRONT.PR.6", ResourceType: "AWS::CloudFront::Distribution",
		Where: "distribution without a custom domain",
		Reason: "Without a custom domain (context domainName) the distribution serves *.cloudfront.net, which only " +
			"CloudFront's default certificate covers; with domainName and certificateArn the stack uses that ACM certificate."},
	{Rule: "cloudfront_sni_enabled_check", Control: "CT.CLOUDFRONT.PR.7", ResourceType: "AWS::CloudFront::Distribution",
		Where: "distribution without a custom domain",
		Reason: "The SSL support method applies to a custom certificate only; without a custom domain CloudFront's default " +
			"certificate serves *.cloudfront.net. With domainName and certificateArn the stack sets sni-only."},
	{Rule: "cloudfront_security_policy_check", Control: "CT.CLOUDFRONT.PR.9", ResourceType: "AWS::CloudFront::Distribution",
		Where: "distribution without a custom domain",
		Reason: "Without a custom domain the distribution serves *.cloudfront.net with CloudFront's default certificate, " +
			"whose minimum protocol CloudFront fixes; with domainName and certificateArn the stack sets TLSv1.2_2021."},
	// The web console's bucket: the console's build output, public by
	// nature (every signed-in browser downloads it), read only by the
	// distribution through an origin access control, and rewritten whole by
	// every deploy (infra/webconsole).
	{Rule: "s3_bucket_default_encryption_kms_check", Control: "CT.S3.PR.10", ResourceType: "AWS::S3::Bucket", Where: "console bucket",
		Reason: "The objects are the console's public HTML, JavaScript and CSS; S3 encrypts them at rest with S3-managed " +
			"keys. A KMS key would add a key policy granting the distribution's origin access control, and KMS requests " +
			"on every cache miss, to protect nothing secret."},
	{Rule: "s3_bucket_logging_enabled_check", Control: "CT.S3.PR.2", ResourceType: "AWS::S3::Bucket", Where: "console bucket",
		Reason: "Only the distribution reads the bucket (origin access control) and only the stack's deployment writes it; " +
			"the objects are the same for every reader, so a server access log would record nothing worth auditing, at " +
			"S3 request and storage prices."},
	{Rule: "s3_bucket_object_lock_enabled_check", Control: "CT.S3.PR.9", ResourceType: "AWS::S3::Bucket", Where: "console bucket",
		Reason: "Each deploy replaces the build and prunes old files; Object Lock would stop the deployment from removing " +
			"them. The source of record is the repository, from which `make build` rebuilds the same output."},
	{Rule: "s3_bucket_versioning_enabled_check", Control: "CT.S3.PR.11", ResourceType: "AWS::S3::Bucket", Where: "console bucket",
		Reason: "The build is reproducible from the repository; versioning would keep every old bundle of every deploy " +
			"forever (hashed names change each build) for no recovery a redeploy does not give."},
	{Rule: "s3_event_notifications_enabled_check", Control: "CT.S3.PR.4", ResourceType: "AWS::S3::Bucket", Where: "console bucket",
		Reason: "Nothing reacts to changes in the bucket: its only writer is the stack's own deployment."},
	{Rule: "s3_lifecycle_policy_check", Control: "CT.S3.PR.6", ResourceType: "AWS::S3::Bucket", Where: "console bucket",
		Reason: "Each deployment prunes what the build no longer has; a lifecycle rule would have nothing to expire, or " +
			"would expire files the console still serves."},
	// The audit archive's access log bucket (infra/auditarchive): the
	// archive bucket itself meets every S3 control.
	{Rule: "s3_bucket_default_encryption_kms_check", Control: "CT.S3.PR.10", ResourceType: "AWS::S3::Bucket", Where: "audit archive's access log bucket",
		Reason: "S3 delivers server access logs only to a bucket encrypted with SSE-S3, not SSE-KMS " +
			"(https://docs.aws.amazon.com/AmazonS3/latest/userguide/enable-server-access-logging.html); the logs hold request " +
			"lines, no audit entry."},
	{Rule: "s3_bucket_logging_enabled_check", Control: "CT.S3.PR.2", ResourceType: "AWS::S3::Bucket", Where: "audit archive's access log bucket",
		Reason: "It is the audit archive bucket's server access log destination; logging it into another bucket would only " +
			"move the question there. Only S3's log delivery writes it."},
	{Rule: "s3_bucket_object_lock_enabled_check", Control: "CT.S3.PR.9", ResourceType: "AWS::S3::Bucket", Where: "audit archive's access log bucket",
		Reason: "A bucket with Object Lock cannot be a server access log destination " +
			"(https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock-managing.html); this one takes the archive " +
			"bucket's logs, and the archive bucket itself has Object Lock."},
	{Rule: "s3_event_notifications_enabled_check", Control: "CT.S3.PR.4", ResourceType: "AWS::S3::Bucket", Where: "audit archive's access log bucket",
		Reason: "Nothing reacts to log deliveries; the archive bucket itself sends its events to EventBridge."},
	{Rule: "lambda_inside_vpc_check", Control: "CT.LAMBDA.PR.3", ResourceType: "AWS::Lambda::Function", Where: "console deployment function",
		Reason: "CDK's BucketDeployment function runs only during a deploy, copying the console's build from the CDK " +
			"assets bucket to the console bucket; it reaches S3 alone, and a VPC would need an S3 endpoint for no gain."},
	{Rule: "cloudwatch_log_group_encrypted_check", Control: "CT.CLOUDWATCH.PR.3", ResourceType: "AWS::Logs::LogGroup", Where: "console deployment function",
		Reason: "The deployment function logs the files it copies, nothing secret; CloudWatch Logs encrypts it at rest " +
			"with service-managed keys (https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/encrypt-log-data-kms.html)."},
	{Rule: "lambda_inside_vpc_check", Control: "CT.LAMBDA.PR.3", ResourceType: "AWS::Lambda::Function", Where: "edge parameter writer function",
		Reason: "CDK's AwsCustomResource function runs only during a deploy of the edge stack, writing the distribution's ID " +
			"and domain into one SSM parameter per region through the public SSM endpoints; a VPC would need an SSM " +
			"endpoint in it for no gain."},
	{Rule: "cloudwatch_log_group_encrypted_check", Control: "CT.CLOUDWATCH.PR.3", ResourceType: "AWS::Logs::LogGroup", Where: "edge parameter writer function",
		Reason: "The writer logs the SDK calls it makes (a distribution ID and host name, nothing secret); CloudWatch Logs " +
			"encrypts it at rest with service-managed keys (https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/encrypt-log-data-kms.html)."},
}

// guardMetadataKey is the resource metadata key cfn-guard's rule
// suppressions live under.
const guardMetadataKey = "guard"

// addGuardSuppressions applies the suppressions above to exactly the
// resources they are about.
func addGuardSuppressions(cfg Config, s *Stacks) {
	for _, r := range s.Regional {
		guardSuppress(r.Stack, "lambda_inside_vpc_check", "functions")
		guardSuppress(r.Stack, "cloudwatch_log_group_encrypted_check", "log groups")
		if cfg.LogRetentionDays < 365 {
			guardSuppress(r.Stack, "cloudwatch_log_group_retention_period_check", "log groups kept under a year")
		}
		guardSuppress(r.Redirect.API, "lambda_function_public_access_prohibited_check", "API Gateway invoke permissions")
		guardSuppress(r.Redirect.API, "api_gw_v2_access_logs_enabled_check", "redirect HTTP API stages")
		guardSuppress(r.TTLStream.DeadLetters, "sqs_dlq_check", "stream consumers' on-failure queues")
		if r.Management != nil {
			guardSuppress(r.Management.API, "lambda_function_public_access_prohibited_check", "API Gateway invoke permissions")
			// The authorizer's invoke permission sits under its function.
			guardSuppress(r.Functions["apiauth"].Fn, "lambda_function_public_access_prohibited_check", "API Gateway invoke permissions")
			guardSuppress(r.Management.API, "api_gw_xray_enabled_check", "/v1 REST API stage")
		}
		if !r.Primary {
			continue
		}
		guardSuppress(r.Clicks.Consumer.DeadLetters, "sqs_dlq_check", "stream consumers' on-failure queues")
		guardSuppress(r.Webhooks.StreamConsumer.DeadLetters, "sqs_dlq_check", "stream consumers' on-failure queues")
		guardSuppress(r.Webhooks.DeadLetters, "sqs_dlq_check", "webhook deliveries' dead letters")
		if r.AuditArchive != nil {
			guardSuppress(r.AuditArchive.DeadLetters, "sqs_dlq_check", "stream consumers' on-failure queues")
		}
	}
	for _, rule := range []string{"s3_bucket_default_encryption_kms_check", "s3_bucket_logging_enabled_check",
		"s3_bucket_object_lock_enabled_check", "s3_bucket_versioning_enabled_check", "s3_event_notifications_enabled_check",
		"s3_lifecycle_policy_check"} {
		guardSuppress(s.Edge.Console.Bucket, rule, "console bucket")
	}
	if a := s.Data.AuditArchive; a != nil {
		for _, rule := range []string{"s3_bucket_default_encryption_kms_check", "s3_bucket_logging_enabled_check",
			"s3_bucket_object_lock_enabled_check", "s3_event_notifications_enabled_check"} {
			guardSuppress(a.AccessLogs, rule, "audit archive's access log bucket")
		}
	}
	// CDK puts the BucketDeployment's function, a singleton, at the stack's root.
	for _, c := range *s.Edge.Stack.Node().Children() {
		if id := *c.Node().Id(); strings.HasPrefix(id, "Custom::CDKBucketDeployment") {
			guardSuppress(c, "lambda_inside_vpc_check", "console deployment function")
			guardSuppress(c, "cloudwatch_log_group_encrypted_check", "console deployment function")
		}
	}
	// CDK puts the AwsCustomResource function, a singleton, at the stack's root.
	if p := s.Edge.Stack.Node().TryFindChild(jsii.String(awsCustomResourceProviderID)); p != nil {
		guardSuppress(p, "lambda_inside_vpc_check", "edge parameter writer function")
		guardSuppress(p, "cloudwatch_log_group_encrypted_check", "edge parameter writer function")
	}
	dist := s.Edge.Edge.Distribution
	guardSuppress(dist, "cloudfront_access_logs_enabled_check", "distribution")
	guardSuppress(dist, "cloudfront_default_root_object_configured_check", "distribution")
	if s.Edge.CustomDomain == "" {
		guardSuppress(dist, "cloudfront_custom_ssl_certificate_check", "distribution without a custom domain")
		guardSuppress(dist, "cloudfront_sni_enabled_check", "distribution without a custom domain")
		guardSuppress(dist, "cloudfront_security_policy_check", "distribution without a custom domain")
	}
}

// guardSuppress adds rule to the guard metadata of every resource of the
// suppression's type in scope. A suppression that finds no such resource
// is a mistake in this file, so it panics like a missing one.
func guardSuppress(scope constructs.IConstruct, rule, where string) {
	i := slices.IndexFunc(GuardSuppressions, func(s GuardSuppression) bool { return s.Rule == rule && s.Where == where })
	if i < 0 {
		panic("no guard suppression " + rule + " for " + where)
	}
	typ := GuardSuppressions[i].ResourceType
	applied := 0
	for _, c := range *scope.Node().FindAll(constructs.ConstructOrder_PREORDER) {
		res, ok := c.(awscdk.CfnResource)
		if !ok || !*awscdk.CfnResource_IsCfnResource(c) || *res.CfnResourceType() != typ {
			continue
		}
		var md struct {
			SuppressedRules []string `json:"SuppressedRules"`
		}
		if raw, err := json.Marshal(res.GetMetadata(jsii.String(guardMetadataKey))); err == nil {
			_ = json.Unmarshal(raw, &md) // absent: null, no rules yet
		}
		if !slices.Contains(md.SuppressedRules, rule) {
			md.SuppressedRules = append(md.SuppressedRules, rule)
		}
		res.AddMetadata(jsii.String(guardMetadataKey), map[string]any{"SuppressedRules": md.SuppressedRules})
		applied++
	}
	if applied == 0 {
		panic(fmt.Sprintf("guard suppression %s for %s: no %s under %s", rule, where, typ, *scope.Node().Path()))
	}
}
