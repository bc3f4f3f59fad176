// Command shortener-local runs the shortener on a laptop, with no AWS
// account: it plays API Gateway on one address and calls the functions'
// handlers in-process with API Gateway events, over DynamoDB Local, which
// it starts itself unless SHORTENER_DYNAMODB_ENDPOINT points at one.
//
//	go run ./cmd/shortener-local
//
// Settings (environment):
//
//	SHORTENER_ADDR               listen address (127.0.0.1:8080)
//	SHORTENER_API_KEYS           key=owner[,key=owner...] (dev-key=dev)
//	SHORTENER_BASE_URL           origin of short URLs (http:// + the address)
//	SHORTENER_DYNAMODB_ENDPOINT  a running DynamoDB Local; empty: start one
//	SHORTENER_DYNAMODB_PORT      port for the one it starts (8000; 0: any)
//	LINKS_TABLE                  (shortener-links)
//	IDEMPOTENCY_TABLE            (shortener-idempotency)
//
// and every other setting the functions read (see shared/config). Logs are
// JSON lines on stderr, one per request; the functions' EMF metrics go to
// stdout as in Lambda. Ctrl-C stops the server, then DynamoDB Local.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/localgw"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/edgecache"
	"github.com/shortlink-dev/shortener/shared/linkstore/dynamostore"
)

const (
	// tablesTimeout bounds creating the tables.
	tablesTimeout = time.Minute
	// shutdownTimeout is how long requests in flight get to finish.
	shutdownTimeout = 10 * time.Second
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C kills at once; the emulator dies with us
	}()
	if err := run(ctx, os.Getenv, os.Stdout, os.Stderr, nil); err != nil {
		fmt.Fprintln(os.Stderr, "shortener-local:", err)
		os.Exit(1)
	}
}

// run serves until ctx is done, then shuts down in order: the HTTP server
// first, so no request is cut off from its database, then DynamoDB Local
// if run started it. onReady, when not nil, is called with the gateway's
// origin once it serves the API.
func run(ctx context.Context, getenv func(string) string, stdout, stderr io.Writer, onReady func(origin string)) (err error) {
	s, err := loadSettings(getenv)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewJSONHandler(stderr, nil))

	// Listen first: a taken port fails now, not after DynamoDB Local's start.
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return err
	}
	base := origin(ln.Addr())
	cfg, err := config.Load(functionEnv(getenv, base))
	if err == nil {
		err = cfg.Require("LINKS_TABLE", "IDEMPOTENCY_TABLE", "SHORTENER_BASE_URL")
	}
	if err != nil {
		ln.Close()
		return fmt.Errorf("configuration: %w", err)
	}

	var b backends
	b.setPhase("starting")
	gw, err := localgw.New(localgw.Options{
		Routes:  localgw.Routes(b.handlers()),
		APIKeys: s.apiKeys,
		Ready:   b.ready,
		Log:     log,
	})
	if err != nil {
		ln.Close()
		return err
	}
	// Local-only routes sit beside the gateway, as the AWS console and
	// schedules sit beside the API there.
	var reclaim lateReclaim
	mux := http.NewServeMux()
	mux.Handle("/_local/reclaim", &reclaim)
	mux.Handle("/", gw)
	srv := &http.Server{
		Handler:           accessLog(log, mux),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	log.Info("listening", "addr", ln.Addr().String())

	var dynamo *emulator.Process
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		if serr := srv.Shutdown(sctx); serr != nil {
			log.Warn("requests cut off at shutdown", "error", serr.Error())
			srv.Close()
		}
		if dynamo != nil {
			if serr := dynamo.Stop(); serr != nil {
				err = errors.Join(err, serr)
			}
			log.Info("stopped DynamoDB Local")
		}
		log.Info("stopped")
	}()

	endpoint := s.dynamoEndpoint
	if endpoint == "" {
		b.setPhase("starting DynamoDB Local")
		log.Info("starting DynamoDB Local", "port", s.dynamoPort)
		dynamo, err = emulator.StartDynamoDB(ctx, emulator.DynamoDBOptions{Port: s.dynamoPort})
		if err != nil {
			if ctx.Err() != nil {
				return nil // interrupted while starting
			}
			if s.dynamoPort != 0 {
				// The likeliest cause first; the emulator's output follows.
				err = fmt.Errorf("if port %d is taken, set SHORTENER_DYNAMODB_PORT=0 for any free port or SHORTENER_DYNAMODB_ENDPOINT to use a running DynamoDB Local: %w", s.dynamoPort, err)
			}
			return err
		}
		endpoint = dynamo.Endpoint()
	}
	db := emulator.NewDynamoDBClient(endpoint)

	b.setPhase("creating tables")
	tctx, cancel := context.WithTimeout(ctx, tablesTimeout)
	err = dynamostore.CreateTables(tctx, db, dynamostore.Config{LinksTable: cfg.LinksTable, IdempotencyTable: cfg.IdempotencyTable})
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("tables at %s: %w", endpoint, err)
	}
	b.setPhase("warming up DynamoDB")
	warmUp(ctx, db, cfg.LinksTable, cfg.IdempotencyTable)
	if ctx.Err() != nil {
		return nil
	}
	// The management API and creates of aliases invalidate the edge; the
	// local CloudFront purges through this recorder.
	edge := edgecache.NewRecorder(time.Now)
	h, err := newHandlers(cfg, db, edge, log, stdout)
	if err != nil {
		return err
	}
	lctx, stopLife := context.WithCancel(ctx)
	life, err := startLifecycle(lctx, cfg, db, endpoint, s.reclaimEvery, log, stdout)
	if err != nil {
		stopLife()
		return fmt.Errorf("lifecycle: %w", err)
	}
	defer func() { stopLife(); life.wait() }()
	reclaim.set(life)
	b.serve(h)
	log.Info("ready", "origin", base, "dynamodb", endpoint)
	printBanner(stderr, base, endpoint, dynamo != nil, cfg, s.apiKeys)
	if onReady != nil {
		onReady(base)
	}

	var died <-chan struct{}
	if dynamo != nil {
		died = dynamo.Done()
	}
	select {
	case <-ctx.Done():
		log.Info("shutting down")
		return nil
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-died:
		return fmt.Errorf("DynamoDB Local exited: %v\n%s", dynamo.Err(), dynamo.Output())
	}
}

