// Package testenv gives tests of other packages the local AWS emulators
// started by package emulator: one DynamoDB Local and one kinesalite per test
// binary, started lazily on first use and shared by all its tests.
//
// A package using it calls Main from its TestMain so that the emulators are
// stopped when its tests finish:
//
//	func TestMain(m *testing.M) { testenv.Main(m) }
//
//	func TestSomething(t *testing.T) {
//		db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
//		table := testenv.UniqueName(t, "links")
//		...
//	}
//
// (Without Main the emulators still die with the test binary, but later.)
//
// When SHORTENER_TEST_DYNAMODB_ENDPOINT or SHORTENER_TEST_KINESIS_ENDPOINT is
// set, for example to the endpoints printed by `go run ./cmd/emulators`, that
// emulator is used instead of starting one. Since emulators may be shared,
// tests must name their tables and streams with UniqueName.
//
// Tests never skip for lack of an emulator: if one cannot be started the test
// fails, with instructions.
package testenv

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"

	"github.com/shortlink-dev/shortener/internal/emulator"
)

const (
	// DynamoDBEndpointEnv names the environment variable that points tests
	// at an already running DynamoDB Local.
	DynamoDBEndpointEnv = "SHORTENER_TEST_DYNAMODB_ENDPOINT"

	// KinesisEndpointEnv names the environment variable that points tests at
	// an already running kinesalite.
	KinesisEndpointEnv = "SHORTENER_TEST_KINESIS_ENDPOINT"

	// startTimeout bounds starting an emulator, compiling the DynamoDB Local
	// launcher included. It is generous because a JVM starting on a busy
	// two-core machine (go test runs packages in parallel) can take half a
	// minute, and tests fail rather than skip when it is exceeded.
	startTimeout = 2 * time.Minute

	// checkTimeout bounds the reachability check of an endpoint taken from
	// the environment.
	checkTimeout = 15 * time.Second
)

// shared is one emulator shared by the tests of a test binary.
type shared struct {
	name    string // for messages
	envVar  string
	install string

	once     sync.Once
	endpoint string
	err      error

	mu   sync.Mutex
	proc *emulator.Process
}

var (
	dynamoDB = &shared{
		name:    "DynamoDB Local",
		envVar:  DynamoDBEndpointEnv,
		install: "install a Java 17+ JDK (java and javac on PATH, or JAVA_HOME) and run `npm ci` in the repository root",
	}
	kinesalite = &shared{
		name:    "kinesalite",
		envVar:  KinesisEndpointEnv,
		install: "install Node.js and run `npm ci` in the repository root",
	}
)

// Main runs the tests of m and then stops the emulators that were started
// for them. Call it from TestMain; TestMain may return right after it, since
// the testing package then exits with the tests' status.
func Main(m *testing.M) {
	m.Run()
	for _, s := range []*shared{dynamoDB, kinesalite} {
		if err := s.stop(); err != nil {
			fmt.Fprintf(os.Stderr, "testenv: %v\n", err)
		}
	}
}

// DynamoDBEndpoint returns the endpoint of a DynamoDB Local for tests. It is
// $SHORTENER_TEST_DYNAMODB_ENDPOINT if set; otherwise the first call starts
// one DynamoDB Local (in memory, shared database) that serves every test of
// the binary until Main stops it. If no emulator is available, t fails.
func DynamoDBEndpoint(t testing.TB) string {
	t.Helper()
	return dynamoDB.get(t,
		func(ctx context.Context) (*emulator.Process, error) {
			return emulator.StartDynamoDB(ctx, emulator.DynamoDBOptions{})
		},
		func(ctx context.Context, endpoint string) error {
			_, err := emulator.NewDynamoDBClient(endpoint).ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(1)})
			return err
		})
}

// KinesisEndpoint returns the endpoint of a kinesalite for tests. It is
// $SHORTENER_TEST_KINESIS_ENDPOINT if set; otherwise the first call starts
// one kinesalite that serves every test of the binary until Main stops it.
// If no emulator is available, t fails.
func KinesisEndpoint(t testing.TB) string {
	t.Helper()
	return kinesalite.get(t,
		func(ctx context.Context) (*emulator.Process, error) {
			return emulator.StartKinesalite(ctx, emulator.KinesaliteOptions{})
		},
		func(ctx context.Context, endpoint string) error {
			_, err := emulator.NewKinesisClient(endpoint).ListStreams(ctx, &kinesis.ListStreamsInput{Limit: aws.Int32(1)})
			return err
		})
}

