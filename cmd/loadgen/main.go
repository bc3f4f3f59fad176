// Command loadgen measures the local run (cmd/shortener-local) under load,
// each path next to a baseline measured in the same run, on 127.0.0.1:
//
//   - redirects answered by the edge (the local CloudFront: a small set of
//     established codes, so every request is a cache hit) next to a bare
//     net/http server that answers a fixed 302, in a process of its own;
//     first on a local run whose real-time log goes to a null Kinesis (the
//     edge's own cost), then on the whole local run, whose click pipeline
//     (kinesalite, the clicks function, DynamoDB Local) shares the machine;
//   - redirects the edge misses (distinct codes, each requested once: the
//     edge, the gateway, the redirect function's cache miss and a DynamoDB
//     GetItem), next to raw GetItem calls for the same codes on the same
//     DynamoDB Local, and to the bare server;
//   - creates (POST /v1/links) next to a loop of raw conditional PutItem
//     calls on the same DynamoDB Local, at the same concurrency.
//
// It builds and starts the local run itself (which starts DynamoDB Local
// and kinesalite), with its per-request access log off unless -access-log
// says otherwise (each phase's line says which; the edge's real-time log
// is always on), alternates each pair of phases for -rounds rounds (edge
// hits without the click pipeline take one-second turns with the bare
// server, so both see the same shared machine; with the pipeline, which
// of the two goes first swaps each round), waits after each phase until
// the click pipeline has caught up, and prints
// req/s, p50, p99 and p99.9 per phase, the server's CPU per request and
// the ratios; and for each local run the links' redirects its edge served,
// the real-time log records it dropped (its buffer full: best effort, as
// CloudFront's) and, with the click pipeline, the clicks counted. Every
// phase is bounded in time and in count. Run it from the repository (the
// local run finds DynamoDB Local's jar there).
//
//	go run ./cmd/loadgen            (make load)
//	go run ./cmd/loadgen -h         for the knobs
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == bareServerArg {
		serveBare() // the baseline's own process
		return
	}
	var c settings
	flag.IntVar(&c.concurrency, "concurrency", 32, "workers (connections) for the redirect phases")
	flag.IntVar(&c.missConcurrency, "miss-concurrency", 8, "workers for the edge-miss and GetItem phases")
	flag.IntVar(&c.createConcurrency, "create-concurrency", 16, "workers for the create and PutItem phases")
	flag.DurationVar(&c.duration, "duration", 8*time.Second, "measured time of each phase")
	flag.DurationVar(&c.warmup, "warmup", 2*time.Second, "unmeasured time before each phase")
	flag.IntVar(&c.maxRequests, "max-requests", 400_000, "measured requests of each phase at most")
	flag.IntVar(&c.rounds, "rounds", 4, "rounds of each pair of phases (the baseline and the local run)")
	flag.IntVar(&c.hotCodes, "hot-codes", 16, "established codes the edge-hit phase repeats")
	flag.IntVar(&c.missCodes, "miss-codes", 8_000, "distinct codes written for the edge-miss phase (each requested once)")
	flag.StringVar(&c.binary, "local-run", "", "a built cmd/shortener-local (default: build one)")
	flag.BoolVar(&c.verbose, "v", false, "copy the local run's log to stderr")
	flag.BoolVar(&c.clickPipeline, "click-pipeline", true, "run the miss and create phases with the click pipeline (false: the edge's log goes to a null Kinesis)")
	flag.StringVar(&c.phases, "phases", "hit,miss,create", "which comparisons to run: hit (edge hits and the bare server), miss (edge misses), create")
	flag.StringVar(&c.accessLog, "access-log", "off", "the local run's SHORTENER_ACCESS_LOG: on, errors or off (its real-time log to Kinesis stays on)")
	flag.Parse()
	switch c.accessLog {
	case "on", "errors", "off":
	default:
		fmt.Fprintf(os.Stderr, "loadgen: -access-log %q is not on, errors or off\n", c.accessLog)
		os.Exit(2)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

// settings are the command's flags.
type settings struct {
	concurrency, missConcurrency int
	createConcurrency            int
	duration, warmup             time.Duration
	maxRequests, rounds          int
	hotCodes, missCodes          int
	binary                       string
	verbose                      bool
	clickPipeline                bool
	phases                       string
	// accessLog is the local run's SHORTENER_ACCESS_LOG. Off by default:
	// its JSON line per request is a developer convenience that nothing
	// in AWS writes on the request path, unlike the real-time log (the
	// clicks), which every setting keeps.
	accessLog string
}

// runs reports whether the comparison named is among -phases.
func (c settings) runs(name string) bool {
	for _, p := range strings.Split(c.phases, ",") {
		if strings.TrimSpace(p) == name {
			return true
		}
	}
	return false
}

func (c settings) limits(concurrency int) limits {
	return limits{concurrency: concurrency, warmup: c.warmup, duration: c.duration, maxRequests: c.maxRequests}
}

// bareServerArg runs this binary as the baseline server.
const bareServerArg = "-bare-server"

// serveBare answers every request with a fixed 302, as small as net/http
// makes it, and prints its origin on stdout.
func serveBare() {
	srv, origin, err := listenBare()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bare server:", err)
		os.Exit(1)
	}
	fmt.Println(origin)
	// Until the parent closes our stdin (or dies).
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		srv.Close()
	}()
	_ = srv.Serve(srv.listener)
}

