// Command shortener-local runs the shortener on a laptop, with no AWS
// account. One address serves what AWS spreads over several services:
//
//   - CloudFront (internal/localedge): redirect paths are cached by path
//     for the redirect's s-maxage, so repeat clicks never reach the
//     function; invalidations from the API complete some seconds after
//     they are made, as CloudFront's do; every
//     request of the redirect behaviour, hit or miss, is written as a
//     real-time log record to a Kinesis stream. X-Cache and Age on the
//     answers say what the edge did.
//   - API Gateway (internal/localgw) behind it: API keys and routing; it
//     calls the functions' handlers in-process with API Gateway events.
//     As deployed, the redirect route answers only requests carrying the
//     origin secret the edge adds (origin.go), so nothing reaches a
//     redirect around the edge.
//   - The Lambda event source mappings: the links table's stream feeds
//     ttlstream, the click stream feeds clicks (internal/localkinesis), with
//     AWS-shaped events; and the reclaim schedule.
//
// It starts DynamoDB Local and kinesalite itself unless
// SHORTENER_DYNAMODB_ENDPOINT or SHORTENER_KINESIS_ENDPOINT point at
// running ones.
//
//	go run ./cmd/shortener-local      (make dev)
//
// Settings (environment):
//
//	SHORTENER_ADDR                 listen address (127.0.0.1:8080)
//	SHORTENER_API_KEYS             key=owner[,key=owner...] (dev-key=dev),
//	                               seeded into the keys table at start;
//	                               `shortener keys` adds, rotates, revokes
//	SHORTENER_BASE_URL             origin of short URLs (http:// + the address)
//	SHORTENER_DYNAMODB_ENDPOINT    a running DynamoDB Local; empty: start one
//	SHORTENER_DYNAMODB_PORT        port for the one it starts (8000; 0: any)
//	SHORTENER_KINESIS_ENDPOINT     a running kinesalite; empty: start one
//	SHORTENER_KINESIS_PORT         port for the one it starts (4567; 0: any)
//	SHORTENER_CLICKS_BATCH_WINDOW  how long the clicks mapping gathers records
//	                               before it calls the function (5s, as
//	                               deployed; 0s: at once)
//	SHORTENER_CLICK_EVENTS_RETRY   how often the schedule asks the clicks
//	                               function to queue the link.clicked events
//	                               it kept (1m, as deployed)
//	SHORTENER_EDGE_COUNTRY         the viewer country (c-country logged, and
//	                               CloudFront-Viewer-Country to the origin for
//	                               redirect rules) of requests that send no
//	                               CloudFront-Viewer-Country (none: "-")
//	SHORTENER_EDGE_INVALIDATION_TIME
//	                               how long the local CloudFront takes to
//	                               complete an invalidation (5s; 0s: at
//	                               once). CloudFront's take an unknown time,
//	                               seconds to minutes: https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/Invalidation.html
//	SHORTENER_EDGE_VERSION_KEYS    true: the redirect cache is keyed on link
//	                               versions in a local CloudFront
//	                               KeyValueStore, which the management API
//	                               writes instead of invalidating and the
//	                               reclaim schedule sweeps of old versions,
//	                               as with the context edgeVersionKeys (false)
//	SHORTENER_EDGE_KVS_PROPAGATION how long a version put or delete takes to
//	                               reach the edge's reads (5s; 0s: at once).
//	                               AWS documents no bound: it is to be
//	                               measured (docs/cost-model.md, "Versioned
//	                               cache keys")
//	SHORTENER_EDGE_VERSION_SWEEP_MARGIN
//	                               how long past the edge life
//	                               (SHORTENER_EDGE_TTL) the sweep keeps a
//	                               version (1h)
//	SHORTENER_RECLAIM_INTERVAL     how often reclaim runs (1m)
//	SHORTENER_LOCAL_REGIONS        two or three Regions of one MRSC set, the
//	                               nearest first: a gateway with its functions
//	                               and its replicas of the links and
//	                               idempotency tables per Region, all over one
//	                               DynamoDB Local, behind the edge
//	                               (regions.go); empty: one
//	SHORTENER_LOCAL_REPLICATION_DELAY
//	                               how long a write takes to reach the other
//	                               Regions' replicas (1s; 0s: at once)
//	SHORTENER_LOCAL_HEALTH_INTERVAL
//	                               the local Route 53's health check interval
//	                               (10s)
//	SHORTENER_LOCAL_HEALTH_THRESHOLD
//	                               its failure threshold (3)
//	SHORTENER_AUDIT_ARCHIVE        true: the audit table's stream feeds the
//	                               auditarchive function, which puts each
//	                               batch into a local S3 stand-in with Object
//	                               Lock (internal/locals3), as the context
//	                               auditArchive deploys it; GET
//	                               /_local/audit-archive lists the objects
//	                               (archive.go) (false)
//	SHORTENER_CONSOLE_DIR          the web console's build, served at /console/
//	                               (build/console)
//	SHORTENER_ACCESS_LOG           which answers get a log line: on (all),
//	                               errors (5xx only) or off (on)
//	LINKS_TABLE                    (shortener-links)
//	IDEMPOTENCY_TABLE              (shortener-idempotency)
//	KEYS_TABLE                     (shortener-keys): API key hash -> owner
//	MEMBERS_TABLE                  (shortener-members): workspaces and their members
//	ANALYTICS_TABLE                (shortener-analytics)
//	MISSES_TABLE                   (shortener-misses): unknown codes per
//	                               viewer address and window (the redirect's
//	                               budget, SHORTENER_MISS_BUDGET per
//	                               SHORTENER_MISS_WINDOW)
//	EDGE_MARKS_TABLE               (shortener-edge-marks): the links the
//	                               edge may hold (shared/edgemarks), written
//	                               by the redirect, read by the management
//	                               API (EDGE_MARKS_TABLES, this table's ARN)
//	                               before it invalidates; with
//	                               SHORTENER_LOCAL_REGIONS, one per Region
//	AUDIT_TABLE                    (shortener-audit): the audit log, one for
//	                               every Region
//	CLICKS_STREAM                  (shortener-clicks; created with 2 shards)
//	WEBHOOKS_TABLE                 (shortener-webhooks): subscriptions and
//	                               their delivery attempts
//	WEBHOOK_ALLOW_LOOPBACK         receivers on 127.0.0.1 may be called
//	                               (true here; a deployed stack never sets it)
//	WEBHOOK_RETRY_SCHEDULE         waits before each retry of a delivery
//	                               (5s,5m,30m,2h,5h,10h,10h,10h)
//	AUTH_ISSUER                    the OpenID issuer tokens are checked
//	                               against: the local provider that plays
//	                               Cognito at /_local/oidc (oidc.go); the
//	                               console offers Sign in only with it
//	AUTH_CLIENT_ID                 its app client (local-console)
//
// and every other setting the functions read (see shared/config).
//
// The edge plays an http viewer's request, answered by CloudFront with a
// 301 to https, when it carries X-Forwarded-Proto: http (see
// internal/localedge). GET /_local/edge gives its counters as JSON: hits,
// misses, the links' redirects answered, the real-time log records handed
// to the click stream and those dropped because the stream fell behind
// (also logged as a warning at most every 10 s while they happen), and the
// invalidations asked for. GET /_local/costs gives what a cost model prices:
// the redirect and stats functions' DynamoDB calls by table and operation
// with their units, and the real-time log records with their bytes. Logs are
// JSON lines on stderr: one "request" line per viewer request and one
// "origin request" line per redirect the edge had to fetch, as far as
// SHORTENER_ACCESS_LOG allows (the edge's real-time log records go to the
// click stream whatever it says); the functions' EMF metrics go to stdout
// as in Lambda. Ctrl-C stops the server, flushes the edge's log records to
// the stream, stops the pollers, then kinesalite and DynamoDB Local.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/internal/localgw"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/edgespec"
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