// backends holds the handlers once DynamoDB and its tables are up. The
// gateway is serving before that, answering /healthz with 503, and calls
// no handler until ready returns nil.
type backends struct {
	mu    sync.Mutex
	phase string
	h     *localgw.Handlers
}

func (b *backends) setPhase(p string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.phase = p
}

func (b *backends) serve(h localgw.Handlers) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.h = &h
}

func (b *backends) ready() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.h == nil {
		return errors.New(b.phase)
	}
	return nil
}

// handlers are stand-ins that call the real handlers once they exist.
func (b *backends) handlers() localgw.Handlers {
	late := func(pick func(localgw.Handlers) localgw.Handler) localgw.Handler {
		return func(ctx context.Context, req events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
			b.mu.Lock()
			h := b.h
			b.mu.Unlock()
			if h == nil {
				return events.APIGatewayProxyResponse{}, errors.New("called before ready")
			}
			return pick(*h)(ctx, req)
		}
	}
	return localgw.Handlers{
		Create:   late(func(h localgw.Handlers) localgw.Handler { return h.Create }),
		Redirect: late(func(h localgw.Handlers) localgw.Handler { return h.Redirect }),
		Manage:   late(func(h localgw.Handlers) localgw.Handler { return h.Manage }),
		Batch:    late(func(h localgw.Handlers) localgw.Handler { return h.Batch }),
		QR:       late(func(h localgw.Handlers) localgw.Handler { return h.QR }),
	}
}

// printBanner tells a person what is running and how to try it.
func printBanner(w io.Writer, origin, endpoint string, started bool, cfg config.Config, keys map[string]string) {
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	slices.Sort(names)
	var list []string
	for _, k := range names {
		list = append(list, fmt.Sprintf("%s (owner %s)", k, keys[k]))
	}
	dynamo := endpoint + " (yours)"
	if started {
		dynamo = endpoint + " (in memory, stops with this command)"
	}
	fmt.Fprintf(w, `
  shortener-local is ready on %[1]s

  API keys (x-api-key):  %[2]s
  short URLs:            %[3]s/<code>
  DynamoDB:              %[4]s
  tables:                %[5]s, %[6]s

  try:
    curl -s -XPOST -H 'x-api-key: %[7]s' -H 'content-type: application/json' \
      -d '{"url":"https://example.com"}' %[1]s/v1/links
    curl -si %[1]s/<code from the answer>

  Ctrl-C stops everything.

`, origin, strings.Join(list, ", "), cfg.BaseURL, dynamo, cfg.LinksTable, cfg.IdempotencyTable, names[0])
}
