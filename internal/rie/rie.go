package rie

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The emulator, pinned. Its module is built with `go install`, not
// required by go.mod: see the package documentation.
const (
	Module  = "github.com/aws/aws-lambda-runtime-interface-emulator"
	Version = "v0.0.0-20261030222936-bef5c4ba774d"
	Package = Module + "/cmd/aws-lambda-rie"
)

// BuildFlags are the flags `make build` compiles every function with.
var BuildFlags = []string{"-tags", "lambda.norpc", "-trimpath", "-ldflags", "-s -w"}

// InvokePath is the emulator's invoke API, Lambda's Invoke API path.
const InvokePath = "/2015-03-31/functions/function/invocations"

// Install builds the pinned emulator into dir and returns its path. The Go
// build cache makes every call after the first one quick.
func Install(ctx context.Context, dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, "go", "install", Package+"@"+Version)
	cmd.Env = append(os.Environ(), "GOBIN="+abs, "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install %s@%s: %w\n%s", Package, Version, err, out)
	}
	return filepath.Join(abs, "aws-lambda-rie"), nil
}

// Build compiles the main packages pkgs (import paths of this module, or
// any the go command can resolve from the working directory) as Lambda
// bootstraps for linux and the host's architecture, with BuildFlags, in one
// go build. Each lands at dir/<last element of its path>/bootstrap, as
// `make build` lays them out; the map says where, by that name.
func Build(ctx context.Context, dir string, pkgs ...string) (map[string]string, error) {
	if len(pkgs) == 0 {
		return nil, errors.New("build: no packages")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	out := filepath.Join(abs, ".out") + string(filepath.Separator)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	args := append([]string{"build", "-o", out}, BuildFlags...)
	cmd := exec.CommandContext(ctx, "go", append(args, pkgs...)...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build %s: %w\n%s", strings.Join(pkgs, " "), err, b)
	}
	paths := map[string]string{}
	for _, p := range pkgs {
		name := path.Base(p)
		if _, dup := paths[name]; dup {
			return nil, fmt.Errorf("build: two packages named %s", name)
		}
		fnDir := filepath.Join(abs, name)
		if err := os.MkdirAll(fnDir, 0o755); err != nil {
			return nil, err
		}
		bootstrap := filepath.Join(fnDir, "bootstrap")
		if err := os.Rename(filepath.Join(out, name), bootstrap); err != nil {
			return nil, fmt.Errorf("build %s: %w", p, err)
		}
		paths[name] = bootstrap
	}
	return paths, nil
}

// Options start one function under the emulator.
type Options struct {
	// RIE is the emulator's path (from Install).
	RIE string
	// Bootstrap is the function's binary, handed to the emulator as the
	// command to run.
	Bootstrap string
	// Env is the whole environment of the emulator, which passes it on to
	// the function: nothing is inherited from this process. Set the
	// function's configuration, AWS_REGION and credentials here.
	Env map[string]string
	// Output, when not nil, receives everything the emulator and the
	// function write.
	Output io.Writer
	// StartTimeout bounds waiting for the emulator to listen (30 s when zero).
	StartTimeout time.Duration
}

// Function is a bootstrap running under the emulator. Its methods are safe
// for concurrent use; invokes are sent one at a time.
type Function struct {
	cmd     *exec.Cmd
	addr    string // the invoke API's host:port
	client  *http.Client
	started time.Time

	invoke sync.Mutex // the emulator takes one invoke at a time

	mu      sync.Mutex
	reports map[string]chan Report
	tail    []string // the last output lines, for error messages

	done    chan struct{}
	exitErr error
}

// Report is what the emulator's log says of one invoke.
type Report struct {
	// Init is the init duration: from exec of the bootstrap to its first
	// request for work. Only the first invoke of a Function has one.
	Init time.Duration
	// Duration is the invoke's duration in the function, init excluded.
	Duration time.Duration
}

// Result is one invoke's answer.
type Result struct {
	// Status is the emulator's HTTP status: 200 for a function that
	// returned, its error included (see FunctionError).
	Status int
	// Body is the function's response payload, or its error document.
	Body []byte
	// RoundTrip is the time from sending the invoke to the whole answer,
	// as a caller sees it; for a first invoke, init included.
	RoundTrip time.Duration
	Report
}

// FunctionError returns the errorMessage of a function error payload, or
// "" for a normal response.
func (r Result) FunctionError() string {
	if !bytes.HasPrefix(bytes.TrimSpace(r.Body), []byte(`{"errorMessage"`)) {
		return ""
	}
	return string(r.Body)
}

const tailLines = 60

// Start runs the emulator with the bootstrap. It returns once the emulator
// accepts connections; the function itself initialises on the first invoke.
func Start(ctx context.Context, o Options) (*Function, error) {
	if o.StartTimeout <= 0 {
		o.StartTimeout = 30 * time.Second
	}
	var lastErr error
	// The two ports are picked free and then handed over, so another
	// process may take one in between: try again with new ones.
	for range 3 {
		f, err := start(ctx, o)
		if err == nil {
			return f, nil
		}
		lastErr = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, lastErr
}

func start(ctx context.Context, o Options) (*Function, error) {
	addrs, err := freeAddrs(2)
	if err != nil {
		return nil, err
	}
	f := &Function{
		addr:    addrs[0],
		reports: map[string]chan Report{},
		done:    make(chan struct{}),
		client:  &http.Client{Transport: &http.Transport{DisableKeepAlives: true}},
	}
	cmd := exec.Command(o.RIE, "--log-level", "info", // Report reads info lines
		"--runtime-interface-emulator-address", addrs[0],
		"--runtime-api-address", addrs[1],
		o.Bootstrap)
	cmd.Dir = filepath.Dir(o.Bootstrap) // Lambda's /var/task
	env := make([]string, 0, len(o.Env))
	for _, k := range slices.Sorted(maps.Keys(o.Env)) {
		env = append(env, k+"="+o.Env[k])
	}
	cmd.Env = env
	cmd.SysProcAttr = sysProcAttr()
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	f.cmd = cmd
	f.started = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", o.RIE, err)
	}
	go f.scan(pr, o.Output)
	go func() {
		f.exitErr = cmd.Wait()
		pw.Close()
		close(f.done)
	}()

	deadline := time.Now().Add(o.StartTimeout)
	for {
		c, err := net.DialTimeout("tcp", f.addr, time.Second)
		if err == nil {
			c.Close()
			return f, nil
		}
		select {
		case <-f.done:
			return nil, fmt.Errorf("the emulator exited before it listened on %s: %v\n%s", f.addr, f.exitErr, f.Output())
		case <-ctx.Done():
			f.Stop()
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			f.Stop()
			return nil, fmt.Errorf("the emulator did not listen on %s within %s\n%s", f.addr, o.StartTimeout, f.Output())
		}
	}
}

var (
	reportLine = regexp.MustCompile(`^REPORT RequestId: (\S+)`)
	// The REPORT line's own "Init Duration" only times handing the init
	// to the emulator's core (a fraction of a millisecond); the core's
	// INIT REPORT line has the real one: from exec of the bootstrap to its
	// first request for work.
	initReport = regexp.MustCompile(`INIT REPORT\(durationMs: ([0-9.]+)\)`)
	invokeDone = regexp.MustCompile(`INVOKE RTDONE\(.*duration: ([0-9.]+)ms\)`)
)

// scan keeps the output's tail and hands the figures of each invoke, read
// from the emulator's log lines, to the invoke waiting for them.
func (f *Function) scan(r io.Reader, copyTo io.Writer) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var pending Report // of the invoke in progress, until its REPORT line
	for sc.Scan() {
		line := sc.Text()
		if copyTo != nil {
			fmt.Fprintln(copyTo, line)
		}
		f.mu.Lock()
		f.tail = append(f.tail, line)
		if len(f.tail) > tailLines {
			f.tail = f.tail[len(f.tail)-tailLines:]
		}
		f.mu.Unlock()
		if m := initReport.FindStringSubmatch(line); m != nil {
			pending.Init = millis(m[1])
		}
		if m := invokeDone.FindStringSubmatch(line); m != nil {
			pending.Duration = millis(m[1])
		}
		if m := reportLine.FindStringSubmatch(line); m != nil {
			f.report(m[1]) <- pending
			pending = Report{}
		}
	}
	_, _ = io.Copy(io.Discard, r)
}

