package golambda

import (
	"path/filepath"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/shortlink-dev/shortener/infra/loggroup"
)

// Props configure one function.
type Props struct {
	// Name is the function's folder under functions/ and its zip under AssetDir.
	Name        string
	AssetDir    string
	Description string
	MemoryMB    int
	Timeout     awscdk.Duration
	Environment map[string]string
	Retention   awslogs.RetentionDays
	// SystemLogLevel is Lambda's own log level (JSON log format): WARN
	// drops the START, END and REPORT lines of every invocation
	// (docs/cost-model.md prices them); "" leaves Lambda's default.
	SystemLogLevel string
}

// Function is a deployed handler with the role its grants go to.
type Function struct {
	// Construct is the scope of its resources. (A named field, not an
	// embedded one: a Go struct embedding a construct is not a jsii object.)
	Construct constructs.Construct
	Fn        awslambda.Function
	Role      awsiam.Role
	LogGroup  awslogs.LogGroup
}

// New deploys build/<name>.zip as a provided.al2023 arm64 function. The role
// is the function's own and starts with nothing but writing to its own log
// group: no AWSLambdaBasicExecutionRole (it may write to any log group), no
// VPC or X-Ray policies. Everything else comes from grants at the call site.
func New(scope constructs.Construct, id string, p Props) *Function {
	c := constructs.NewConstruct(scope, jsii.String(id))
	logs := loggroup.New(c, "Logs", p.Retention)
	role := awsiam.NewRole(c, jsii.String("Role"), &awsiam.RoleProps{
		AssumedBy:   awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil),
		Description: jsii.String("Runs the " + p.Name + " function; its grants are its only permissions"),
	})
	logs.GrantWrite(role)
	env := make(map[string]*string, len(p.Environment))
	for k, v := range p.Environment {
		env[k] = jsii.String(v)
	}
	props := &awslambda.FunctionProps{
		Description:  jsii.String(p.Description),
		Runtime:      awslambda.Runtime_PROVIDED_AL2023(),
		Architecture: awslambda.Architecture_ARM_64(),
		Handler:      jsii.String("bootstrap"),
		Code:         awslambda.Code_FromAsset(jsii.String(filepath.Join(p.AssetDir, p.Name+".zip")), nil),
		MemorySize:   jsii.Number(float64(p.MemoryMB)),
		Timeout:      p.Timeout,
		Environment:  &env,
		Role:         role,
		LogGroup:     logs,
	}
	if p.SystemLogLevel != "" {
		props.LoggingFormat = awslambda.LoggingFormat_JSON
		props.SystemLogLevelV2 = awslambda.SystemLogLevel(p.SystemLogLevel)
		// The functions' own JSON lines carry their level and are kept
		// from INFO up, as before; a line without a "level" (the EMF
		// metrics) counts as INFO and is kept
		// (https://docs.aws.amazon.com/lambda/latest/dg/monitoring-cloudwatchlogs-log-level.html).
		props.ApplicationLogLevelV2 = awslambda.ApplicationLogLevel_INFO
	}
	fn := awslambda.NewFunction(c, jsii.String("Function"), props)
	return &Function{Construct: c, Fn: fn, Role: role, LogGroup: logs}
}
