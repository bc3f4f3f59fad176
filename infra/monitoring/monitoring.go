package monitoring

import (
	"fmt"
	"slices"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigateway"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudfront"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskinesis"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssnssubscriptions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsstepfunctions"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// MetricsNamespace is where the handlers' embedded metric format records
// land (shared/metrics), with one dimension: function.
const MetricsNamespace = "Shortener"

// ReplicationLatencyAlarmSeconds is the replication latency that alarms,
// on any minute's largest. A Region whose replica lags L behind a change
// answers the old link for L, and the edge lets that answer go at most
// SHORTENER_CACHE_TTL (20 s) after it was read: its edge mark is refused
// (docs/lifecycle.md, "A replica that lags"). The 30 s promise holds while
// L stays under 30 s - 20 s = 10 s; the alarm fires at half that, before
// the bound can be broken.
const ReplicationLatencyAlarmSeconds = 5

// CompactionLagAlarmHours is the click compaction's lag that alarms: a
// day, 29 days before a rollup or segment not compacted expires
// (packedclicks.DefaultRollupRetention).
const CompactionLagAlarmHours = 24

// ClickEventsPendingAlarmMinutes is the wait of a kept link.clicked event
// that alarms: once the queue works again, the clicks function queues it
// within about 6 minutes (5 minutes of backoff at most, and a minute to
// the retry rule's next invocation), so a quarter hour means the outage
// goes on, or the retries do not run.
const ClickEventsPendingAlarmMinutes = 15

// StalledCompactionInvocations is how many invocations of the clicks
// function in six hours, with no compaction finished in them, make one
// breaching period of the alarm on compactions missing (four in a row, a
// day, alarm). The function compacts every 16 batches it applied
// (clicksfn.DefaultCompactEvery), so at that rate compactions are due
// many times over. The retry rule's invocations (360 in six hours, with
// no records) compact once an hour (clicksfn.DefaultScheduledCompactEvery),
// so a quiet stream does not breach.
const StalledCompactionInvocations = 100

// alarmSuffix turns a region into a construct ID part: "us-west-2" -> "UsWest2".
func alarmSuffix(region string) string {
	out := make([]byte, 0, len(region))
	upper := true
	for i := 0; i < len(region); i++ {
		c := region[i]
		switch {
		case c == '-':
			upper = true
			continue
		case upper && c >= 'a' && c <= 'z':
			c -= 'a' - 'A'
		}
		upper = false
		out = append(out, c)
	}
	return string(out)
}

// Function is a handler to watch.
type Function struct {
	Name string // its folder under functions/, the "function" metric dimension
	Fn   awslambda.IFunction
}

// Consumer is a stream-fed handler with its dead letters.
type Consumer struct {
	Name           string
	Fn             awslambda.IFunction
	DeadLetters    awssqs.IQueue
	MaxIteratorAge awscdk.Duration
}

// DeadLetterQueue is a queue whose every message needs an operator.
type DeadLetterQueue struct {
	Name  string
	What  string // the alarm's description: what happened, what to do
	Queue awssqs.IQueue
}

// Props say what the stack has; every field is optional.
type Props struct {
	AlarmEmail       string
	Functions        []Function
	Consumers        []Consumer
	DeadLetterQueues []DeadLetterQueue
	RedirectAPI      awsapigatewayv2.IHttpApi
	RestAPI          awsapigateway.RestApi
	StateMachine     awsstepfunctions.IStateMachine
	Links            awsdynamodb.ITable
	// ReplicaRegions are the links table's other replicas, watched from the
	// region that writes (the primary): replication latency is published
	// there, per receiving region.
	ReplicaRegions []string
	// Analytics is the click counts table (primary region).
	Analytics awsdynamodb.ITable
	// ClickStream is the Kinesis stream CloudFront's real-time logs go to.
	ClickStream awskinesis.IStream
	// ClickStreamShards is its shard count when provisioned (context
	// kinesisShards), 0 on demand: a provisioned stream alarms
	// (ClickStreamNearCapacity) before its writes reach its shards' limits.
	ClickStreamShards int
	// ClickCompaction is the function that compacts the packed click
	// layout's rollups (the clicks function); its CompactionLag metric
	// (milliseconds, namespace MetricsNamespace, dimension function)
	// alarms at CompactionLagAlarmHours, and so does its absence while the
	// function keeps running.
	ClickCompaction *Function
	Distribution    awscloudfront.Distribution
	// FiveXXPercent is the 5xx rate (of all requests) that alarms.
	FiveXXPercent float64
	// APIHealthChecks are the Route 53 health checks of each region's /v1
	// (infra/failover), by region: watched from us-east-1, where Route 53
	// publishes their status.
	APIHealthChecks map[string]*string
}

// Monitoring is the topic, the alarms and the dashboard.
type Monitoring struct {
	// Construct is the scope of its resources. (A named field, not an
	// embedded one: a Go struct embedding a construct is not a jsii object.)
	Construct constructs.Construct
	Topic     awssns.Topic
	Alarms    []awscloudwatch.Alarm
	Dashboard awscloudwatch.Dashboard
}

// HandlerAlarm is a count a function's handler emits (shared/metrics:
// namespace MetricsNamespace, dimension function) whose every occurrence
// alarms.
type HandlerAlarm struct {
	Metric, What string
}

// auditWriteFailures: a change was made and answered, and its audit entry
// could not be written after it (shared/apigw FlushAudit): the audit log
// misses that change (docs/audit.md).
var auditWriteFailures = HandlerAlarm{"AuditWriteFailures", "A change was made but its audit log entry could not be written (the audit table failed): the function's logs name the change, which the audit log now misses (docs/audit.md)"}

// HandlerAlarms are, by function, the handler counts that alarm at one
// in five minutes: each is a promise degraded without an error.
var HandlerAlarms = map[string][]HandlerAlarm{
	"redirect": {{"EdgeMarkFailures", "The redirect could not write edge marks (docs/lifecycle.md, section 6): its answers get a short edge life instead of a day, so more requests reach the origin, until the marks table answers again"}},
	"manage": {
		{"EdgeMarkReadFailures", "The management API could not read edge marks: every edit and delete is invalidated (paid per path) until the marks tables answer again"},
		auditWriteFailures,
	},
	"create":       {auditWriteFailures},
	"auditarchive": {{"AuditArchiveFailures", "Audit entries could not be copied to the archive bucket (S3 refused or failed the upload, or a stream record was no entry): the batch is retried from them, and goes to the consumer's on-failure queue if its retries run out (the function's logs say which key and why; docs/audit.md)"}},
	"webhooks":     {auditWriteFailures},
	"clicks": {
		{"PoisonRecords", "The clicks function skipped real-time log records it could not parse: the log configuration and the parser have drifted apart, and those clicks are not counted (the function's logs name shard and sequence number)"},
		{"ClickEventsDeferred", "The clicks function could not queue link.clicked events (the webhook queue, the links table or the webhooks table failed) and kept them in its outbox: clicks are counted, and the events are queued when the queue works again, within minutes after"},
		{"ClickEventsFailures", "The clicks function could neither queue nor keep link.clicked events, so their batch is retried (its clicks are counted once): the events are late, and lost if the batch's retries run out"},
	},
}

// New creates the stack's monitoring: the alarm topic, an alarm on every
// promise Props names, and a dashboard of them.
func New(scope constructs.Construct, id string, p Props) *Monitoring {
	if p.FiveXXPercent == 0 {
		p.FiveXXPercent = 1
	}
	c := constructs.NewConstruct(scope, jsii.String(id))
	m := &Monitoring{Construct: c, Topic: newTopic(c, p.AlarmEmail)}
	fiveMinutes := awscdk.Duration_Minutes(jsii.Number(5))
	b := &builder{
		scope: c, m: m, p: p, action: awscloudwatchactions.NewSnsAction(m.Topic),
		fiveMinutes: fiveMinutes,
		sum:         &awscloudwatch.MetricOptions{Statistic: jsii.String("Sum"), Period: fiveMinutes},
		maximum:     &awscloudwatch.MetricOptions{Statistic: jsii.String("Maximum"), Period: fiveMinutes},
	}
	b.functions()
	b.consumers()
	b.apis()
	b.tables()
	b.clickStream()
	if p.ClickCompaction != nil {
		b.clickCompaction(*p.ClickCompaction)
	}
	b.distribution()
	b.healthChecks()
	b.dashboard()
	return m
}

// newTopic is the alarm topic, encrypted with a key of its own, with the
// alarm e-mail subscribed when there is one.
func newTopic(c constructs.Construct, email string) awssns.Topic {
	// A customer managed key: CloudWatch cannot publish to a topic
	// encrypted with the AWS managed aws/sns key, whose policy it cannot
	// be added to.
	key := awskms.NewKey(c, jsii.String("TopicKey"), &awskms.KeyProps{
		Description:       jsii.String("Encrypts the alarm topic"),
		EnableKeyRotation: jsii.Bool(true),
		RemovalPolicy:     awscdk.RemovalPolicy_DESTROY,
	})
	key.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String("CloudWatchAlarmsPublish"),
		Principals: &[]awsiam.IPrincipal{awsiam.NewServicePrincipal(jsii.String("cloudwatch.amazonaws.com"), nil)},
		Actions:    jsii.Strings("kms:Decrypt", "kms:GenerateDataKey*"),
		Resources:  jsii.Strings("*"), // in a key policy, "*" is this key
	}), nil)
	// Nothing here needs a grant on the key (SNS and CloudWatch call
	// Decrypt and GenerateDataKey themselves), so only an AWS service acting
	// for an AWS resource may create one: a leaked principal cannot hand
	// itself lasting use of the key. AWS Control Tower control CT.KMS.PR.3
	// (https://docs.aws.amazon.com/controltower/latest/userguide/kms-rules.html#ct-kms-pr-3-description).
	key.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String("GrantsOnlyForAWSServices"),
		Effect:     awsiam.Effect_DENY,
		Principals: &[]awsiam.IPrincipal{awsiam.NewAnyPrincipal()},
		Actions:    jsii.Strings("kms:CreateGrant"),
		Resources:  jsii.Strings("*"),
		Conditions: &map[string]any{"BoolIfExists": map[string]any{
			"kms:GrantIsForAWSResource": "false",
			"aws:PrincipalIsAWSService": "false",
		}},
	}), nil)
	topic := awssns.NewTopic(c, jsii.String("Alarms"), &awssns.TopicProps{
		DisplayName: jsii.String("URL shortener alarms"),
		MasterKey:   key,
		EnforceSSL:  jsii.Bool(true),
	})
	if email != "" {
		topic.AddSubscription(awssnssubscriptions.NewEmailSubscription(jsii.String(email), nil))
	}
	return topic
}

