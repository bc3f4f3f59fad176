package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/apispec"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/logtest"
)

// buildDir holds the local run's binary, built once per test binary.
var (
	buildOnce sync.Once
	buildDir  string
	localBin  string
	buildErr  error
)

func TestMain(m *testing.M) {
	testenv.Main(m)
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
}

// buildLocal builds cmd/shortener-local: a test cannot import package
// main, and running the real binary is what a user does anyway.
func buildLocal(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "shortener-cli-test-"); buildErr != nil {
			return
		}
		localBin = filepath.Join(buildDir, "shortener-local")
		out, err := exec.Command("go", "build", "-o", localBin, "../shortener-local").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build ../shortener-local: %w\n%s", err, out)
		}
	})
	require.NoError(t, buildErr)
	return localBin
}

// startLocal runs the local gateway on a free port, over the test
// DynamoDB Local and kinesalite with tables and a stream of its own, with
// the given API keys and any further settings (NAME=value), and returns
// its origin once it logs that it is ready.
func startLocal(t *testing.T, apiKeys string, env ...string) string {
	t.Helper()
	bin := buildLocal(t)
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(),
		"SHORTENER_ADDR=127.0.0.1:0",
		"SHORTENER_API_KEYS="+apiKeys,
		"SHORTENER_DYNAMODB_ENDPOINT="+testenv.DynamoDBEndpoint(t),
		"LINKS_TABLE="+testenv.UniqueName(t, "links"),
		"IDEMPOTENCY_TABLE="+testenv.UniqueName(t, "idem"),
		"SHORTENER_KINESIS_ENDPOINT="+testenv.KinesisEndpoint(t),
		"CLICKS_STREAM="+testenv.UniqueName(t, "clicks"),
		"ANALYTICS_TABLE="+testenv.UniqueName(t, "analytics"),
		"SHORTENER_EDGE_COUNTRY=DE",
	)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdout = io.Discard // EMF metrics
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	logs := &logtest.Buffer{}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Bytes()
			logs.Write(append(line, '\n'))
			var rec struct{ Msg, Origin string }
			if json.Unmarshal(line, &rec) == nil && rec.Msg == "ready" && rec.Origin != "" {
				select {
				case ready <- rec.Origin:
				default:
				}
			}
		}
	}()
	// exited is closed when the process has ended, so that both the wait
	// for readiness below and the cleanup can see it: a channel that
	// carried the error once would leave the cleanup of a run that failed
	// to start waiting forever.
	exited := make(chan struct{})
	var exitErr error
	go func() { exitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
			t.Errorf("the local run did not stop on SIGINT\n%s", logs.String())
		}
	})
	select {
	case origin := <-ready:
		return origin
	case <-exited:
		t.Fatalf("the local run exited before it was ready: %v\n%s", exitErr, logs.String())
	case <-time.After(2 * time.Minute):
		t.Fatalf("the local run was not ready after 2 minutes\n%s", logs.String())
	}
	return ""
}

// cli runs the CLI in-process against one endpoint, checking every
// request it sends and every answer it gets against api/openapi.yaml.
type cli struct {
	t         *testing.T
	env       map[string]string
	transport *apispec.Transport
}

func newCLI(t *testing.T, origin string, env map[string]string) *cli {
	t.Helper()
	doc, err := apispec.Load(context.Background(), apispec.Path())
	require.NoError(t, err)
	checker, err := apispec.New(doc, origin)
	require.NoError(t, err)
	e := map[string]string{"HOME": t.TempDir()} // no config file but the test's own
	for k, v := range env {
		e[k] = v
	}
	return &cli{t: t, env: e, transport: &apispec.Transport{Checker: checker}}
}

type result struct {
	stdout, stderr string
	code           int
}

func (c *cli) run(args ...string) result {
	c.t.Helper()
	var out, errb bytes.Buffer
	a := newApp(strings.NewReader(""), &out, &errb, func(k string) string { return c.env[k] })
	a.httpClient = &http.Client{Transport: c.transport}
	a.isTerminal = func(io.Writer) bool { return false }
	code := a.run(context.Background(), args)
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// ok runs args and requires exit code 0.
func (c *cli) ok(args ...string) string {
	c.t.Helper()
	r := c.run(args...)
	require.Equal(c.t, exitOK, r.code, "shortener %s\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.stdout, r.stderr)
	return r.stdout
}

// checkTraffic requires every answer the CLI got to conform to the
// document, and every request it sent to conform except the ones the
// test sent wrong on purpose (expectBadRequests of them).
func (c *cli) checkTraffic(expectBadRequests int) {
	c.t.Helper()
	bad := 0
	results := c.transport.Results()
	require.NotEmpty(c.t, results)
	for _, r := range results {
		require.NoError(c.t, r.ResponseErr, "an answer to the CLI (%s) breaks api/openapi.yaml", r.Operation)
		if r.RequestErr != nil {
			bad++
		}
	}
	require.Equal(c.t, expectBadRequests, bad, "requests the document refuses")
}