// DynamoDBClient returns a new DynamoDB client for DynamoDBEndpoint(t).
func DynamoDBClient(t testing.TB) *dynamodb.Client {
	t.Helper()
	return emulator.NewDynamoDBClient(DynamoDBEndpoint(t))
}

// StreamsClient returns a new DynamoDB Streams client for
// DynamoDBEndpoint(t).
func StreamsClient(t testing.TB) *dynamodbstreams.Client {
	t.Helper()
	return emulator.NewStreamsClient(DynamoDBEndpoint(t))
}

// KinesisClient returns a new Kinesis client for KinesisEndpoint(t).
func KinesisClient(t testing.TB) *kinesis.Client {
	t.Helper()
	return emulator.NewKinesisClient(KinesisEndpoint(t))
}

// get returns the shared emulator's endpoint, starting the emulator or
// checking the one named by the environment on first use.
func (s *shared) get(t testing.TB,
	start func(context.Context) (*emulator.Process, error),
	check func(context.Context, string) error,
) string {
	t.Helper()
	s.once.Do(func() {
		if ep := os.Getenv(s.envVar); ep != "" {
			ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
			defer cancel()
			if err := check(ctx, ep); err != nil {
				s.err = fmt.Errorf("%s=%s is set but does not answer: %w\n"+
					"Start the emulators with `go run ./cmd/emulators`, or unset %s to have tests start their own",
					s.envVar, ep, err, s.envVar)
				return
			}
			s.endpoint = ep
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
		defer cancel()
		p, err := start(ctx)
		if err != nil {
			s.err = fmt.Errorf("cannot start %s: %w\nTo fix: %s. Or set %s to the endpoint of a running emulator (`go run ./cmd/emulators`)",
				s.name, err, s.install, s.envVar)
			return
		}
		s.mu.Lock()
		s.proc = p
		s.mu.Unlock()
		s.endpoint = p.Endpoint()
	})
	if s.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("testenv: %s is required and tests never skip under CI: %v", s.name, s.err)
		}
		t.Fatalf("testenv: %s is required: %v", s.name, s.err)
	}
	return s.endpoint
}

// stop stops the emulator if this binary started it.
func (s *shared) stop() error {
	s.mu.Lock()
	p := s.proc
	s.proc = nil
	s.mu.Unlock()
	if p == nil {
		return nil
	}
	if err := p.Stop(); err != nil {
		return fmt.Errorf("stop %s: %w", s.name, err)
	}
	return nil
}

// UniqueName returns a DynamoDB table or Kinesis stream name that is unique
// to this call: prefix, a readable form of the test's name, a hash of the
// full test name and a random suffix, joined by dashes. The result uses only
// [a-zA-Z0-9_.-] and is 3 to 128 characters long, valid for both services.
func UniqueName(t testing.TB, prefix string) string {
	t.Helper()
	// Two readable parts of at most 40 bytes, 6 hex digits of hash and 8 of
	// random with three dashes stay under Kinesis's limit of 128 characters
	// (DynamoDB allows 255).
	const maxPart = 40
	sum := sha256.Sum256([]byte(t.Name()))
	parts := []string{}
	if p := sanitize(prefix, maxPart); p != "" {
		parts = append(parts, p)
	}
	if n := sanitize(t.Name(), maxPart); n != "" {
		parts = append(parts, n)
	}
	parts = append(parts, hex.EncodeToString(sum[:3]), fmt.Sprintf("%08x", rand.Uint32()))
	return strings.Join(parts, "-")
}

// sanitize replaces characters not allowed in table and stream names with
// '_' and keeps at most max bytes.
func sanitize(s string, max int) string {
	b := make([]byte, 0, min(len(s), max))
	for i := 0; i < len(s) && len(b) < max; i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '.', c == '-':
			b = append(b, c)
		default:
			b = append(b, '_')
		}
	}
	return string(b)
}