// builder holds what every alarm and widget of one Monitoring shares: the
// scope, the topic's action, the statistics, and the dashboard's rows as
// they fill.
type builder struct {
	scope       constructs.Construct
	m           *Monitoring
	p           Props
	action      awscloudwatch.IAlarmAction
	fiveMinutes awscdk.Duration
	sum         *awscloudwatch.MetricOptions
	maximum     *awscloudwatch.MetricOptions

	apiWidgets, streamWidgets, lambdaWidgets []awscloudwatch.IWidget
}

// add creates an alarm that notifies the topic when it fires and when it
// is OK again.
func (b *builder) add(id string, props *awscloudwatch.AlarmProps) {
	a := awscloudwatch.NewAlarm(b.scope, jsii.String(id), props)
	a.AddAlarmAction(b.action)
	a.AddOkAction(b.action)
	b.m.Alarms = append(b.m.Alarms, a)
}

// alarm fires when metric reaches threshold for periods in a row; missing
// data does not breach.
func (b *builder) alarm(id, what string, metric awscloudwatch.IMetric, threshold float64, periods float64) {
	b.add(id, &awscloudwatch.AlarmProps{
		Metric:             metric,
		AlarmDescription:   jsii.String(what),
		Threshold:          jsii.Number(threshold),
		EvaluationPeriods:  jsii.Number(periods),
		ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
		TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
	})
}

