package lifecycle

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsscheduler"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsschedulertargets"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsstepfunctions"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/shortlink-dev/shortener/infra/loggroup"
	"github.com/shortlink-dev/shortener/infra/streamconsumer"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// TTLDeletionFilter passes only the stream records DynamoDB TTL wrote: a
// REMOVE by the service principal, as tableschema.TTLDeletionPattern
// defines it for ttlstream and the local run alike. Replicated TTL
// deletions in other regions carry no userIdentity and are dropped here,
// so each expiry is handled once, by the consumer in the region where it
// happened. The map is what awslambda.FilterCriteria_Filter builds: the
// pattern as a JSON string.
func TTLDeletionFilter() map[string]any {
	return map[string]any{"pattern": tableschema.TTLDeletionPattern}
}

// TTLConsumerProps configure the ttlstream mapping.
type TTLConsumerProps struct {
	Function awslambda.IFunction
	// Links is this region's replica, with its stream ARN.
	Links awsdynamodb.ITable
}

// NewTTLConsumer feeds the region's TTL deletions to ttlstream.
func NewTTLConsumer(scope constructs.Construct, id string, p TTLConsumerProps) *streamconsumer.Consumer {
	return streamconsumer.New(scope, id, streamconsumer.Props{
		Function:         p.Function,
		DynamoTable:      p.Links,
		Filters:          []map[string]any{TTLDeletionFilter()},
		BatchSize:        100,
		MaxBatchingDelay: awscdk.Duration_Seconds(jsii.Number(5)),
		RetryAttempts:    10,
		// Half the stream's 24-hour retention: a batch given up on still
		// has 12 hours in the stream for a replay from the dead letters,
		// and a code must not be reissued without its tombstone.
		MaxRecordAge: awscdk.Duration_Hours(jsii.Number(12)),
	})
}

// ReclaimProps configure the reclaim pipeline.
type ReclaimProps struct {
	Function awslambda.IFunction
	// Definition is the ASL the state machine runs (shared/reclaimflow),
	// with the function's ARN already in it.
	Definition string
	Schedule   string // rate(...) or cron(...)
	Retention  awslogs.RetentionDays
}

// Reclaim is the state machine and the schedule that starts it.
type Reclaim struct {
	// Construct is the scope of its resources. (A named field, not an
	// embedded one: a Go struct embedding a construct is not a jsii object.)
	Construct    constructs.Construct
	StateMachine awsstepfunctions.StateMachine
	Schedule     awsscheduler.Schedule
}

// NewReclaim deploys the reclaim state machine (Standard: one run per
// schedule tick, exactly once, and long enough to drain a backlog) and an
// EventBridge Scheduler schedule that starts it.
func NewReclaim(scope constructs.Construct, id string, p ReclaimProps) *Reclaim {
	c := constructs.NewConstruct(scope, jsii.String(id))
	logs := loggroup.New(c, "Logs", p.Retention)
	sm := awsstepfunctions.NewStateMachine(c, jsii.String("StateMachine"), &awsstepfunctions.StateMachineProps{
		Comment:          jsii.String("Releases tombstoned codes whose grace period has passed, in bounded batches"),
		DefinitionBody:   awsstepfunctions.DefinitionBody_FromString(jsii.String(p.Definition)),
		StateMachineType: awsstepfunctions.StateMachineType_STANDARD,
		Timeout:          awscdk.Duration_Hours(jsii.Number(1)),
		TracingEnabled:   jsii.Bool(true),
		Logs: &awsstepfunctions.LogOptions{
			Destination:          logs,
			Level:                awsstepfunctions.LogLevel_ALL,
			IncludeExecutionData: jsii.Bool(false),
		},
	})
	p.Function.GrantInvoke(sm)
	schedule := awsscheduler.NewSchedule(c, jsii.String("Schedule"), &awsscheduler.ScheduleProps{
		Description: jsii.String("Starts the reclaim state machine"),
		Schedule:    awsscheduler.ScheduleExpression_Expression(jsii.String(p.Schedule), nil),
		Target: awsschedulertargets.NewStepFunctionsStartExecution(sm, &awsschedulertargets.ScheduleTargetBaseProps{
			RetryAttempts: jsii.Number(3),
			MaxEventAge:   awscdk.Duration_Minutes(jsii.Number(30)),
		}),
	})
	return &Reclaim{Construct: c, StateMachine: sm, Schedule: schedule}
}
