package clickpipeline

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskinesis"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/shortlink-dev/shortener/infra/streamconsumer"
)

// Props configure the pipeline.
type Props struct {
	Function awslambda.IFunction
	// Shards, when positive, makes the stream provisioned with that many
	// shards (context kinesisShards; docs/cost-model.md has the
	// break-even); 0 keeps it on demand.
	Shards int
}

// Pipeline is the stream and its consumer.
type Pipeline struct {
	// Construct is the scope of its resources. (A named field, not an
	// embedded one: a Go struct embedding a construct is not a jsii object.)
	Construct constructs.Construct
	Stream    awskinesis.Stream
	Consumer  *streamconsumer.Consumer
}

// New creates the stream and feeds it to the clicks function.
func New(scope constructs.Construct, id string, p Props) *Pipeline {
	c := constructs.NewConstruct(scope, jsii.String(id))
	props := &awskinesis.StreamProps{
		// On demand by default: the load follows the redirect traffic
		// (peaks of 10-20 k records/s) without shard arithmetic, and a
		// write throttled at a peak would be a click lost.
		StreamMode: awskinesis.StreamMode_ON_DEMAND,
		// The AWS managed key: CloudFront's writer role then needs no KMS
		// grant, and the data is still encrypted at rest.
		Encryption:      awskinesis.StreamEncryption_MANAGED,
		RetentionPeriod: awscdk.Duration_Hours(jsii.Number(24)),
		// The edge stack (us-east-1) points CloudFront at this stream; when
		// the primary region is another, CDK needs a name it can know
		// across regions, and generates one.
		StreamName: awscdk.PhysicalName_GENERATE_IF_NEEDED(),
	}
	if p.Shards > 0 {
		props.StreamMode = awskinesis.StreamMode_PROVISIONED
		props.ShardCount = jsii.Number(float64(p.Shards))
	}
	stream := awskinesis.NewStream(c, jsii.String("ClickLog"), props)
	consumer := streamconsumer.New(c, "Consumer", streamconsumer.Props{
		Function:      p.Function,
		KinesisStream: stream,
		// Large batches aggregate more clicks per DynamoDB write; the
		// window bounds the delay at low traffic.
		BatchSize:        1000,
		MaxBatchingDelay: awscdk.Duration_Seconds(jsii.Number(5)),
		RetryAttempts:    10,
		// Analytics are eventually consistent: after an hour a batch
		// goes to the dead letters (23 hours left for a replay) rather
		// than hold the shard.
		MaxRecordAge: awscdk.Duration_Hours(jsii.Number(1)),
	})
	return &Pipeline{Construct: c, Stream: stream, Consumer: consumer}
}