// graph is a dashboard widget of one third of a row.
func graph(title string, left, right []awscloudwatch.IMetric) awscloudwatch.IWidget {
	props := &awscloudwatch.GraphWidgetProps{Title: jsii.String(title), Left: &left, Width: jsii.Number(8)}
	if right != nil {
		props.Right = &right
	}
	return awscloudwatch.NewGraphWidget(props)
}

// handlerMetric is one of the counts a function's handler emits.
func (b *builder) handlerMetric(function, name, statistic string, period awscdk.Duration) awscloudwatch.Metric {
	return awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace: jsii.String(MetricsNamespace), MetricName: jsii.String(name),
		DimensionsMap: &map[string]*string{"function": jsii.String(function)},
		Statistic:     jsii.String(statistic), Period: period,
	})
}

// functions alarms on every function's errors, throttles and handler
// alarms, and graphs its invocations and service metrics.
func (b *builder) functions() {
	sum := b.sum
	for _, f := range b.p.Functions {
		for _, h := range HandlerAlarms[f.Name] {
			b.alarm(f.Name+h.Metric, h.What, b.handlerMetric(f.Name, h.Metric, "Sum", b.fiveMinutes), 1, 1)
		}
		b.alarm(f.Name+"Errors", fmt.Sprintf("The %s function failed (errors, timeouts, crashes)", f.Name), f.Fn.MetricErrors(sum), 1, 1)
		b.alarm(f.Name+"Throttles", fmt.Sprintf("The %s function was throttled (concurrency limit)", f.Name), f.Fn.MetricThrottles(sum), 1, 1)
		b.lambdaWidgets = append(b.lambdaWidgets,
			graph(f.Name+": invocations, errors, throttles",
				[]awscloudwatch.IMetric{f.Fn.MetricInvocations(sum), f.Fn.MetricErrors(sum), f.Fn.MetricThrottles(sum)},
				[]awscloudwatch.IMetric{f.Fn.MetricDuration(&awscloudwatch.MetricOptions{Statistic: jsii.String("p95"), Period: b.fiveMinutes})}),
			// Every metric the handler emits, whatever it names them.
			graph(f.Name+": service metrics", []awscloudwatch.IMetric{awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
				Expression: jsii.String(fmt.Sprintf(`SEARCH('{%s,function} function="%s"', 'Sum', 300)`, MetricsNamespace, f.Name)),
				Label:      jsii.String(f.Name),
				Period:     b.fiveMinutes,
			})}, nil))
	}
}

