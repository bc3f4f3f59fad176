package auditarchive

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/shortlink-dev/shortener/infra/streamconsumer"
)

// KeyPrefix is where the function writes (auditarchivefn.KeyPrefix, which
// a test holds this to): its role may put objects under it only.
const KeyPrefix = "audit/"

// Modes of the bucket's default retention.
const (
	Compliance = "COMPLIANCE"
	Governance = "GOVERNANCE"
)

// Props configure the bucket's default retention.
type Props struct {
	// Mode is Compliance (no one, the root user included, can delete a
	// version or shorten its lock until it expires) or Governance (a
	// caller with s3:BypassGovernanceRetention can).
	Mode string
	// RetentionDays is how long every new version is locked.
	RetentionDays int
}

// Archive is the bucket and its access log bucket.
type Archive struct {
	// Construct is the scope of its resources. (A named field, not an
	// embedded one: a Go struct embedding a construct is not a jsii object.)
	Construct  constructs.Construct
	Bucket     awss3.Bucket
	AccessLogs awss3.Bucket
}

// accessLogDays is how long the archive's server access logs are kept:
// who read, tried to delete or re-lock an object, for a year.
const accessLogDays = 365

// New creates the bucket with Object Lock (and so versioning, which such a
// bucket cannot suspend), p's default retention, all public access
// blocked, TLS required, SSE-KMS with the AWS managed key (aws/s3, whose
// policy lets this account's principals use it through S3, so the writer
// needs no KMS grant) and a bucket key, EventBridge notifications (an
// operator can match s3 Object Deleted events, the delete markers a
// DeleteObject without a version adds), server access logs, and a
// lifecycle rule that only aborts unfinished multipart uploads (never an
// object). Both buckets are retained when the stack is deleted.
func New(scope constructs.Construct, id string, p Props) *Archive {
	c := constructs.NewConstruct(scope, jsii.String(id))
	// S3 delivers server access logs only to a bucket with SSE-S3
	// (https://docs.aws.amazon.com/AmazonS3/latest/userguide/enable-server-access-logging.html)
	// and without Object Lock
	// (https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock-managing.html),
	// so the log bucket has neither.
	logs := awss3.NewBucket(c, jsii.String("AccessLogs"), &awss3.BucketProps{
		BlockPublicAccess: awss3.BlockPublicAccess_BLOCK_ALL(),
		Encryption:        awss3.BucketEncryption_S3_MANAGED,
		EnforceSSL:        jsii.Bool(true),
		ObjectOwnership:   awss3.ObjectOwnership_BUCKET_OWNER_ENFORCED,
		Versioned:         jsii.Bool(true),
		RemovalPolicy:     awscdk.RemovalPolicy_RETAIN,
		LifecycleRules: &[]*awss3.LifecycleRule{{
			Id:                          jsii.String("expire-access-logs"),
			Expiration:                  awscdk.Duration_Days(jsii.Number(accessLogDays)),
			NoncurrentVersionExpiration: awscdk.Duration_Days(jsii.Number(30)),
		}},
	})
	retention := awss3.ObjectLockRetention_Compliance(awscdk.Duration_Days(jsii.Number(float64(p.RetentionDays))))
	if p.Mode == Governance {
		retention = awss3.ObjectLockRetention_Governance(awscdk.Duration_Days(jsii.Number(float64(p.RetentionDays))))
	}
	bucket := awss3.NewBucket(c, jsii.String("Bucket"), &awss3.BucketProps{
		ObjectLockEnabled:          jsii.Bool(true),
		ObjectLockDefaultRetention: retention,
		Versioned:                  jsii.Bool(true),
		BlockPublicAccess:          awss3.BlockPublicAccess_BLOCK_ALL(),
		Encryption:                 awss3.BucketEncryption_KMS_MANAGED,
		BucketKeyEnabled:           jsii.Bool(true),
		EnforceSSL:                 jsii.Bool(true),
		ObjectOwnership:            awss3.ObjectOwnership_BUCKET_OWNER_ENFORCED,
		ServerAccessLogsBucket:     logs,
		ServerAccessLogsPrefix:     jsii.String("archive/"),
		RemovalPolicy:              awscdk.RemovalPolicy_RETAIN,
		LifecycleRules: &[]*awss3.LifecycleRule{{
			// The function makes single PutObject calls; parts of an
			// upload someone else began and left would be billed for ever.
			Id:                                  jsii.String("abort-incomplete-multipart-uploads"),
			AbortIncompleteMultipartUploadAfter: awscdk.Duration_Days(jsii.Number(1)),
		}},
	})
	// EventBridge notifications set on the bucket resource itself, which
	// CloudFormation takes: CDK's EventBridgeEnabled would add a custom
	// resource with a Lambda function of its own to set them.
	bucket.Node().DefaultChild().(awss3.CfnBucket).AddPropertyOverride(
		jsii.String("NotificationConfiguration.EventBridgeConfiguration.EventBridgeEnabled"), true)
	return &Archive{Construct: c, Bucket: bucket, AccessLogs: logs}
}

// GrantPut lets grantee put objects under KeyPrefix: s3:PutObject and
// nothing else (no read, no delete, no retention or legal hold change, no
// bypass of a GOVERNANCE lock). Object Lock needs no further permission
// for a default retention to apply.
func (a *Archive) GrantPut(grantee awsiam.IGrantable) {
	grantee.GrantPrincipal().AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:   jsii.Strings("s3:PutObject"),
		Resources: jsii.Strings(*a.Bucket.ArnForObjects(jsii.String(KeyPrefix + "*"))),
	}))
}

// ConsumerProps attach the archive's function to the audit table's stream.
type ConsumerProps struct {
	Function awslambda.IFunction
	// Audit is the audit table (the primary Region's replica) with its
	// stream ARN.
	Audit awsdynamodb.ITable
}

// NewConsumer maps the audit table's stream to the function, as the other
// stream consumers are (streamconsumer): partial batch responses,
// bisection, an SQS on-failure destination. Up to 1,000 records or 10 s
// make one object, so a busy log writes a few objects a minute rather than
// one per entry (S3 bills each PUT). A batch is retried up to 100 times
// before it goes to the on-failure queue. No maximum record age: the
// mapping starts at the stream's oldest record (TRIM_HORIZON), up to 24
// hours old when the table already had a stream, and those entries are to
// be archived, not given up.
func NewConsumer(scope constructs.Construct, id string, p ConsumerProps) *streamconsumer.Consumer {
	return streamconsumer.New(scope, id, streamconsumer.Props{
		Function:         p.Function,
		DynamoTable:      p.Audit,
		BatchSize:        1000,
		MaxBatchingDelay: awscdk.Duration_Seconds(jsii.Number(10)),
		RetryAttempts:    100,
	})
}
