// Command emulators runs DynamoDB Local and kinesalite on fixed ports of
// 127.0.0.1 for local development and for test runs that share one pair of
// emulators, until it receives SIGINT or SIGTERM.
//
// Usage:
//
//	go run ./cmd/emulators [-dynamodb-port 8000] [-kinesis-port 4567]
//
// Once both emulators answer requests it prints their endpoints in the form
// the tests read (see internal/emulator/testenv):
//
//	SHORTENER_TEST_DYNAMODB_ENDPOINT=http://127.0.0.1:8000
//	SHORTENER_TEST_KINESIS_ENDPOINT=http://127.0.0.1:4567
//
// With -env-file it also writes those lines to a file, atomically and only
// once everything is ready, and removes the file on exit; a script running
// the command in the background can wait for that file and then source it.
// -pid-file records the command's own process ID for a later kill, and
// -log-dir sends the emulators' output to dynamodb.log and kinesalite.log
// there instead of standard error. For example:
//
//	go build -o build/bin/emulators ./cmd/emulators
//	build/bin/emulators -env-file .dev/emulators.env -pid-file .dev/emulators.pid -log-dir .dev &
//	while [ ! -f .dev/emulators.env ]; do sleep 0.2; done
//	set -a; . .dev/emulators.env; set +a; go test ./...
//	kill "$(cat .dev/emulators.pid)"
//
// A value of 0 for a port lets the kernel choose one; -dynamodb=false or
// -kinesis=false leaves that emulator out. If an emulator dies, the command
// stops the other one and exits with status 1.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/shortlink-dev/shortener/internal/emulator"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// config holds the command-line flags.
type config struct {
	dynamoDB, kinesis         bool
	dynamoDBPort, kinesisPort int
	envFile, pidFile, logDir  string
	repoRoot                  string
	timeout                   time.Duration
}

func run(args []string) int {
	fs := flag.NewFlagSet("emulators", flag.ContinueOnError)
	var c config
	fs.BoolVar(&c.dynamoDB, "dynamodb", true, "run DynamoDB Local")
	fs.BoolVar(&c.kinesis, "kinesis", true, "run kinesalite")
	fs.IntVar(&c.dynamoDBPort, "dynamodb-port", 8000, "DynamoDB Local `port` on 127.0.0.1 (0 picks a free one)")
	fs.IntVar(&c.kinesisPort, "kinesis-port", 4567, "kinesalite `port` on 127.0.0.1 (0 picks a free one)")
	fs.StringVar(&c.envFile, "env-file", "", "write the endpoint variables to this `file` once ready; removed on exit")
	fs.StringVar(&c.pidFile, "pid-file", "", "write this command's process ID to this `file`; removed on exit")
	fs.StringVar(&c.logDir, "log-dir", "", "write emulator output to dynamodb.log and kinesalite.log in this `directory` instead of standard error")
	fs.StringVar(&c.repoRoot, "repo-root", "", "repository root (default: found from the working directory)")
	fs.DurationVar(&c.timeout, "timeout", emulator.DefaultStartTimeout, "how long to wait for each emulator to start")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "emulators: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if !c.dynamoDB && !c.kinesis {
		fmt.Fprintln(os.Stderr, "emulators: nothing to run (-dynamodb=false and -kinesis=false)")
		return 2
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, c); err != nil {
		fmt.Fprintf(os.Stderr, "emulators: %v\n", err)
		return 1
	}
	return 0
}

// emulatorRun is one emulator being started or running.
type emulatorRun struct {
	envVar  string
	logName string
	start   func(ctx context.Context, out io.Writer) (*emulator.Process, error)

	proc *emulator.Process
	err  error
	log  *os.File
}

// serve starts the configured emulators, reports their endpoints and keeps
// them running until ctx is done or one of them exits.
func serve(ctx context.Context, c config) (err error) {
	if c.pidFile != "" {
		if err := writeFileAtomic(c.pidFile, strconv.Itoa(os.Getpid())+"\n"); err != nil {
			return fmt.Errorf("write pid file: %w", err)
		}
		defer os.Remove(c.pidFile)
	}

	var runs []*emulatorRun
	if c.dynamoDB {
		runs = append(runs, &emulatorRun{
			envVar:  "SHORTENER_TEST_DYNAMODB_ENDPOINT",
			logName: "dynamodb",
			start: func(ctx context.Context, out io.Writer) (*emulator.Process, error) {
				return emulator.StartDynamoDB(ctx, emulator.DynamoDBOptions{
					RepoRoot: c.repoRoot, Port: c.dynamoDBPort, StartTimeout: c.timeout, Output: out,
				})
			},
		})
	}
	if c.kinesis {
		runs = append(runs, &emulatorRun{
			envVar:  "SHORTENER_TEST_KINESIS_ENDPOINT",
			logName: "kinesalite",
			start: func(ctx context.Context, out io.Writer) (*emulator.Process, error) {
				return emulator.StartKinesalite(ctx, emulator.KinesaliteOptions{
					RepoRoot: c.repoRoot, Port: c.kinesisPort, StartTimeout: c.timeout, Output: out,
				})
			},
		})
	}

	defer func() {
		for _, r := range runs {
			if r.proc != nil {
				if stopErr := r.proc.Stop(); stopErr != nil && err == nil {
					err = stopErr
				}
			}
			if r.log != nil {
				_ = r.log.Close()
			}
		}
	}()

	var wg sync.WaitGroup
	for _, r := range runs {
		var out io.Writer = &prefixWriter{prefix: "[" + r.logName + "] ", w: os.Stderr}
		if c.logDir != "" {
			if err := os.MkdirAll(c.logDir, 0o755); err != nil {
				return fmt.Errorf("create log directory: %w", err)
			}
			f, err := os.Create(filepath.Join(c.logDir, r.logName+".log"))
			if err != nil {
				return fmt.Errorf("create log file: %w", err)
			}
			r.log = f
			out = f
		}
		wg.Go(func() { r.proc, r.err = r.start(ctx, out) })
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil // interrupted while starting
	}

	var env string
	for _, r := range runs {
		if r.err != nil {
			return r.err
		}
		env += r.envVar + "=" + r.proc.Endpoint() + "\n"
	}
	if _, err := io.WriteString(os.Stdout, env); err != nil {
		return fmt.Errorf("write endpoints: %w", err)
	}
	if c.envFile != "" {
		if err := writeFileAtomic(c.envFile, env); err != nil {
			return fmt.Errorf("write env file: %w", err)
		}
		defer os.Remove(c.envFile)
	}

	died := make(chan *emulatorRun, len(runs))
	for _, r := range runs {
		go func() {
			<-r.proc.Done()
			died <- r
		}()
	}
	select {
	case <-ctx.Done():
		return nil
	case r := <-died:
		return fmt.Errorf("%s exited unexpectedly: %v\n%s", r.logName, r.proc.Err(), r.proc.Output())
	}
}

// writeFileAtomic writes data to a temporary file next to path and renames
// it into place, so readers never see a partial file.
func writeFileAtomic(path, data string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // fails harmlessly once renamed
	if _, err := f.WriteString(data); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// prefixWriter writes each line it is given with a prefix. The emulator
// package hands it one whole line per Write.
type prefixWriter struct {
	prefix string
	w      io.Writer
	mu     sync.Mutex
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := io.WriteString(p.w, p.prefix+string(b)); err != nil {
		return 0, err
	}
	return len(b), nil
}