// consumers alarms on every stream consumer falling behind or giving up
// on a batch, and on every dead-letter queue holding a message.
func (b *builder) consumers() {
	for _, s := range b.p.Consumers {
		age := s.Fn.Metric(jsii.String("IteratorAge"), b.maximum)
		b.alarm(s.Name+"IteratorAge", fmt.Sprintf("The %s consumer is more than %s behind its stream", s.Name, *s.MaxIteratorAge.ToHumanString()),
			age, *s.MaxIteratorAge.ToMilliseconds(nil), 2)
		depth := s.DeadLetters.MetricApproximateNumberOfMessagesVisible(b.maximum)
		b.alarm(s.Name+"DeadLetters", fmt.Sprintf("The %s consumer gave up on a batch: replay it from the stream within 24 hours", s.Name), depth, 1, 1)
		b.streamWidgets = append(b.streamWidgets, graph(s.Name+": iterator age and dead letters", []awscloudwatch.IMetric{age}, []awscloudwatch.IMetric{depth}))
	}
	for _, q := range b.p.DeadLetterQueues {
		depth := q.Queue.MetricApproximateNumberOfMessagesVisible(b.maximum)
		b.alarm(q.Name+"DeadLetters", q.What, depth, 1, 1)
		b.streamWidgets = append(b.streamWidgets, graph(q.Name+": dead letters", []awscloudwatch.IMetric{depth}, nil))
	}
}

