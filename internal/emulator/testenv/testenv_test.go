package testenv_test

import (
	"os"
	"os/exec"
	"regexp"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

var validName = regexp.MustCompile(`^[a-zA-Z0-9_.-]{3,128}$`)

func TestUniqueName(t *testing.T) {
	a := testenv.UniqueName(t, "links")
	b := testenv.UniqueName(t, "links")
	assert.NotEqual(t, a, b)
	assert.Regexp(t, `^links-TestUniqueName-[0-9a-f]{6}-[0-9a-f]{8}$`, a)

	t.Run("sub test/with odd chars: é and a very long name that goes on and on and on and on", func(t *testing.T) {
		for _, prefix := range []string{"", "x", "bad prefix!", "a-very-long-prefix-that-is-longer-than-forty-characters-for-sure"} {
			name := testenv.UniqueName(t, prefix)
			assert.Regexp(t, validName, name, "prefix %q", prefix)
		}
	})
}

func TestDynamoDBEndpoint(t *testing.T) {
	ep := testenv.DynamoDBEndpoint(t)
	assert.Equal(t, ep, testenv.DynamoDBEndpoint(t), "endpoint is shared")

	db := testenv.DynamoDBClient(t)
	_, err := db.ListTables(t.Context(), &dynamodb.ListTablesInput{Limit: aws.Int32(1)})
	require.NoError(t, err)
	_ = testenv.StreamsClient(t)
}

func TestKinesisEndpoint(t *testing.T) {
	ep := testenv.KinesisEndpoint(t)
	assert.Equal(t, ep, testenv.KinesisEndpoint(t), "endpoint is shared")

	k := testenv.KinesisClient(t)
	_, err := k.ListStreams(t.Context(), &kinesis.ListStreamsInput{})
	require.NoError(t, err)
}

// TestUnreachableEndpointFails checks, in a child test binary, that a bad
// endpoint in the environment makes a test fail rather than skip.
func TestUnreachableEndpointFails(t *testing.T) {
	if os.Getenv("TESTENV_CHILD") != "" {
		testenv.KinesisEndpoint(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestUnreachableEndpointFails$", "-test.v")
	cmd.Env = append(os.Environ(), "TESTENV_CHILD=1", testenv.KinesisEndpointEnv+"=http://127.0.0.1:1")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "child passed:\n%s", out)
	assert.Contains(t, string(out), "--- FAIL")
	assert.NotContains(t, string(out), "--- SKIP")
	assert.Contains(t, string(out), "does not answer")
}
