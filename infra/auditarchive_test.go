package infra_test

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/auditarchive/auditarchivefn"
	"github.com/shortlink-dev/shortener/infra"
	"github.com/shortlink-dev/shortener/infra/auditarchive"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// archived is the default app with the audit log's copy in S3 on
// (-c auditArchive=true, docs/audit.md), at its default retention.
var archived = &synthesized{name: "archived", overrides: map[string]any{infra.CtxAuditArchive: "true"}}

func TestAuditArchiveIsOffByDefault(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		t.Run(s.name, func(t *testing.T) {
			assert.Empty(t, s.data().resources("AWS::S3::Bucket"), "no bucket")
			for _, region := range s.cfg.Regions {
				_, ok := s.regional(region).function("auditarchive")
				assert.False(t, ok, "no archive function in %s", region)
				assert.NotContains(t, toJSON(map[string]any(s.regional(region))), "AUDIT_ARCHIVE_BUCKET")
			}
		})
	}
}

func TestAuditArchiveBucket(t *testing.T) {
	s := archived.get(t)
	buckets := s.data().resourcesNamed("AWS::S3::Bucket", "AuditArchiveBucket")
	require.Len(t, buckets, 1)
	b := buckets[0].Props
	assert.Equal(t, true, b["ObjectLockEnabled"])
	assert.Equal(t, map[string]any{
		"ObjectLockEnabled": "Enabled",
		"Rule":              map[string]any{"DefaultRetention": map[string]any{"Mode": "COMPLIANCE", "Days": float64(2555)}},
	}, b["ObjectLockConfiguration"], "COMPLIANCE for 7 years by default")
	assert.Equal(t, "Enabled", get(b, "VersioningConfiguration", "Status"))
	assert.Equal(t, map[string]any{"BlockPublicAcls": true, "BlockPublicPolicy": true, "IgnorePublicAcls": true, "RestrictPublicBuckets": true},
		b["PublicAccessBlockConfiguration"])
	assert.Equal(t, "aws:kms", get(b, "BucketEncryption", "ServerSideEncryptionConfiguration", 0, "ServerSideEncryptionByDefault", "SSEAlgorithm"))
	assert.Equal(t, true, get(b, "BucketEncryption", "ServerSideEncryptionConfiguration", 0, "BucketKeyEnabled"))
	assert.Equal(t, true, get(b, "NotificationConfiguration", "EventBridgeConfiguration", "EventBridgeEnabled"))
	logs := get(b, "LoggingConfiguration", "DestinationBucketName", "Ref")
	require.NotNil(t, logs, "server access logs")
	assert.Equal(t, "AWS::S3::Bucket", s.data().resource(logs.(string)).Type)
	for _, id := range []string{buckets[0].ID, logs.(string)} {
		raw := s.data()["Resources"].(map[string]any)[id].(map[string]any)
		assert.Equal(t, "Retain", raw["DeletionPolicy"], "%s is kept when the stack is deleted", id)
	}
	// TLS only: the bucket policy denies any request without it.
	var deniesPlainHTTP bool
	for _, p := range s.data().resources("AWS::S3::BucketPolicy") {
		if get(p.Props, "Bucket", "Ref") != buckets[0].ID {
			continue
		}
		for _, st := range asSlice(get(p.Props, "PolicyDocument", "Statement")) {
			if get(st, "Effect") == "Deny" && get(st, "Condition", "Bool", "aws:SecureTransport") == "false" {
				deniesPlainHTTP = true
			}
		}
	}
	assert.True(t, deniesPlainHTTP)
}