// rate is the share of 5xx answers, alarmed on at FiveXXPercent.
func (b *builder) rate(id, what string, errs, count awscloudwatch.IMetric) awscloudwatch.IMetric {
	expr := awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression:   jsii.String("IF(requests > 0, 100 * errors / requests, 0)"),
		UsingMetrics: &map[string]awscloudwatch.IMetric{"errors": errs, "requests": count},
		Label:        jsii.String("5xx %"),
		Period:       b.fiveMinutes,
	})
	b.alarm(id, what, expr, b.p.FiveXXPercent, 2)
	return expr
}

// apis alarms on both APIs' 5xx rates and on failed reclaim runs.
func (b *builder) apis() {
	p, sum := b.p, b.sum
	if p.RedirectAPI != nil {
		r := b.rate("RedirectApi5xx", fmt.Sprintf("More than %g %% of redirect origin requests answered 5xx", p.FiveXXPercent),
			p.RedirectAPI.MetricServerError(sum), p.RedirectAPI.MetricCount(sum))
		b.apiWidgets = append(b.apiWidgets, graph("Redirect API: requests and 5xx %", []awscloudwatch.IMetric{p.RedirectAPI.MetricCount(sum)}, []awscloudwatch.IMetric{r}))
	}
	if p.RestAPI != nil {
		r := b.rate("ManagementApi5xx", fmt.Sprintf("More than %g %% of /v1 requests answered 5xx", p.FiveXXPercent),
			p.RestAPI.MetricServerError(sum), p.RestAPI.MetricCount(sum))
		b.apiWidgets = append(b.apiWidgets, graph("/v1 API: requests, 4xx and 5xx %",
			[]awscloudwatch.IMetric{p.RestAPI.MetricCount(sum), p.RestAPI.MetricClientError(sum)}, []awscloudwatch.IMetric{r}))
	}
	if p.StateMachine != nil {
		failed := p.StateMachine.MetricFailed(sum)
		b.alarm("ReclaimFailed", "A reclaim run failed: due tombstones stay until the next run succeeds", failed, 1, 1)
		timedOut := p.StateMachine.MetricTimedOut(sum)
		b.alarm("ReclaimTimedOut", "A reclaim run timed out", timedOut, 1, 1)
		b.apiWidgets = append(b.apiWidgets, graph("Reclaim runs", []awscloudwatch.IMetric{p.StateMachine.MetricSucceeded(sum), failed, timedOut}, nil))
	}
}

// throttles alarms on a table's read and write throttling and graphs
// them beside its system errors.
func (b *builder) throttles(table awsdynamodb.ITable, id, title, readWhat, writeWhat string) {
	reads := table.Metric(jsii.String("ReadThrottleEvents"), b.sum)
	writes := table.Metric(jsii.String("WriteThrottleEvents"), b.sum)
	b.alarm(id+"ReadThrottles", readWhat, reads, 1, 1)
	b.alarm(id+"WriteThrottles", writeWhat, writes, 1, 1)
	b.apiWidgets = append(b.apiWidgets, graph(title+": throttles and errors",
		[]awscloudwatch.IMetric{reads, writes, table.Metric(jsii.String("SystemErrors"), b.sum)}, nil))
}

// tables alarms on the links and analytics tables' throttling and on the
// links table's replication to its replicas.
func (b *builder) tables() {
	p := b.p
	if p.Links != nil {
		b.throttles(p.Links, "Links", "Links table", "Reads of the links table were throttled", "Writes to the links table were throttled")
	}
	if p.Links != nil && len(p.ReplicaRegions) > 0 {
		b.replication()
	}
	if p.Analytics != nil {
		b.throttles(p.Analytics, "Analytics", "Analytics table",
			"Reads of the analytics table were throttled: stats requests failed or slowed",
			"Writes to the analytics table were throttled: click batches are retried and fall behind")
	}
}

