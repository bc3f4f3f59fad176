package infra_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/infra"
	"github.com/shortlink-dev/shortener/infra/monitoring"
	"github.com/shortlink-dev/shortener/shared/config"
)

// alarmsOn returns the single-metric alarms of tp on namespace/metric.
func alarmsOn(tp tpl, namespace, metric string) []resource {
	var out []resource
	for _, a := range tp.resources("AWS::CloudWatch::Alarm") {
		if a.Props["Namespace"] == namespace && a.Props["MetricName"] == metric {
			out = append(out, a)
		}
	}
	return out
}

// dimension is the alarm's dimension name, rendered as JSON.
func dimension(a resource, name string) string {
	for _, d := range asSlice(a.Props["Dimensions"]) {
		if get(d, "Name") == name {
			return toJSON(get(d, "Value"))
		}
	}
	return ""
}

// TestEstateAlarms: the alarms the estate lacked, each notifying the
// stack's topic: Kinesis write throttling on the click stream, the stream
// consumers' iterator age, analytics table throttles, and the links
// table's replication latency to each other region.
func TestEstateAlarms(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		t.Run(s.name, func(t *testing.T) {
			for _, region := range s.cfg.Regions {
				tp := s.regional(region)
				primary := region == s.cfg.PrimaryRegion
				for _, a := range tp.resources("AWS::CloudWatch::Alarm") {
					assert.NotEmpty(t, a.Props["AlarmActions"], "%s notifies", a.ID)
				}

				// Iterator age, per consumer: Lambda's IteratorAge of its function.
				want := map[string]float64{"TtlstreamFunction": 10 * 60 * 1000}
				if primary {
					want["ClicksFunction"] = 5 * 60 * 1000
				}
				got := map[string]float64{}
				for _, a := range alarmsOn(tp, "AWS/Lambda", "IteratorAge") {
					assert.Equal(t, "Maximum", a.Props["Statistic"], a.ID)
					for fn := range want {
						if strings.Contains(dimension(a, "FunctionName"), fn) {
							got[fn] = a.Props["Threshold"].(float64)
						}
					}
				}
				assert.Equal(t, want, got, "%s: iterator age alarms (ms)", region)

				// The click stream: CloudFront's PutRecords throttled.
				for _, metric := range []string{"PutRecords.ThrottledRecords", "WriteProvisionedThroughputExceeded"} {
					alarms := alarmsOn(tp, "AWS/Kinesis", metric)
					if !primary {
						assert.Empty(t, alarms, "%s: the click stream is in the primary region", region)
						continue
					}
					require.Len(t, alarms, 1, metric)
					assert.Contains(t, dimension(alarms[0], "StreamName"), "ClicksClickLog", metric)
					assert.Equal(t, float64(1), alarms[0].Props["Threshold"], metric)
					assert.Equal(t, "Sum", alarms[0].Props["Statistic"], metric)
				}

				// Analytics table throttles; the links table's are per region.
				for _, metric := range []string{"ReadThrottleEvents", "WriteThrottleEvents"} {
					var analytics, links int
					for _, a := range alarmsOn(tp, "AWS/DynamoDB", metric) {
						table := dimension(a, "TableName")
						switch {
						case strings.Contains(table, "TablesAnalytics"):
							analytics++
							assert.Equal(t, float64(1), a.Props["Threshold"])
						case strings.Contains(strings.ToLower(table), "tableslinks"):
							links++
						}
					}
					assert.Equal(t, map[bool]int{true: 1, false: 0}[primary], analytics, "%s %s on analytics", region, metric)
					assert.Equal(t, 1, links, "%s %s on links", region, metric)
				}

				// Replication latency: published where the writes happen, one
				// alarm per receiving region.
				receiving := map[string]float64{}
				for _, a := range alarmsOn(tp, "AWS/DynamoDB", "ReplicationLatency") {
					assert.Contains(t, strings.ToLower(dimension(a, "TableName")), "tableslinks", a.ID)
					var r string
					require.NoError(t, jsonString(dimension(a, "ReceivingRegion"), &r), a.ID)
					receiving[r] = a.Props["Threshold"].(float64)
					// Any minute's largest lag alarms, and so does a minute
					// with none: a stalled replication publishes nothing.
					assert.Equal(t, "Maximum", a.Props["Statistic"], a.ID)
					assert.Equal(t, float64(60), a.Props["Period"], a.ID)
					assert.Equal(t, float64(1), a.Props["EvaluationPeriods"], a.ID)
					assert.Equal(t, "breaching", a.Props["TreatMissingData"], a.ID)
				}
				// Below what breaks the takedown bound in a lagging Region:
				// lag + SHORTENER_CACHE_TTL within the 30 s promise.
				defaults, err := config.Load(func(string) string { return "" })
				require.NoError(t, err)
				assert.Less(t, float64(monitoring.ReplicationLatencyAlarmSeconds), (config.ChangesShowWithin - defaults.CacheTTL).Seconds())
				wantReceiving := map[string]float64{}
				if primary {
					for _, r := range s.cfg.SecondaryRegions() {
						wantReceiving[r] = monitoring.ReplicationLatencyAlarmSeconds * 1000
					}
				}
				assert.Equal(t, wantReceiving, receiving, "%s: replication latency alarms (ms) by receiving region", region)
			}
		})
	}
}

