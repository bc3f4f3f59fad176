package emulator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

const (
	// DefaultStartTimeout bounds how long a Start function waits for an
	// emulator to answer its first request when the options give no timeout.
	DefaultStartTimeout = 60 * time.Second

	// stopGrace is how long Stop waits after SIGTERM before it sends SIGKILL.
	stopGrace = 5 * time.Second

	// probeInterval is the pause between readiness probes.
	probeInterval = 100 * time.Millisecond

	// probeTimeout bounds a single readiness probe.
	probeTimeout = 2 * time.Second

	// tailLines is how many lines of emulator output are kept for error
	// messages.
	tailLines = 40
)

// Process is a running emulator started by StartDynamoDB or StartKinesalite.
// Its methods are safe for concurrent use.
type Process struct {
	name     string
	endpoint string
	port     int

	cmd   *exec.Cmd
	stdin io.Closer
	out   *outputLog

	done    chan struct{} // closed once the process has exited and been reaped
	exitErr error         // written before done is closed

	stopOnce sync.Once
	stopErr  error
}

// Endpoint returns the emulator's base URL, for example
// "http://127.0.0.1:8000".
func (p *Process) Endpoint() string { return p.endpoint }

// Port returns the TCP port the emulator listens on at 127.0.0.1.
func (p *Process) Port() int { return p.port }

// PID returns the operating system process ID of the emulator.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Done returns a channel that is closed when the emulator process has exited,
// whether because Stop was called or because it died.
func (p *Process) Done() <-chan struct{} { return p.done }

// Err returns nil while the emulator runs. After Done is closed it returns the
// reason the process exited, as reported by os/exec.
func (p *Process) Err() error {
	select {
	case <-p.done:
		return p.exitErr
	default:
		return nil
	}
}

// Output returns the last lines the emulator wrote to standard output and
// standard error.
func (p *Process) Output() string { return p.out.tail() }

// Stop terminates the emulator's process group (SIGTERM, then SIGKILL after a
// grace period) and waits for the process to exit. It returns an error only
// if the emulator had already exited on its own with a failure before Stop
// was called. Calling Stop more than once is safe.
func (p *Process) Stop() error {
	p.stopOnce.Do(func() {
		select {
		case <-p.done:
			if p.exitErr != nil {
				p.stopErr = fmt.Errorf("stop %s: exited before Stop: %w", p.name, p.exitErr)
			}
			return
		default:
		}
		_ = p.stdin.Close()
		_ = terminateGroup(p.cmd.Process)
		select {
		case <-p.done:
		case <-time.After(stopGrace):
			_ = killGroup(p.cmd.Process)
			<-p.done
		}
	})
	return p.stopErr
}

// launchSpec describes how to start one emulator.
type launchSpec struct {
	name        string // for messages, e.g. "dynamodb local"
	path        string // executable
	args        []string
	dir         string
	readyPrefix string // stdout line prefix followed by the endpoint URL
	wantPort    int    // 0 if any port is fine
	output      io.Writer
	timeout     time.Duration
	probe       func(ctx context.Context, endpoint string) error
}