// run serves until ctx is done, then shuts down in order (stack.stop).
// onReady, when not nil, is called with the gateway's origin once it
// serves the API.
func run(ctx context.Context, getenv func(string) string, stdout, stderr io.Writer, onReady func(origin string)) (err error) {
	st, err := newStack(getenv, stderr)
	if err != nil {
		return err
	}
	if err := st.serve(); err != nil {
		return err
	}
	defer func() { err = errors.Join(err, st.stop()) }()
	if err := st.start(ctx, getenv, stdout); err != nil {
		if errors.Is(err, errInterrupted) {
			return nil
		}
		return err
	}
	st.announce(ctx, stderr, onReady)
	return st.wait(ctx)
}

// newGateway is one Region's local API Gateway in front of b's handlers:
// the APIs as deployed (infra/api builds them from the same
// description), with plan as the /v1 usage plan.
func newGateway(b *backends, lock originLock, plan edgespec.UsagePlan, log *slog.Logger) (*localgw.Gateway, error) {
	h := b.handlers()
	h.OriginAuthorizer = lock.authorizer
	o, err := localgw.Configure(edgespec.APIs(plan), h)
	if err != nil {
		return nil, fmt.Errorf("local gateway: %w", err)
	}
	o.APIKeys, o.Ready, o.Log = b, b.ready, log
	return localgw.New(o)
}