func jsonString(raw string, out *string) error {
	return json.Unmarshal([]byte(raw), out)
}

// TestClickCompactionAlarms: the clicks function's CompactionLag (the
// packed click layout's guarantee: rollups and segments expire 30 days
// after their write) alarms at a day, on the metric exactly as the
// function emits it (namespace Shortener, dimension function=clicks), and
// a second alarm fires when the clicks function keeps running but no
// compaction finishes (the lag is then missing, not high), both to the
// topic every other alarm notifies.
// TestHandlerAlarms: the handler counts that mean a promise is degraded
// (a mark not written, marks not read, a click log record not parsed)
// alarm wherever their function runs, on the function's own dimension.
func TestHandlerAlarms(t *testing.T) {
	s := defaults.get(t)
	for _, region := range s.cfg.Regions {
		tp := s.regional(region)
		// The names the handlers emit: redirectfn, edgecache.MetricHeldErrors
		// (manage's purger), clicksfn.
		for metric, fn := range map[string]string{"EdgeMarkFailures": "redirect", "EdgeMarkReadFailures": "manage", "PoisonRecords": "clicks",
			"ClickEventsDeferred": "clicks", "ClickEventsFailures": "clicks"} {
			found := alarmsOn(tp, monitoring.MetricsNamespace, metric)
			if fn == "clicks" && region != s.cfg.PrimaryRegion {
				assert.Empty(t, found, "%s: clicks runs in the primary Region only", region)
				continue
			}
			require.Len(t, found, 1, "%s: one %s alarm", region, metric)
			assert.Equal(t, `"`+fn+`"`, dimension(found[0], "function"))
			assert.Equal(t, "Sum", found[0].Props["Statistic"])
			assert.Equal(t, float64(1), found[0].Props["Threshold"])
		}
		// A change answered without its audit entry (shared/apigw
		// FlushAudit), in every function that writes the log.
		audits := alarmsOn(tp, monitoring.MetricsNamespace, "AuditWriteFailures")
		var fns []string
		for _, a := range audits {
			fns = append(fns, dimension(a, "function"))
			assert.Equal(t, float64(1), a.Props["Threshold"])
		}
		if slices.Contains(infra.V1Regions(s.cfg), region) {
			assert.ElementsMatch(t, []string{`"create"`, `"manage"`, `"webhooks"`}, fns, region)
		} else {
			assert.Empty(t, fns, region)
		}
	}
}