// launch starts the emulator described by spec and waits until it has
// printed its ready line and answered a probe request.
func launch(ctx context.Context, spec launchSpec) (*Process, error) {
	timeout := spec.timeout
	if timeout <= 0 {
		timeout = DefaultStartTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	ready := make(chan string, 1)
	out := &outputLog{copyTo: spec.output, readyPrefix: spec.readyPrefix, ready: ready}

	cmd := exec.Command(spec.path, spec.args...)
	cmd.Dir = spec.dir
	cmd.Stdout = out.stream()
	cmd.Stderr = out.stream()
	cmd.SysProcAttr = sysProcAttr()
	cmd.WaitDelay = stopGrace
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", spec.name, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", spec.name, err)
	}

	p := &Process{
		name:  spec.name,
		cmd:   cmd,
		stdin: stdin,
		out:   out,
		done:  make(chan struct{}),
	}
	go func() {
		p.exitErr = cmd.Wait()
		close(p.done)
	}()

	fail := func(format string, args ...any) (*Process, error) {
		_ = p.Stop()
		msg := fmt.Sprintf(format, args...)
		if tail := out.tail(); tail != "" {
			msg += "\n--- " + spec.name + " output ---\n" + tail
		}
		return nil, fmt.Errorf("start %s: %s", spec.name, msg)
	}

	select {
	case endpoint := <-ready:
		port, err := endpointPort(endpoint)
		if err != nil {
			return fail("bad ready line: %v", err)
		}
		if spec.wantPort != 0 && port != spec.wantPort {
			return fail("listening on port %d, want %d", port, spec.wantPort)
		}
		p.endpoint, p.port = endpoint, port
	case <-p.done:
		return fail("exited before it was ready: %v", p.exitErr)
	case <-ctx.Done():
		return fail("not listening: %v", gaveUp(ctx, timeout))
	}

	var lastErr error
	for {
		pctx, pcancel := context.WithTimeout(ctx, probeTimeout)
		lastErr = spec.probe(pctx, p.endpoint)
		pcancel()
		if lastErr == nil {
			return p, nil
		}
		select {
		case <-p.done:
			return fail("exited before it was ready: %v", p.exitErr)
		case <-ctx.Done():
			return fail("no successful request to %s (%v): %v", p.endpoint, gaveUp(ctx, timeout), lastErr)
		case <-time.After(probeInterval):
		}
	}
}

// gaveUp explains why waiting for an emulator stopped.
func gaveUp(ctx context.Context, timeout time.Duration) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("gave up after %v", timeout)
	}
	return context.Cause(ctx)
}

// endpointPort checks that endpoint is an http URL on 127.0.0.1 and returns
// its port.
func endpointPort(endpoint string) (int, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return 0, err
	}
	if u.Scheme != "http" || u.Hostname() != "127.0.0.1" {
		return 0, fmt.Errorf("endpoint %q is not http://127.0.0.1:PORT", endpoint)
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil || port <= 0 || port > 65535 {
		return 0, fmt.Errorf("endpoint %q has no valid port", endpoint)
	}
	return port, nil
}

// outputLog collects an emulator's output line by line. It keeps the last
// lines for error messages, copies every line to copyTo and reports the
// endpoint from the first line that starts with readyPrefix.
type outputLog struct {
	copyTo      io.Writer
	readyPrefix string
	ready       chan<- string

	mu        sync.Mutex
	lines     []string
	sawReady  bool
	copyError bool
}

// stream returns a writer for one output stream. Each stream buffers its own
// partial line.
func (l *outputLog) stream() io.Writer { return &lineWriter{log: l} }

func (l *outputLog) addLine(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, line)
	if len(l.lines) > tailLines {
		l.lines = l.lines[len(l.lines)-tailLines:]
	}
	if l.copyTo != nil && !l.copyError {
		if _, err := io.WriteString(l.copyTo, line+"\n"); err != nil {
			l.copyError = true
		}
	}
	if !l.sawReady && strings.HasPrefix(line, l.readyPrefix) {
		l.sawReady = true
		l.ready <- strings.TrimSpace(strings.TrimPrefix(line, l.readyPrefix))
	}
}

func (l *outputLog) tail() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// lineWriter splits one stream into lines for an outputLog.
type lineWriter struct {
	log     *outputLog
	partial []byte
}

func (w *lineWriter) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			w.partial = append(w.partial, b...)
			break
		}
		line := append(w.partial, b[:i]...)
		w.partial = w.partial[:0]
		w.log.addLine(strings.TrimRight(string(line), "\r"))
		b = b[i+1:]
	}
	return n, nil
}

// ErrPrerequisite is matched (with errors.Is) by errors that say a tool such
// as java or node, or an npm package, is missing.
var ErrPrerequisite = errors.New("emulator prerequisite missing")
