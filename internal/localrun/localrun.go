// Package localrun starts the local run (cmd/shortener-local) as a process
// of its own, the way a person runs `make dev`, for the load generator and
// the soak: they measure and check the command as it ships, in a process
// apart from the client's, on 127.0.0.1 only.
package localrun

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Package is the local run's import path.
const Package = "github.com/shortlink-dev/shortener/cmd/shortener-local"

// Build compiles the local run into dir and returns the binary's path.
func Build(ctx context.Context, dir string) (string, error) {
	abs, err := filepath.Abs(filepath.Join(dir, "shortener-local"))
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-o", abs, Package)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", Package, err, out)
	}
	return abs, nil
}

// Run is a running local run.
type Run struct {
	// Origin is where it serves: the edge, and the API behind it.
	Origin string
	// DynamoDB and Kinesis are the emulators' endpoints it uses.
	DynamoDB, Kinesis string

	cmd     *exec.Cmd
	done    chan struct{}
	exitErr error

	mu   sync.Mutex
	tail []string
}

const tailLines = 40

// Start runs the binary with the environment of this process plus env,
// which wins, and waits until it logs that it is ready (startTimeout at
// most: DynamoDB Local is a JVM). Its JSON log lines go to log (nil drops
// them); the last ones are kept for error messages. SHORTENER_ADDR
// defaults to 127.0.0.1:0 and the emulator ports to free ones.
func Start(ctx context.Context, bin string, env map[string]string, log io.Writer, startTimeout time.Duration) (*Run, error) {
	merged := map[string]string{
		"SHORTENER_ADDR":          "127.0.0.1:0",
		"SHORTENER_DYNAMODB_PORT": "0",
		"SHORTENER_KINESIS_PORT":  "0",
	}
	for k, v := range env {
		merged[k] = v
	}
	cmd := exec.Command(bin)
	cmd.Env = os.Environ()
	for k, v := range merged {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdout = io.Discard // the functions' EMF metrics
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	r := &Run{cmd: cmd, done: make(chan struct{})}
	ready := make(chan readyLine, 1)
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		r.scan(stderr, log, ready)
	}()
	go func() {
		<-scanned // Wait closes the pipe: read it to the end first
		r.exitErr = cmd.Wait()
		close(r.done)
	}()
	select {
	case l := <-ready:
		r.Origin, r.DynamoDB, r.Kinesis = l.Origin, l.DynamoDB, l.Kinesis
		return r, nil
	case <-r.done:
		return nil, fmt.Errorf("the local run exited before it was ready: %v\n%s", r.exitErr, r.Output())
	case <-time.After(startTimeout):
		r.Stop()
		return nil, fmt.Errorf("the local run was not ready within %s\n%s", startTimeout, r.Output())
	case <-ctx.Done():
		r.Stop()
		return nil, ctx.Err()
	}
}

type readyLine struct {
	Msg      string `json:"msg"`
	Origin   string `json:"origin"`
	DynamoDB string `json:"dynamodb"`
	Kinesis  string `json:"kinesis"`
}

func (r *Run) scan(stderr io.Reader, log io.Writer, ready chan<- readyLine) {
	sc := bufio.NewScanner(stderr)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	found := false
	for sc.Scan() {
		line := sc.Bytes()
		if log != nil {
			log.Write(append(line, '\n'))
		}
		// With the access log on, every request logs a line: past the start, only warnings and
		// errors are kept, found near the start of the line, cheaply.
		head := line[:min(len(line), 80)]
		if !found || bytes.Contains(head, []byte(`"level":"ERROR"`)) || bytes.Contains(head, []byte(`"level":"WARN"`)) {
			r.keep(string(line))
		}
		if found || !bytes.Contains(line, []byte(`"msg":"ready"`)) {
			continue
		}
		var l readyLine
		if json.Unmarshal(line, &l) == nil && l.Msg == "ready" && l.Origin != "" {
			found = true
			ready <- l
		}
	}
	_, _ = io.Copy(io.Discard, stderr)
}

func (r *Run) keep(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tail = append(r.tail, line)
	if len(r.tail) > tailLines {
		r.tail = r.tail[len(r.tail)-tailLines:]
	}
}

// Output returns the last lines logged before it was ready and the last
// warnings and errors since.
func (r *Run) Output() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.tail, "\n")
}

// PID is the local run's process ID (its emulators are processes of
// their own).
func (r *Run) PID() int { return r.cmd.Process.Pid }

// Done is closed when the process has exited.
func (r *Run) Done() <-chan struct{} { return r.done }

// Stop asks the local run to shut down as Ctrl-C does (it stops its
// emulators), and kills it after 30 seconds. It returns the local run's
// exit error, if it failed.
func (r *Run) Stop() error {
	select {
	case <-r.done:
		return r.exited()
	default:
	}
	_ = r.cmd.Process.Signal(os.Interrupt)
	select {
	case <-r.done:
	case <-time.After(30 * time.Second):
		_ = killGroup(r.cmd.Process)
		<-r.done
	}
	return r.exited()
}

func (r *Run) exited() error {
	var exit *exec.ExitError
	if errors.As(r.exitErr, &exit) && !exit.Exited() {
		return nil // killed after it did not stop
	}
	return r.exitErr
}