// report returns the channel the REPORT of request id is delivered on.
func (f *Function) report(id string) chan Report {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch, ok := f.reports[id]
	if !ok {
		ch = make(chan Report, 1)
		f.reports[id] = ch
	}
	return ch
}

func millis(s string) time.Duration {
	v, _ := strconv.ParseFloat(s, 64)
	return time.Duration(v * float64(time.Millisecond))
}

// Invoke sends one event and waits for the answer and its REPORT line.
func (f *Function) Invoke(ctx context.Context, payload []byte) (Result, error) {
	f.invoke.Lock()
	defer f.invoke.Unlock()
	id := newRequestID()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+f.addr+InvokePath, bytes.NewReader(payload))
	if err != nil {
		return Result{}, err
	}
	req.Header.Set("X-Amzn-RequestId", id)
	start := time.Now()
	resp, err := f.client.Do(req)
	if err != nil {
		return Result{}, fmt.Errorf("invoke: %w\n%s", err, f.Output())
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	res := Result{Status: resp.StatusCode, Body: body, RoundTrip: time.Since(start)}
	if err != nil {
		return res, fmt.Errorf("invoke: read answer: %w", err)
	}
	// The emulator prints REPORT before it writes the answer; the line
	// may still be in the pipe.
	select {
	case res.Report = <-f.report(id):
	case <-time.After(5 * time.Second):
		return res, fmt.Errorf("invoke %s: no REPORT line from the emulator\n%s", id, f.Output())
	case <-ctx.Done():
		return res, ctx.Err()
	}
	f.mu.Lock()
	delete(f.reports, id)
	f.mu.Unlock()
	return res, nil
}

// Output returns the last lines the emulator and the function wrote.
func (f *Function) Output() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.tail, "\n")
}

// Stop ends the emulator and the function (SIGTERM to their process group,
// SIGKILL after two seconds) and waits for them.
func (f *Function) Stop() {
	select {
	case <-f.done:
		return
	default:
	}
	_ = terminateGroup(f.cmd.Process)
	select {
	case <-f.done:
	case <-time.After(2 * time.Second):
		_ = killGroup(f.cmd.Process)
		<-f.done
	}
}

// freeAddrs returns n distinct free host:port addresses on 127.0.0.1.
func freeAddrs(n int) ([]string, error) {
	var lns []net.Listener
	defer func() {
		for _, l := range lns {
			l.Close()
		}
	}()
	var addrs []string
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, l)
		addrs = append(addrs, l.Addr().String())
	}
	return addrs, nil
}

func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