// replication alarms on the links table's writes reaching a replica late,
// or not at all.
func (b *builder) replication() {
	// Every write happens in this region (docs/deploy.md), so this
	// region's ReplicationLatency, per receiving region, is how stale a
	// replica's redirects and TTL stream are. Edits must show everywhere
	// within 30 s (docs/lifecycle.md, section 6); MREC usually replicates
	// within a second.
	//
	// The largest of each minute, not a five-minute average, which a
	// burst of late writes hides in; one minute is enough to alarm.
	// No data alarms too: DynamoDB publishes the metric for the writes
	// that reach the replica, so a replication that stalls publishes
	// nothing (an idle table does the same, and cannot be told apart:
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/V2globaltables_monitoring.html).
	links := b.p.Links
	var lags []awscloudwatch.IMetric
	for _, r := range b.p.ReplicaRegions {
		lag := links.Metric(jsii.String("ReplicationLatency"), &awscloudwatch.MetricOptions{
			Statistic:     jsii.String("Maximum"),
			Period:        awscdk.Duration_Minutes(jsii.Number(1)),
			DimensionsMap: &map[string]*string{"TableName": links.TableName(), "ReceivingRegion": jsii.String(r)},
		})
		b.add("LinksReplicationLatency"+alarmSuffix(r), &awscloudwatch.AlarmProps{
			Metric: lag,
			AlarmDescription: jsii.String(fmt.Sprintf("Links table writes take %d s or more to reach the %s replica, or none arrive: "+
				"takedowns there may take longer than 30 s", ReplicationLatencyAlarmSeconds, r)),
			Threshold:          jsii.Number(ReplicationLatencyAlarmSeconds * 1000),
			EvaluationPeriods:  jsii.Number(1),
			ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
			TreatMissingData:   awscloudwatch.TreatMissingData_BREACHING,
		})
		lags = append(lags, lag)
	}
	b.apiWidgets = append(b.apiWidgets, graph("Links table: replication latency (ms) by receiving region", lags, nil))
}

// clickStream alarms on Kinesis throttling the real-time log records.
func (b *builder) clickStream() {
	s := b.p.ClickStream
	if s == nil {
		return
	}
	// CloudFront writes its real-time log records with PutRecords; a
	// throttled record is a click never counted (best-effort delivery).
	throttled := s.MetricPutRecordsThrottledRecords(b.sum)
	exceeded := s.MetricWriteProvisionedThroughputExceeded(b.sum)
	b.alarm("ClickStreamThrottledRecords", "Kinesis throttled real-time log records on the click stream: clicks may be lost", throttled, 1, 1)
	b.alarm("ClickStreamWriteThroughputExceeded", "Writes to the click stream exceeded its throughput", exceeded, 1, 1)
	b.streamWidgets = append(b.streamWidgets, graph("Click stream: records in and throttled",
		[]awscloudwatch.IMetric{s.MetricPutRecordsSuccessfulRecords(b.sum)}, []awscloudwatch.IMetric{throttled, exceeded}))
	if n := b.p.ClickStreamShards; n > 0 {
		b.clickStreamCapacity(s, n)
	}
}

// Shard limits of a Kinesis stream's writes, in both capacity modes:
// 1,000 records/s or 1 MiB/s per shard
// (https://docs.aws.amazon.com/streams/latest/dev/service-sizes-and-limits.html).
const (
	ShardRecordsPerSecond = 1000
	ShardBytesPerSecond   = 1 << 20
	// NearCapacityShare is the share of the shards' write limit, as a
	// minute's average, that ClickStreamNearCapacity fires at for
	// NearCapacityMinutes in a row: a minute's average hides its peak
	// seconds, and a write over the limit is a click never counted.
	NearCapacityShare   = 0.8
	NearCapacityMinutes = 3
)