// backends holds the handlers once DynamoDB and its tables are up. The
// gateway is serving before that, answering /healthz with 503, and calls
// no handler until ready returns nil.
type backends struct {
	mu    sync.Mutex
	phase string
	h     *localgw.Handlers
	keys  localgw.APIKeys
}

func (b *backends) setPhase(p string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.phase = p
}

func (b *backends) serve(h localgw.Handlers, keys localgw.APIKeys) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.h, b.keys = &h, keys
}

// KeyID looks the key up in the keys table once it exists.
func (b *backends) KeyID(ctx context.Context, key string) (string, error) {
	b.mu.Lock()
	keys, phase := b.keys, b.phase
	b.mu.Unlock()
	if keys == nil {
		return "", errors.New(phase)
	}
	return keys.KeyID(ctx, key)
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
		Stats:    late(func(h localgw.Handlers) localgw.Handler { return h.Stats }),
		Webhooks: late(func(h localgw.Handlers) localgw.Handler { return h.Webhooks }),
		APIAuthorizer: &localgw.RESTAuthorizer{Handler: func(ctx context.Context, req events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
			b.mu.Lock()
			h := b.h
			b.mu.Unlock()
			if h == nil || h.APIAuthorizer == nil {
				return events.APIGatewayCustomAuthorizerResponse{}, errors.New("called before ready")
			}
			return h.APIAuthorizer.Handler(ctx, req)
		}},
	}
}

// banner is what printBanner shows.
type banner struct {
	origin, dynamo, kinesis       string
	startedDynamo, startedKinesis bool
	cfg                           config.Config
	clicks                        clickSettings
	keys                          map[string]string
}

// printBanner tells a person what is running and how to try it.
func printBanner(w io.Writer, b banner) {
	names := make([]string, 0, len(b.keys))
	for k := range b.keys {
		names = append(names, k)
	}
	slices.Sort(names)
	var list []string
	for _, k := range names {
		list = append(list, fmt.Sprintf("%s (owner %s)", k, b.keys[k]))
	}
	where := func(endpoint string, started bool) string {
		if started {
			return endpoint + " (in memory, stops with this command)"
		}
		return endpoint + " (yours)"
	}
	fmt.Fprintf(w, `
  shortener-local is ready on %[1]s

  API keys (x-api-key):  %[2]s
  short URLs:            %[3]s/<code>, cached at the local edge (X-Cache, Age)
  web console:           %[1]s/console/ (sign in with an API key)
  DynamoDB:              %[4]s
  tables:                %[5]s, %[6]s, %[7]s, %[11]s
  more keys:             shortener keys add --owner <owner> (docs/cli.md), with
                         SHORTENER_DYNAMODB_ENDPOINT=%[12]s
  Kinesis:               %[8]s
  click stream:          %[9]s (every edge request, hit or miss -> clicks)

  try:
    curl -s -XPOST -H 'x-api-key: %[10]s' -H 'content-type: application/json' \
      -d '{"url":"https://example.com"}' %[1]s/v1/links
    curl -si %[1]s/<code from the answer>
    curl -s -H 'x-api-key: %[10]s' %[1]s/v1/links/<code>/stats

  Ctrl-C stops everything.

`, b.origin, strings.Join(list, ", "), b.cfg.BaseURL, where(b.dynamo, b.startedDynamo),
		b.cfg.LinksTable, b.cfg.IdempotencyTable, b.cfg.AnalyticsTable,
		where(b.kinesis, b.startedKinesis), b.clicks.stream, names[0], b.cfg.KeysTable, b.dynamo)
}

// beside serves path with local and everything else with edge. Not a
// ServeMux: CloudFront hands the origin a path as the viewer sent it,
// where a mux would clean it and redirect, and every redirect would pay
// for the mux's pattern matching.
func beside(edge http.Handler, path string, local http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == path {
			local.ServeHTTP(w, r)
			return
		}
		edge.ServeHTTP(w, r)
	})
}
