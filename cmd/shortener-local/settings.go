package main

import (
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/shortlink-dev/shortener/console"
	"github.com/shortlink-dev/shortener/internal/localedge"
	"github.com/shortlink-dev/shortener/internal/localgw"
	"github.com/shortlink-dev/shortener/shared/edgespec"
)

// Defaults of the local run. The tables get the names the README uses;
// everything the functions read comes from config.Load with its defaults.
const (
	defaultAddr             = "127.0.0.1:8080"
	defaultAPIKeys          = "dev-key=dev"
	defaultDynamoDBPort     = 8000
	defaultLinksTable       = "shortener-links"
	defaultIdempotencyTable = "shortener-idempotency"
	defaultLinkTagsTable    = "shortener-link-tags"
	defaultReservationTable = "shortener-reservations"
	defaultKeysTable        = "shortener-keys"
	defaultMembersTable     = "shortener-members"
	defaultAnalyticsTable   = "shortener-analytics"
	defaultMissesTable      = "shortener-misses"
	defaultEdgeMarksTable   = "shortener-edge-marks"
	defaultAuditTable       = "shortener-audit"
	// defaultRegion stands for the one Region of a run without
	// SHORTENER_LOCAL_REGIONS or AWS_REGION, in the marks tables' ARNs.
	defaultRegion       = "us-east-1"
	defaultReclaimEvery = time.Minute
	// maxInvalidationTime bounds SHORTENER_EDGE_INVALIDATION_TIME: longer
	// than CloudFront is seen to take.
	maxInvalidationTime = 15 * time.Minute
)

// settings are the local run's own settings, beside the functions' ones.
type settings struct {
	addr    string            // SHORTENER_ADDR
	apiKeys map[string]string // SHORTENER_API_KEYS: key -> owner, seeded into the keys table
	// dynamoEndpoint is SHORTENER_DYNAMODB_ENDPOINT: a DynamoDB (Local) to
	// use; when empty the command starts DynamoDB Local itself, on
	// dynamoPort (SHORTENER_DYNAMODB_PORT, 0 for any free port).
	dynamoEndpoint string
	dynamoPort     int
	// reclaimEvery is SHORTENER_RECLAIM_INTERVAL: how often the reclaim
	// state machine's logic runs, as EventBridge Scheduler starts it in AWS.
	reclaimEvery time.Duration
	// accessLog is SHORTENER_ACCESS_LOG: which requests get a "request" and
	// an "origin request" line. It is a developer convenience with no
	// counterpart on AWS's request path; the edge's real-time log records
	// (the clicks) do not depend on it.
	accessLog accessLogMode
	// consoleDir is SHORTENER_CONSOLE_DIR: the web console's build output,
	// served at /console/ (default build/console below the working
	// directory, where make dev runs).
	consoleDir string
	// invalidationTime is SHORTENER_EDGE_INVALIDATION_TIME: how long the
	// local CloudFront takes to complete an invalidation
	// (localedge.DefaultInvalidationDelay; 0s: at once).
	invalidationTime time.Duration
	// usagePlan is the /v1 usage plan the gateway plays:
	// edgespec.DefaultUsagePlan, as a deployment gets it, with
	// SHORTENER_API_RATE_LIMIT, SHORTENER_API_BURST_LIMIT and
	// SHORTENER_API_QUOTA_PER_DAY in place of the context's apiRateLimit,
	// apiBurstLimit and apiQuotaPerDay (a load test's one key needs more).
	usagePlan edgespec.UsagePlan
	// versionKeys is SHORTENER_EDGE_VERSION_KEYS=true: the edge keys the
	// redirect cache on link versions in a local KeyValueStore, as a
	// deployment with the context edgeVersionKeys, and the management API
	// puts versions there instead of invalidating. kvsPropagation is
	// SHORTENER_EDGE_KVS_PROPAGATION, how long a put takes to reach the
	// edge (localedge.DefaultPropagationDelay; 0s: at once).
	versionKeys    bool
	kvsPropagation time.Duration
	// auditArchive (SHORTENER_AUDIT_ARCHIVE=true) copies the audit log
	// to the local S3 stand-in, as the context auditArchive deploys it.
	auditArchive bool
}

// accessLogMode says which answers the local run's access log writes.
type accessLogMode string