// clickStreamCapacity alarms when a provisioned click stream's writes near
// its shards' limits: the larger of its records and its bytes a minute
// over what shards carry in one.
func (b *builder) clickStreamCapacity(s awskinesis.IStream, shards int) {
	minute := &awscloudwatch.MetricOptions{Statistic: jsii.String("Sum"), Period: awscdk.Duration_Minutes(jsii.Number(1))}
	perMinute := float64(shards) * 60
	use := awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression: jsii.String(fmt.Sprintf("MAX([records / %.0f, bytes / %.0f])", perMinute*ShardRecordsPerSecond, perMinute*ShardBytesPerSecond)),
		UsingMetrics: &map[string]awscloudwatch.IMetric{
			"records": s.MetricIncomingRecords(minute),
			"bytes":   s.MetricIncomingBytes(minute),
		},
		Label:  jsii.String("share of the shards' write limit"),
		Period: awscdk.Duration_Minutes(jsii.Number(1)),
	})
	b.add("ClickStreamNearCapacity", &awscloudwatch.AlarmProps{
		Metric: use,
		AlarmDescription: jsii.String(fmt.Sprintf("The click stream's writes are at %.0f %% of its %d shards' limit (1,000 records/s, 1 MiB/s a shard) "+
			"for %d minutes: add shards (context kinesisShards) before a write is throttled and its click lost", NearCapacityShare*100, shards, NearCapacityMinutes)),
		Threshold:          jsii.Number(NearCapacityShare),
		EvaluationPeriods:  jsii.Number(NearCapacityMinutes),
		DatapointsToAlarm:  jsii.Number(NearCapacityMinutes),
		ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
		TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
	})
	b.streamWidgets = append(b.streamWidgets, graph("Click stream: share of its shards' write limit", []awscloudwatch.IMetric{use}, nil))
}

// clickCompaction alarms on the packed click layout's compaction lagging
// or stalling, and on link.clicked events waiting in the outbox.
func (b *builder) clickCompaction(f Function) {
	// The handler emits CompactionLag once per finished compaction
	// (shared/metrics: namespace MetricsNamespace, one dimension,
	// function). No sample is no compaction, which is not a lag (a
	// quiet stream compacts nothing): missing data does not breach
	// here, and the next alarm watches for it.
	lag := b.handlerMetric(f.Name, "CompactionLag", "Maximum", awscdk.Duration_Hours(jsii.Number(1)))
	// The link.clicked events kept while the webhook queue failed
	// (clicksfn): the wait of the oldest one due, sampled at every
	// look at the outbox. It stays low while the queue recovers
	// (backoff to 5 minutes, a look every minute at least); past
	// ClickEventsPendingAlarmMinutes the events are stuck.
	pending := b.handlerMetric(f.Name, "ClickEventsPendingAge", "Maximum", b.fiveMinutes)
	b.alarm(f.Name+"ClickEventsPendingAge", fmt.Sprintf("link.clicked events have waited more than %d minutes in the %s function's outbox: the webhook queue (or the links or webhooks table) still fails, or the retry rule does not run (see ClickEventsDeferred and the function's logs)", ClickEventsPendingAlarmMinutes, f.Name),
		pending, ClickEventsPendingAlarmMinutes*60*1000, 1)
	b.alarm(f.Name+"CompactionLag", fmt.Sprintf("Click compaction is more than %d hours behind: rollups and segments not compacted expire 30 days after their write (see CompactionFailures and the %s function's logs)", CompactionLagAlarmHours, f.Name),
		lag, CompactionLagAlarmHours*3600*1000, 1)
	// The lag goes missing, not high, when compactions stop finishing
	// while batches keep coming (every one failing, or a deployment
	// without the compactor): a six-hour period with at least
	// StalledCompactionInvocations invocations and no CompactionLag
	// sample breaches, four in a row alarm. FILL turns a period
	// without samples into 0
	// (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/using-metric-math.html);
	// a period with neither is not breaching. CloudWatch takes periods
	// of an hour or more over up to seven days
	// (https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_PutMetricAlarm.html).
	sixHours := awscdk.Duration_Hours(jsii.Number(6))
	stalled := awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression: jsii.String(fmt.Sprintf("IF(FILL(invocations, 0) >= %d AND FILL(compactions, 0) == 0, 1, 0)", StalledCompactionInvocations)),
		UsingMetrics: &map[string]awscloudwatch.IMetric{
			"invocations": f.Fn.MetricInvocations(&awscloudwatch.MetricOptions{Statistic: jsii.String("Sum"), Period: sixHours}),
			"compactions": b.handlerMetric(f.Name, "CompactionLag", "SampleCount", sixHours),
		},
		Label:  jsii.String("six hours of batches without a finished compaction"),
		Period: sixHours,
	})
	b.alarm(f.Name+"CompactionStalled", fmt.Sprintf("The %s function ran all day and no click compaction finished: rollups pile up and expire 30 days after their write (see CompactionFailures and the function's logs)", f.Name),
		stalled, 1, 4)
	b.streamWidgets = append(b.streamWidgets, graph("Click compaction: lag (ms)", []awscloudwatch.IMetric{lag}, nil))
}

