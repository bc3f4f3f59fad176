package streamconsumer

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskinesis"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambdaeventsources"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// Props configure one consumer's mapping.
type Props struct {
	Function awslambda.IFunction
	// Exactly one of DynamoTable (with a stream ARN) and KinesisStream.
	DynamoTable   awsdynamodb.ITable
	KinesisStream awskinesis.IStream
	// Filters are Lambda event filter patterns (awslambda.FilterCriteria_Filter).
	Filters          []map[string]any
	BatchSize        int
	MaxBatchingDelay awscdk.Duration
	// RetryAttempts bounds the retries of a failing batch (the default, -1,
	// retries until the record leaves the stream).
	RetryAttempts int
	MaxRecordAge  awscdk.Duration
}

// Consumer is the mapping and its on-failure queue.
type Consumer struct {
	// Construct is the scope of its resources. (A named field, not an
	// embedded one: a Go struct embedding a construct is not a jsii object.)
	Construct constructs.Construct
	// DeadLetters receives the metadata (shard, sequence numbers) of the
	// batches given up on, for a replay from the stream.
	DeadLetters awssqs.Queue
}

// New attaches the function to its stream.
func New(scope constructs.Construct, id string, p Props) *Consumer {
	c := constructs.NewConstruct(scope, jsii.String(id))
	dlq := awssqs.NewQueue(c, jsii.String("DeadLetters"), &awssqs.QueueProps{
		Encryption: awssqs.QueueEncryption_SQS_MANAGED,
		EnforceSSL: jsii.Bool(true),
		// The longest SQS allows: the records themselves leave the stream
		// after 24 hours, the pointers stay for the post-mortem.
		RetentionPeriod: awscdk.Duration_Days(jsii.Number(14)),
	})
	var filters *[]*map[string]any
	if len(p.Filters) > 0 {
		fs := make([]*map[string]any, len(p.Filters))
		for i := range p.Filters {
			fs[i] = &p.Filters[i]
		}
		filters = &fs
	}
	var src awslambda.IEventSource
	switch {
	case p.DynamoTable != nil:
		src = awslambdaeventsources.NewDynamoEventSource(p.DynamoTable, &awslambdaeventsources.DynamoEventSourceProps{
			StartingPosition:        awslambda.StartingPosition_TRIM_HORIZON,
			BatchSize:               jsii.Number(float64(p.BatchSize)),
			MaxBatchingWindow:       p.MaxBatchingDelay,
			ReportBatchItemFailures: jsii.Bool(true),
			BisectBatchOnError:      jsii.Bool(true),
			RetryAttempts:           jsii.Number(float64(p.RetryAttempts)),
			MaxRecordAge:            p.MaxRecordAge,
			OnFailure:               awslambdaeventsources.NewSqsDlq(dlq),
			Filters:                 filters,
		})
	case p.KinesisStream != nil:
		src = awslambdaeventsources.NewKinesisEventSource(p.KinesisStream, &awslambdaeventsources.KinesisEventSourceProps{
			StartingPosition:        awslambda.StartingPosition_TRIM_HORIZON,
			BatchSize:               jsii.Number(float64(p.BatchSize)),
			MaxBatchingWindow:       p.MaxBatchingDelay,
			ReportBatchItemFailures: jsii.Bool(true),
			BisectBatchOnError:      jsii.Bool(true),
			RetryAttempts:           jsii.Number(float64(p.RetryAttempts)),
			MaxRecordAge:            p.MaxRecordAge,
			OnFailure:               awslambdaeventsources.NewSqsDlq(dlq),
			Filters:                 filters,
		})
	default:
		panic("streamconsumer.New: neither a DynamoDB table nor a Kinesis stream")
	}
	p.Function.AddEventSource(src)
	return &Consumer{Construct: c, DeadLetters: dlq}
}
