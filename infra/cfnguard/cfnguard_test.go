package cfnguard_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/infra/cfnguard"
)

// testdata/output.json is what cfn-guard 3.1.1 printed for
// testdata/template.json with the Control Tower SQS rules and
// ct-lambda-pr-3.guard (--structured --show-summary none --output-format
// json): sqs_dlq_check fails on both queues, lambda_inside_vpc_check on the
// function. Only the DeadLetters queue suppresses its rule. (cfn-guard names
// each data file by its absolute path; the fixture's is made relative.)
func TestUnsuppressed(t *testing.T) {
	output, err := os.ReadFile("testdata/output.json")
	require.NoError(t, err)
	got, err := cfnguard.Unsuppressed(output)
	require.NoError(t, err)
	assert.Equal(t, []cfnguard.Finding{
		{Template: "template.json", Rule: "lambda_inside_vpc_check", Control: "CT.LAMBDA.PR.3", Resource: "Handler",
			Message: "Require an AWS Lambda function to be in a customer-managed Amazon Virtual Private Cloud (VPC)"},
		{Template: "template.json", Rule: "sqs_dlq_check", Control: "CT.SQS.PR.1", Resource: "Work",
			Message: "Require any Amazon SQS queue to have a dead-letter queue configured"},
	}, got)
}

func TestSuppressions(t *testing.T) {
	got, err := cfnguard.Suppressions("testdata/template.json")
	require.NoError(t, err)
	assert.Equal(t, map[string][]string{
		"DeadLetters": {"sqs_dlq_check"},
		"Handler":     {"some_other_rule"},
	}, got)
}

func TestUnsuppressedRefusesWhatIsNotCfnGuardOutput(t *testing.T) {
	_, err := cfnguard.Unsuppressed([]byte("Error occurred Cannot provide a summary-type other than `none`"))
	assert.ErrorContains(t, err, "cfn-guard output")
	_, err = cfnguard.Unsuppressed([]byte(`[{"name":"testdata/missing.json","not_compliant":[{"Rule":{"name":"r"}}]}]`))
	assert.Error(t, err, "a template cfn-guard named must be readable to apply its suppressions")
}

func TestCheckReportsAMissingBinary(t *testing.T) {
	_, err := cfnguard.Check(t.Context(), "testdata/no-such-cfn-guard", "testdata", []string{"testdata/template.json"})
	assert.ErrorContains(t, err, "cfn-guard")
}