// distribution alarms on the edge's 5xx rate.
func (b *builder) distribution() {
	d := b.p.Distribution
	if d == nil {
		return
	}
	errRate := CloudFrontMetric(d, "5xxErrorRate", "Average", b.fiveMinutes)
	b.alarm("Edge5xx", fmt.Sprintf("More than %g %% of viewer requests answered 5xx", b.p.FiveXXPercent), errRate, b.p.FiveXXPercent, 2)
	b.apiWidgets = append(b.apiWidgets, graph("CloudFront: requests and error rates",
		[]awscloudwatch.IMetric{CloudFrontMetric(d, "Requests", "Sum", b.fiveMinutes)},
		[]awscloudwatch.IMetric{errRate, CloudFrontMetric(d, "4xxErrorRate", "Average", b.fiveMinutes)}))
}

// healthChecks alarms on a region whose /v1 health check fails: it has
// left the DNS answers, /v1 has failed over, and the region needs a look.
func (b *builder) healthChecks() {
	regions := make([]string, 0, len(b.p.APIHealthChecks))
	for r := range b.p.APIHealthChecks {
		regions = append(regions, r)
	}
	slices.Sort(regions)
	for _, region := range regions {
		b.add("ApiHealth"+alarmSuffix(region), &awscloudwatch.AlarmProps{
			Metric: awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
				Namespace:     jsii.String("AWS/Route53"),
				MetricName:    jsii.String("HealthCheckStatus"),
				DimensionsMap: &map[string]*string{"HealthCheckId": b.p.APIHealthChecks[region]},
				Statistic:     jsii.String("Minimum"),
				Period:        awscdk.Duration_Minutes(jsii.Number(1)),
			}),
			AlarmDescription:   jsii.String("The /v1 API in " + region + " fails its Route 53 health check: /v1 is answered by the other regions"),
			Threshold:          jsii.Number(1),
			EvaluationPeriods:  jsii.Number(1),
			ComparisonOperator: awscloudwatch.ComparisonOperator_LESS_THAN_THRESHOLD,
			// Before a new check's first minute there is no data: not
			// an alarm, not OK either.
			TreatMissingData: awscloudwatch.TreatMissingData_MISSING,
		})
	}
}

// dashboard lays the widgets out three to a row: the APIs and tables,
// the streams, the functions.
func (b *builder) dashboard() {
	b.m.Dashboard = awscloudwatch.NewDashboard(b.scope, jsii.String("Dashboard"), &awscloudwatch.DashboardProps{
		DefaultInterval: awscdk.Duration_Hours(jsii.Number(3)),
	})
	for _, row := range [][]awscloudwatch.IWidget{b.apiWidgets, b.streamWidgets, b.lambdaWidgets} {
		for i := 0; i < len(row); i += 3 {
			b.m.Dashboard.AddWidgets(row[i:min(i+3, len(row))]...)
		}
	}
}

// CloudFrontMetric is one of distribution's metrics with both dimensions
// CloudFront publishes it with, DistributionId and Region=Global, in
// us-east-1 (the edge stack's Region)
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/programming-cloudwatch-metrics.html).
// CDK's own Distribution.Metric* name DistributionId only
// (https://github.com/aws/aws-cdk/issues/19245): such a metric has no
// data, so an alarm on it never fires and its graph stays empty.
func CloudFrontMetric(distribution awscloudfront.IDistribution, name, statistic string, period awscdk.Duration) awscloudwatch.Metric {
	return awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace:  jsii.String("AWS/CloudFront"),
		MetricName: jsii.String(name),
		DimensionsMap: &map[string]*string{
			"DistributionId": distribution.DistributionId(),
			"Region":         jsii.String("Global"),
		},
		Statistic: jsii.String(statistic),
		Period:    period,
	})
}