const (
	accessLogOn     accessLogMode = "on"     // every answer
	accessLogErrors accessLogMode = "errors" // 5xx answers only
	accessLogOff    accessLogMode = "off"    // none
)

// logs reports whether an answer with status gets a line.
func (m accessLogMode) logs(status int) bool {
	return m == accessLogOn || m == accessLogErrors && status >= 500
}

func loadSettings(getenv func(string) string) (settings, error) {
	s := settings{
		addr:           or(getenv("SHORTENER_ADDR"), defaultAddr),
		dynamoEndpoint: getenv("SHORTENER_DYNAMODB_ENDPOINT"),
		dynamoPort:     defaultDynamoDBPort,
		reclaimEvery:   defaultReclaimEvery,
		accessLog:      accessLogOn,
		consoleDir:     or(getenv("SHORTENER_CONSOLE_DIR"), console.BuildDir),

		invalidationTime: localedge.DefaultInvalidationDelay,
		usagePlan:        edgespec.DefaultUsagePlan,
		kvsPropagation:   localedge.DefaultPropagationDelay,
	}
	switch v := getenv("SHORTENER_EDGE_VERSION_KEYS"); v {
	case "", "false":
	case "true":
		s.versionKeys = true
	default:
		return settings{}, fmt.Errorf("SHORTENER_EDGE_VERSION_KEYS: %q is not true or false", v)
	}
	switch v := getenv("SHORTENER_AUDIT_ARCHIVE"); v {
	case "", "false":
	case "true":
		s.auditArchive = true
	default:
		return settings{}, fmt.Errorf("SHORTENER_AUDIT_ARCHIVE: %q is not true or false", v)
	}
	if v := getenv("SHORTENER_EDGE_KVS_PROPAGATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || d > maxInvalidationTime {
			return settings{}, fmt.Errorf("SHORTENER_EDGE_KVS_PROPAGATION: %q is not a duration from 0s (at once) to %s, such as 5s", v, maxInvalidationTime)
		}
		s.kvsPropagation = d
	}
	if v := getenv("SHORTENER_RECLAIM_INTERVAL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return settings{}, fmt.Errorf("SHORTENER_RECLAIM_INTERVAL: %q is not a positive duration such as 1m", v)
		}
		s.reclaimEvery = d
	}
	if v := getenv("SHORTENER_EDGE_INVALIDATION_TIME"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || d > maxInvalidationTime {
			return settings{}, fmt.Errorf("SHORTENER_EDGE_INVALIDATION_TIME: %q is not a duration from 0s (at once) to %s, such as 5s", v, maxInvalidationTime)
		}
		s.invalidationTime = d
	}
	switch m := accessLogMode(getenv("SHORTENER_ACCESS_LOG")); m {
	case "":
	case accessLogOn, accessLogErrors, accessLogOff:
		s.accessLog = m
	default:
		return settings{}, fmt.Errorf("SHORTENER_ACCESS_LOG: %q is not on, errors (5xx answers only) or off", string(m))
	}
	keys, err := localgw.ParseAPIKeys(or(getenv("SHORTENER_API_KEYS"), defaultAPIKeys))
	if err != nil {
		return settings{}, fmt.Errorf("SHORTENER_API_KEYS: %w", err)
	}
	s.apiKeys = keys
	for _, l := range []struct {
		name string
		set  func(int)
	}{
		{"SHORTENER_API_RATE_LIMIT", func(n int) { s.usagePlan.Throttle.RateLimit = float64(n) }},
		{"SHORTENER_API_BURST_LIMIT", func(n int) { s.usagePlan.Throttle.BurstLimit = n }},
		{"SHORTENER_API_QUOTA_PER_DAY", func(n int) { s.usagePlan.Quota = n }},
	} {
		if v := getenv(l.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return settings{}, fmt.Errorf("%s: %q is not a positive whole number", l.name, v)
			}
			l.set(n)
		}
	}
	if v := getenv("SHORTENER_DYNAMODB_PORT"); v != "" {
		port, err := strconv.Atoi(v)
		if err != nil || port < 0 || port > 65535 {
			return settings{}, fmt.Errorf("SHORTENER_DYNAMODB_PORT: %q is not a port number (0 picks a free one)", v)
		}
		s.dynamoPort = port
	}
	return s, nil
}