// startBare starts the baseline in its own process, as the local run is
// in its own, and returns its origin, its process ID and a stop function.
func startBare() (string, int, func(), error) {
	self, err := os.Executable()
	if err != nil {
		return "", 0, nil, err
	}
	cmd := exec.Command(self, bareServerArg)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", 0, nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", 0, nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", 0, nil, err
	}
	stop := func() { stdin.Close(); _ = cmd.Wait() }
	var origin string
	if _, err := fmt.Fscanln(out, &origin); err != nil || !strings.HasPrefix(origin, "http://") {
		stop()
		return "", 0, nil, fmt.Errorf("bare server did not start: %v", err)
	}
	return origin, cmd.Process.Pid, stop, nil
}

func newClient(concurrency int) *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			MaxIdleConns: concurrency, MaxIdleConnsPerHost: concurrency, MaxConnsPerHost: concurrency,
			DisableCompression: true, IdleConnTimeout: time.Minute,
		},
		Timeout:       30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// get sends a GET and reads the whole answer.
func get(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp, err
}

func header(w io.Writer, title string) {
	fmt.Fprintf(w, "\n%s\n%-23s %4s %8s %4s %7s %7s %7s %8s %7s %8s %5s  %s\n", title,
		"phase", "conc", "requests", "bad", "req/s", "p50 ms", "p99 ms", "p99.9 ms", "max ms", "srv us/r", "busy", "note")
}

func line(w io.Writer, r result) {
	cpu, busy := "-", "-"
	if r.cpuOK {
		busy = fmt.Sprintf("%.0f%%", 100*r.busy)
		if r.serverCPU > 0 {
			cpu = fmt.Sprintf("%.0f", float64(r.serverCPU)/float64(time.Microsecond))
		}
	}
	fmt.Fprintf(w, "%-23s %4d %8d %4d %7.0f %7s %7s %8s %7s %8s %5s  %s\n", r.name, r.concurrency, r.requests,
		r.unexpected+r.errors, r.rate(), ms(r.quantile(0.5)), ms(r.quantile(0.99)), ms(r.quantile(0.999)),
		ms(r.quantile(1)), cpu, busy, r.note)
}

func machine() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s, %d CPUs (GOMAXPROCS %d), %s/%s, %s", host, runtime.NumCPU(), runtime.GOMAXPROCS(0),
		runtime.GOOS, runtime.GOARCH, runtime.Version())
}