func TestAuditArchiveStreamAndMapping(t *testing.T) {
	s := archived.get(t)
	// With replicas the audit table has CDK's NEW_AND_OLD_IMAGES stream
	// already, whose records carry the new image; the option keeps it
	// (a view type cannot change in place). Without replicas it gets
	// NEW_IMAGE (infra/tables' own test).
	audit := s.data().resourcesNamed("AWS::DynamoDB::GlobalTable", "TablesAudit")
	require.Len(t, audit, 1)
	before := defaults.get(t).data().resourcesNamed("AWS::DynamoDB::GlobalTable", "TablesAudit")
	require.Len(t, before, 1)
	assert.Equal(t, map[string]any{"StreamViewType": string(tableschema.NewAndOldImages)}, audit[0].Props["StreamSpecification"])
	assert.Equal(t, before[0].Props["StreamSpecification"], audit[0].Props["StreamSpecification"], "unchanged by the option")

	primary := s.regional(s.cfg.PrimaryRegion)
	fn, ok := primary.function("auditarchive")
	require.True(t, ok, "the archive function in the primary Region")
	assert.Equal(t, "provided.al2023", fn.Props["Runtime"])
	assert.Equal(t, []any{"arm64"}, fn.Props["Architectures"])
	vars := get(fn.Props, "Environment", "Variables").(map[string]any)
	assert.Contains(t, toJSON(vars["AUDIT_ARCHIVE_BUCKET"]), "AuditArchiveBucket")
	for _, region := range s.cfg.SecondaryRegions() {
		_, ok := s.regional(region).function("auditarchive")
		assert.False(t, ok, "one consumer, in the primary: %s has none", region)
	}
	var mapping *resource
	for _, m := range primary.resources("AWS::Lambda::EventSourceMapping") {
		if get(m.Props, "FunctionName", "Ref") == fn.ID {
			mapping = &m
		}
	}
	require.NotNil(t, mapping)
	m := mapping.Props
	assert.Contains(t, toJSON(m["EventSourceArn"]), "TablesAudit", "the audit table's stream")
	assert.Equal(t, []any{"ReportBatchItemFailures"}, m["FunctionResponseTypes"])
	assert.Equal(t, true, m["BisectBatchOnFunctionError"])
	assert.Equal(t, float64(100), m["MaximumRetryAttempts"], "retries are bounded")
	assert.Contains(t, []any{nil, float64(-1)}, m["MaximumRecordAgeInSeconds"], "entries up to the stream's 24 hours are archived, not given up")
	assert.Equal(t, float64(1000), m["BatchSize"])
	assert.NotNil(t, get(m, "DestinationConfig", "OnFailure", "Destination"), "an on-failure queue")
}

// TestAuditArchiveRoleMayOnlyPut pins the function's role: s3:PutObject
// under audit/ of the archive bucket, its stream and its on-failure queue,
// and nothing else (no read, no delete, no retention change, no bypass).
func TestAuditArchiveRoleMayOnlyPut(t *testing.T) {
	assert.Equal(t, auditarchivefn.KeyPrefix, auditarchive.KeyPrefix, "the grant covers the keys the function writes")
	s := archived.get(t)
	primary := s.regional(s.cfg.PrimaryRegion)
	fn, ok := primary.function("auditarchive")
	require.True(t, ok)
	stmts, managed := primary.roleStatements(fn)
	for _, m := range managed {
		assert.NotContains(t, m, "S3", "no managed S3 policy")
	}
	var s3Actions, others []string
	for _, st := range stmts {
		require.Equal(t, "Allow", st.Effect)
		for _, a := range st.Actions {
			if strings.HasPrefix(a, "s3:") {
				s3Actions = append(s3Actions, a)
				assert.Contains(t, st.Resources, "AuditArchiveBucket")
				assert.True(t, strings.HasSuffix(strings.TrimSuffix(st.Resources, `"]]}`), `/audit/*`) ||
					strings.Contains(st.Resources, `/audit/*"`), "objects under audit/ only: %s", st.Resources)
				continue
			}
			others = append(others, a)
		}
	}
	assert.Equal(t, []string{"s3:PutObject"}, s3Actions)
	sort.Strings(others)
	others = slices.Compact(others)
	assert.Equal(t, []string{
		"dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator", "dynamodb:ListStreams",
		"logs:CreateLogStream", "logs:PutLogEvents",
		"sqs:GetQueueAttributes", "sqs:GetQueueUrl", "sqs:SendMessage",
	}, withoutLogs(others))
}

// withoutLogs keeps the log actions only if the role carries them itself
// (golambda's log group grant), so the list reads the same either way.
func withoutLogs(actions []string) []string {
	if !slices.Contains(actions, "logs:PutLogEvents") {
		actions = append(actions, "logs:CreateLogStream", "logs:PutLogEvents")
		sort.Strings(actions)
	}
	return actions
}

func TestAuditArchiveAlarms(t *testing.T) {
	s := archived.get(t)
	primary := s.regional(s.cfg.PrimaryRegion)
	var failures, deadLetters, age bool
	for _, a := range primary.resources("AWS::CloudWatch::Alarm") {
		switch {
		case a.Props["MetricName"] == auditarchivefn.MetricFailures:
			failures = true
			assert.Equal(t, "Shortener", a.Props["Namespace"])
			assert.Equal(t, []any{map[string]any{"Name": "function", "Value": "auditarchive"}}, a.Props["Dimensions"])
			assert.Equal(t, float64(1), a.Props["Threshold"])
		case strings.HasPrefix(a.ID, "MonitoringauditarchiveDeadLetters"):
			deadLetters = true
		case strings.HasPrefix(a.ID, "MonitoringauditarchiveIteratorAge"):
			age = true
		}
	}
	assert.True(t, failures, "an alarm on AuditArchiveFailures")
	assert.True(t, deadLetters, "an alarm on the on-failure queue")
	assert.True(t, age, "an alarm on the consumer falling behind")
}