func TestClickCompactionAlarms(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		t.Run(s.name, func(t *testing.T) {
			for _, region := range s.cfg.Regions {
				tp := s.regional(region)
				lag := alarmsOn(tp, monitoring.MetricsNamespace, "CompactionLag")
				var stalled []resource
				for _, a := range tp.resources("AWS::CloudWatch::Alarm") {
					for _, m := range asSlice(a.Props["Metrics"]) {
						if get(m, "MetricStat", "Metric", "MetricName") == "CompactionLag" {
							stalled = append(stalled, a)
						}
					}
				}
				if region != s.cfg.PrimaryRegion {
					assert.Empty(t, lag, "%s: the clicks function runs in the primary region", region)
					assert.Empty(t, stalled, region)
					continue
				}
				iterator := alarmsOn(tp, "AWS/Lambda", "IteratorAge")
				require.NotEmpty(t, iterator)
				topic := toJSON(iterator[0].Props["AlarmActions"])

				require.Len(t, lag, 1, "%s: one CompactionLag alarm", region)
				a := lag[0]
				assert.Equal(t, `"clicks"`, dimension(a, "function"), "the function's own dimension")
				assert.Len(t, asSlice(a.Props["Dimensions"]), 1, "the metric has one dimension")
				assert.Equal(t, "Maximum", a.Props["Statistic"])
				assert.Nil(t, a.Props["Unit"], "any unit: a unit the function does not emit would leave the alarm without data")
				assert.Equal(t, float64(24*60*60*1000), a.Props["Threshold"], "a day, in milliseconds")
				assert.Equal(t, "GreaterThanOrEqualToThreshold", a.Props["ComparisonOperator"])
				assert.Equal(t, topic, toJSON(a.Props["AlarmActions"]), "the alarms' topic")

				require.Len(t, stalled, 1, "%s: one alarm on compactions missing", region)
				st := stalled[0]
				assert.Equal(t, topic, toJSON(st.Props["AlarmActions"]))
				var expr string
				var sources []string
				for _, m := range asSlice(st.Props["Metrics"]) {
					if e, ok := get(m, "Expression").(string); ok {
						expr = e
						continue
					}
					sources = append(sources, get(m, "MetricStat", "Metric", "Namespace").(string)+"/"+get(m, "MetricStat", "Metric", "MetricName").(string)+"/"+get(m, "MetricStat", "Stat").(string))
					assert.Equal(t, float64(6*3600), get(m, "MetricStat", "Period"))
				}
				assert.ElementsMatch(t, []string{"Shortener/CompactionLag/SampleCount", "AWS/Lambda/Invocations/Sum"}, sources)
				assert.Contains(t, expr, "FILL(", "a period without a compaction is a 0, not missing")
				assert.Equal(t, float64(4), st.Props["EvaluationPeriods"], "a day of six-hour periods")
			}
		})
	}
}

// TestClickStreamNearCapacity: a provisioned click stream (context
// kinesisShards) alarms when a minute's writes reach 80 % of its shards'
// limit, records or bytes, three minutes in a row; an on-demand one has
// no shard count to watch (its throttles alarm as on every stream).
func TestClickStreamNearCapacity(t *testing.T) {
	near := func(tp tpl) []resource {
		var out []resource
		for _, a := range tp.resources("AWS::CloudWatch::Alarm") {
			if strings.HasPrefix(a.ID, "MonitoringClickStreamNearCapacity") || strings.Contains(a.ID, "ClickStreamNearCapacity") {
				out = append(out, a)
			}
		}
		return out
	}
	assert.Empty(t, near(defaults.get(t).regional("us-east-1")), "on demand by default")

	alarms := near(levers.get(t).regional("us-east-1"))
	require.Len(t, alarms, 1, "kinesisShards=12")
	a := alarms[0]
	assert.NotEmpty(t, a.Props["AlarmActions"], "it notifies")
	tests := []struct {
		name      string
		got, want any
	}{
		{"threshold", a.Props["Threshold"], 0.8},
		{"minutes in a row", [2]any{a.Props["EvaluationPeriods"], a.Props["DatapointsToAlarm"]}, [2]any{3.0, 3.0}},
		{"comparison", a.Props["ComparisonOperator"], "GreaterThanOrEqualToThreshold"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, tt.got) })
	}
	metrics := map[string]any{}
	var expression string
	for _, m := range asSlice(a.Props["Metrics"]) {
		if e, ok := get(m, "Expression").(string); ok {
			expression = e
			continue
		}
		metrics[get(m, "Id").(string)] = get(m, "MetricStat", "Metric", "MetricName")
		assert.Equal(t, "Sum", get(m, "MetricStat", "Stat"))
		assert.Equal(t, 60.0, get(m, "MetricStat", "Period"))
		assert.Contains(t, toJSON(get(m, "MetricStat", "Metric", "Dimensions")), "ClicksClickLog")
	}
	assert.Equal(t, map[string]any{"records": "IncomingRecords", "bytes": "IncomingBytes"}, metrics)
	// 12 shards x 60 s x 1,000 records, and x 1 MiB.
	assert.Equal(t, "MAX([records / 720000, bytes / 754974720])", expression)
}
