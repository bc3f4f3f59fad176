// Package loggroup creates the service's CloudWatch log groups (a
// function's, the reclaim state machine's, the /v1 stage's access log):
// each kept for the operator's retention (context logRetentionDays) and
// deleted with its stack, as the logs are for debugging and what must
// last is in DynamoDB.
package loggroup

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// New creates log group id in scope, kept for retention and removed with
// the stack.
func New(scope constructs.Construct, id string, retention awslogs.RetentionDays) awslogs.LogGroup {
	return awslogs.NewLogGroup(scope, jsii.String(id), &awslogs.LogGroupProps{
		Retention:     retention,
		RemovalPolicy: awscdk.RemovalPolicy_DESTROY,
	})
}
