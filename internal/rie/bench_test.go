package rie_test

import (
	"net/http/httptest"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/shortlink-dev/shortener/internal/locals3"
	"github.com/shortlink-dev/shortener/internal/rie"
)

// coldEvents is the event each function's cold start answers: one that
// makes it call DynamoDB, so the figure includes the SDK's first
// connection, as a real first request does.
var coldEvents = map[string]func(t testing.TB) []byte{
	"create":    func(t testing.TB) []byte { return fixture(t, "create", "create-request.json", nil) },
	"redirect":  func(t testing.TB) []byte { return fixture(t, "redirect", "redirect-get.json", nil) },
	"manage":    func(t testing.TB) []byte { return fixture(t, "manage", "get-link.json", nil) },
	"ttlstream": func(t testing.TB) []byte { return fixture(t, "ttlstream", "ttl-remove.json", nil) },
	"reclaim":   func(testing.TB) []byte { return []byte(`{"total":0}`) },
	"clicks":    func(t testing.TB) []byte { return fixture(t, "clicks", "kinesis-clicks.json", nil) },
	"stats":     func(t testing.TB) []byte { return fixture(t, "stats", "stats-request.json", nil) },
	// The authorizer reads its secret at the first request (from a
	// stand-in for Secrets Manager, coldEnv); the webhook functions read
	// their table (and would send to a queue nothing listens on).
	"originauth": func(t testing.TB) []byte { return fixture(t, "originauth", "authorizer-v2-request.json", nil) },
	// The /v1 authorizer reads the key's record at the first request.
	"apiauth": func(t testing.TB) []byte {
		return fixture(t, "apiauth", "authorizer-request.json", func(ev map[string]any) {
			ev["headers"], ev["multiValueHeaders"] = map[string]any{"x-api-key": fixtureKey}, nil
		})
	},
	"webhooks":        func(t testing.TB) []byte { return fixture(t, "webhooks", "create-request.json", nil) },
	"webhookstream":   func(t testing.TB) []byte { return fixture(t, "webhookstream", "insert.json", nil) },
	"webhookdelivery": func(t testing.TB) []byte { return fixture(t, "webhookdelivery", "sqs-delivery.json", nil) },
	// The audit archive puts one object (the S3 stand-in, coldEnv).
	"auditarchive": func(t testing.TB) []byte { return fixture(t, "auditarchive", "batch.json", nil) },
}

// coldEnv is the environment a function needs beyond the tables': the
// webhook functions' table and queues, the authorizer's secret.
var coldEnv = map[string]func(b testing.TB, tb tables) map[string]string{
	"originauth": func(b testing.TB, tb tables) map[string]string {
		sm := &secretsManager{id: "origin-secret", stages: map[string]string{"AWSCURRENT": "c2VjcmV0LW9yaWdpbi12YWx1ZQ"}}
		srv := httptest.NewServer(sm)
		b.Cleanup(srv.Close)
		e := tb.env()
		e["ORIGIN_SECRET_ID"], e["AWS_ENDPOINT_URL_SECRETS_MANAGER"] = "origin-secret", srv.URL
		return e
	},
	"apiauth": func(_ testing.TB, tb tables) map[string]string {
		e := tb.env()
		e["USAGE_PLAN_KEY"] = "shortener-usage-rie-bench-key"
		return e
	},
	"webhooks":        func(b testing.TB, tb tables) map[string]string { e, _ := webhookEnv(b, tb); return e },
	"webhookstream":   func(b testing.TB, tb tables) map[string]string { e, _ := webhookEnv(b, tb); return e },
	"webhookdelivery": func(b testing.TB, tb tables) map[string]string { e, _ := webhookEnv(b, tb); return e },
	"auditarchive": func(b testing.TB, _ tables) map[string]string {
		srv := httptest.NewServer(locals3.New(locals3.Options{Buckets: []locals3.Bucket{{Name: "shortener-audit-archive", ObjectLock: true,
			DefaultRetention: &locals3.Retention{Mode: locals3.Compliance, Days: 1}}}}))
		b.Cleanup(srv.Close)
		return map[string]string{"AUDIT_ARCHIVE_BUCKET": "shortener-audit-archive", "AWS_ENDPOINT_URL_S3": srv.URL}
	},
}

// BenchmarkColdStart measures each function's cold start under the
// emulator next to the trivial aws-lambda-go function's, in the same
// iterations: each op starts the trivial bootstrap and then the function's
// from nothing, and sends each one event.
//
//	init-ms       the emulator's Init Duration: exec of the bootstrap to its first request for work (median)
//	first-ms      the first invoke's round trip as the caller sees it, init included (median)
//	trivial-*     the same for the trivial function, measured alternately with it
//	init-x        init-ms / trivial-init-ms
//	bootstrap-MB  the binary's size (host architecture, stripped)
//
// Run it alone with:
//
//	scripts/with-emulators.sh go test -run '^$' -bench ColdStart -benchtime 10x ./internal/rie/
func BenchmarkColdStart(b *testing.B) {
	a := build(b)
	tb := newTables(b)
	for _, fn := range functions(b) {
		ev, ok := coldEvents[fn]
		if !ok {
			b.Fatalf("functions/%s has no cold start event in internal/rie", fn)
		}
		payload := ev(b)
		fnEnv := tb.env()
		if extra, ok := coldEnv[fn]; ok {
			fnEnv = extra(b, tb)
		}
		b.Run(fn, func(b *testing.B) {
			var fnInit, fnFirst, trInit, trFirst []time.Duration
			for b.Loop() {
				r := coldStart(b, trivial, env(b, trivial, nil), []byte(`{}`))
				trInit, trFirst = append(trInit, r.Init), append(trFirst, r.RoundTrip)
				r = coldStart(b, fn, env(b, fn, fnEnv), payload)
				fnInit, fnFirst = append(fnInit, r.Init), append(fnFirst, r.RoundTrip)
			}
			// Medians: on a shared machine one start in ten can take ten
			// times the others, which a mean would carry into the ratio.
			ms := func(d []time.Duration) float64 { return float64(median(d)) / float64(time.Millisecond) }
			b.ReportMetric(ms(fnInit), "init-ms")
			b.ReportMetric(ms(fnFirst), "first-ms")
			b.ReportMetric(ms(trInit), "trivial-init-ms")
			b.ReportMetric(ms(trFirst), "trivial-first-ms")
			b.ReportMetric(ms(fnInit)/ms(trInit), "init-x")
			if st, err := os.Stat(a.bootstraps[fn]); err == nil {
				b.ReportMetric(float64(st.Size())/1e6, "bootstrap-MB")
			}
		})
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// coldStart starts fn, sends it one event and stops it.
func coldStart(b *testing.B, fn string, e map[string]string, payload []byte) rie.Result {
	b.Helper()
	f := start(b, fn, e)
	defer f.Stop()
	r := invoke(b, f, payload)
	if r.Init <= 0 {
		b.Fatalf("%s: no init duration in the first REPORT\n%s", fn, f.Output())
	}
	return r
}
