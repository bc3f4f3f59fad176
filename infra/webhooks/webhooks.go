package webhooks

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambdaeventsources"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/shortlink-dev/shortener/infra/streamconsumer"
	"github.com/shortlink-dev/shortener/infra/tables"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// Props configure the webhooks pipeline.
type Props struct {
	// Delivery is the function the queue triggers (functions/webhookdelivery).
	Delivery awslambda.IFunction
	// DeliveryTimeout is Delivery's timeout; the queue's visibility
	// timeout is six times it, as AWS advises for an SQS event source
	// (https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-configure.html).
	DeliveryTimeout awscdk.Duration
	// Stream is the links stream's webhook consumer (functions/webhookstream).
	Stream awslambda.IFunction
	// Links is the links table with its stream ARN.
	Links awsdynamodb.ITable
}

// Webhooks is the table, the queues and the two mappings.
type Webhooks struct {
	// Construct is the scope of its resources. (A named field, not an
	// embedded one: a Go struct embedding a construct is not a jsii object.)
	Construct constructs.Construct
	Table     awsdynamodb.TableV2
	// Queue holds deliveries waiting to be sent; DeadLetters those whose
	// retries are spent or that failed MaxReceiveCount times.
	Queue       awssqs.Queue
	DeadLetters awssqs.Queue
	// StreamConsumer is the links stream mapping, with its on-failure queue.
	StreamConsumer *streamconsumer.Consumer
}

// MaxReceiveCount is how often a message may fail to be handled (a
// DynamoDB or SQS error, not a receiver's answer, which the function
// retries itself) before SQS moves it to the dead-letter queue.
const MaxReceiveCount = 5

// New creates the pipeline.
func New(scope constructs.Construct, id string, p Props) *Webhooks {
	c := constructs.NewConstruct(scope, jsii.String(id))
	table := awsdynamodb.NewTableV2(c, jsii.String("Subscriptions"), tables.WithSchema(tableschema.Webhooks(), &awsdynamodb.TablePropsV2{
		Billing: awsdynamodb.Billing_OnDemand(nil),
		// The items hold signing secrets: encrypted at rest with the AWS
		// managed KMS key (readable only through this account's grants,
		// and logged in CloudTrail), not the AWS owned default.
		Encryption:                       awsdynamodb.TableEncryptionV2_AwsManagedKey(),
		PointInTimeRecoverySpecification: &awsdynamodb.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: jsii.Bool(true)},
		DeletionProtection:               jsii.Bool(true),
		RemovalPolicy:                    awscdk.RemovalPolicy_RETAIN,
	}))
	dlq := awssqs.NewQueue(c, jsii.String("DeadLetters"), &awssqs.QueueProps{
		Encryption:      awssqs.QueueEncryption_SQS_MANAGED,
		EnforceSSL:      jsii.Bool(true),
		RetentionPeriod: awscdk.Duration_Days(jsii.Number(14)),
	})
	queue := awssqs.NewQueue(c, jsii.String("Deliveries"), &awssqs.QueueProps{
		Encryption: awssqs.QueueEncryption_SQS_MANAGED,
		EnforceSSL: jsii.Bool(true),
		// Each retry is a new message; a message lives for one step of
		// the schedule (at most 15 minutes between hops), so four days
		// leave room for a function outage on top.
		RetentionPeriod:   awscdk.Duration_Days(jsii.Number(4)),
		VisibilityTimeout: awscdk.Duration_Seconds(jsii.Number(6 * *p.DeliveryTimeout.ToSeconds(nil))),
		DeadLetterQueue:   &awssqs.DeadLetterQueue{Queue: dlq, MaxReceiveCount: jsii.Number(MaxReceiveCount)},
	})
	p.Delivery.AddEventSource(awslambdaeventsources.NewSqsEventSource(queue, &awslambdaeventsources.SqsEventSourceProps{
		BatchSize:               jsii.Number(10),
		ReportBatchItemFailures: jsii.Bool(true),
		// Bounds the receivers called at once (each batch is sent
		// concurrently), so a burst of events cannot take every Lambda
		// of the account's concurrency.
		MaxConcurrency: jsii.Number(20),
	}))
	consumer := streamconsumer.New(c, "LinksStream", streamconsumer.Props{
		Function:         p.Stream,
		DynamoTable:      p.Links,
		BatchSize:        100,
		MaxBatchingDelay: awscdk.Duration_Seconds(jsii.Number(1)),
		RetryAttempts:    10,
		MaxRecordAge:     awscdk.Duration_Hours(jsii.Number(12)),
	})
	return &Webhooks{Construct: c, Table: table, Queue: queue, DeadLetters: dlq, StreamConsumer: consumer}
}

// GrantFanOut lets a function that only fans events out to subscriptions
// (webhookstream, clicks) read them without their signing secrets: Query
// an owner's subscriptions and GetItem the version item, each held by IAM
// to tableschema.WebhookReadableAttributes. DynamoDB returns every attribute to
// a read that names none, whatever dynamodb:Attributes allows, so the
// Query must also ask for SPECIFIC_ATTRIBUTES (dynamodb:Select), and
// GetItem, which has no Select, is held to the version item's partition
// (dynamodb:LeadingKeys), which holds no secret
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/specifying-conditions.html,
// "Ensuring attribute-based restrictions are enforced"). Only the webhooks
// API and the delivery function get unconditioned grants.
func (w *Webhooks) GrantFanOut(grantee awsiam.IGrantable) {
	attrs := map[string]any{"dynamodb:Attributes": tableschema.WebhookReadableAttributes}
	grantee.GrantPrincipal().AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:   jsii.Strings("dynamodb:Query"),
		Resources: &[]*string{w.Table.TableArn()},
		Conditions: &map[string]any{
			"ForAllValues:StringEquals": attrs,
			"StringEquals":              map[string]any{"dynamodb:Select": "SPECIFIC_ATTRIBUTES"},
		},
	}))
	grantee.GrantPrincipal().AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:   jsii.Strings("dynamodb:GetItem"),
		Resources: &[]*string{w.Table.TableArn()},
		Conditions: &map[string]any{
			"ForAllValues:StringEquals": map[string]any{
				"dynamodb:Attributes":  tableschema.WebhookReadableAttributes,
				"dynamodb:LeadingKeys": []string{tableschema.WebhookVersionOwner},
			},
			"StringEqualsIfExists": map[string]any{"dynamodb:Select": "SPECIFIC_ATTRIBUTES"},
		},
	}))
}