// functionEnv is the environment the functions' configuration is read
// from: the process's, with the local run's defaults for what Lambda would
// get from the stack. baseURL is the gateway's own origin.
func functionEnv(getenv func(string) string, baseURL string) func(string) string {
	defaults := map[string]string{
		"LINKS_TABLE":       defaultLinksTable,
		"IDEMPOTENCY_TABLE": defaultIdempotencyTable,
		"LINK_TAGS_TABLE":   defaultLinkTagsTable,
		// Creates, edits and deletes reserve first, as in every Region of
		// a multi-Region deployment.
		"RESERVATION_TABLE": defaultReservationTable,
		"KEYS_TABLE":        defaultKeysTable,
		"MEMBERS_TABLE":     defaultMembersTable,
		"ANALYTICS_TABLE":   defaultAnalyticsTable,
		"MISSES_TABLE":      defaultMissesTable,
		"EDGE_MARKS_TABLE":  defaultEdgeMarksTable,
		// One audit log for every Region of a multi-Region run: DynamoDB
		// Local's one database plays a global table replicated at once.
		"AUDIT_TABLE":        defaultAuditTable,
		"SHORTENER_BASE_URL": baseURL,
		// Webhooks: the table, the in-process queues, and receivers on
		// loopback allowed (webhooks.go).
		"WEBHOOKS_TABLE":         defaultWebhooksTable,
		"WEBHOOK_QUEUE_URL":      webhookQueueURL,
		"WEBHOOK_DLQ_URL":        webhookDLQURL,
		"WEBHOOK_ALLOW_LOOPBACK": "true",
		// Sign-in: the local OpenID provider plays Cognito (oidc.go).
		"AUTH_ISSUER":    baseURL + oidcPath,
		"AUTH_CLIENT_ID": localClientID,
	}
	return func(name string) string {
		if name == "COUNTERS_TABLE" {
			// The redirect's counters live in the idempotency table's key
			// space, as deployed (infra: the primary Region's redirect).
			return or(getenv(name), or(getenv("IDEMPOTENCY_TABLE"), defaults["IDEMPOTENCY_TABLE"]))
		}
		if v := getenv(name); v != "" {
			return v
		}
		if links := getenv("LINKS_TABLE"); links != "" && (name == "RESERVATION_TABLE" || name == "MISSES_TABLE" || name == "EDGE_MARKS_TABLE" || name == "LINK_TAGS_TABLE" || name == "AUDIT_TABLE") {
			// A run given its own links table (a test, a load script)
			// gets its own reservations, misses and marks beside it, so
			// no run finds another's codes reserved, its client over
			// budget or its links held.
			return links + map[string]string{"RESERVATION_TABLE": "-reservations", "MISSES_TABLE": "-misses",
				"EDGE_MARKS_TABLE": "-edge-marks", "LINK_TAGS_TABLE": "-link-tags", "AUDIT_TABLE": "-audit"}[name]
		}
		if name == "EDGE_MARKS_TABLES" {
			// The management API reads the marks the redirect writes
			// (regionConfig gives each Region of a multi-Region run its
			// own).
			marks := getenv("EDGE_MARKS_TABLE")
			if marks == "" {
				marks = defaults["EDGE_MARKS_TABLE"]
				if links := getenv("LINKS_TABLE"); links != "" {
					marks = links + "-edge-marks"
				}
			}
			return marksARN(or(getenv("AWS_REGION"), defaultRegion), marks)
		}
		return defaults[name]
	}
}

// marksARN is the ARN of a marks table in region as EDGE_MARKS_TABLES
// lists it; DynamoDB Local takes any account.
func marksARN(region, table string) string {
	return "arn:aws:dynamodb:" + region + ":000000000000:table/" + table
}

// origin is the http origin a client reaches the listener at: a listener on
// every interface is reached through localhost.
func origin(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String()
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// edgeKVSDelay is kvsPropagation as localedge.NewKeyValueStore takes it.
func (s settings) edgeKVSDelay() time.Duration {
	if s.kvsPropagation == 0 {
		return -1 // at once
	}
	return s.kvsPropagation
}

// edgeInvalidationDelay is invalidationTime as localedge.Options takes it.
func (s settings) edgeInvalidationDelay() time.Duration {
	if s.invalidationTime == 0 {
		return -1 // at once
	}
	return s.invalidationTime
}

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
