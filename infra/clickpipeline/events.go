package clickpipeline

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/aws-cdk-go/awscdk/v2/awseventstargets"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// EventsRetryMinutes is the period of NewEventsRetry's schedule.
const EventsRetryMinutes = 1

// NewEventsRetry invokes the clicks function with no records every
// EventsRetryMinutes, so that it queues the link.clicked events it kept
// while the webhook queue failed even when no clicks come (the Kinesis
// mapping invokes it only with records). The rule's constant input {}
// reaches the handler as an events.KinesisEvent with no records. An
// EventBridge rule, not a Scheduler schedule: the rule invokes through the
// function's resource policy, scoped to the rule's ARN, with no role to
// keep.
func NewEventsRetry(scope constructs.Construct, id string, fn awslambda.IFunction) awsevents.Rule {
	return awsevents.NewRule(scope, jsii.String(id), &awsevents.RuleProps{
		Description: jsii.String("Asks the clicks function to queue the link.clicked events it kept while the webhook queue failed"),
		Schedule:    awsevents.Schedule_Rate(awscdk.Duration_Minutes(jsii.Number(EventsRetryMinutes))),
		Targets: &[]awsevents.IRuleTarget{awseventstargets.NewLambdaFunction(fn, &awseventstargets.LambdaFunctionProps{
			Event: awsevents.RuleTargetInput_FromObject(map[string]any{}),
			// The next period's invocation is the retry.
			RetryAttempts: jsii.Number(0),
		})},
	})
}
