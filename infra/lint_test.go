package infra_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests in this file hold every synthesized template, of both apps, to
// rules CloudFormation enforces only when it deploys (or that make a
// resource deploy but never work), so that a template it would refuse fails
// `make test` instead of `cdk deploy`. Each started as a finding of AWS's
// CloudFormation linter (cfn-lint) on `make synth`'s templates.

func sortedTemplateNames(s *synthesized) []string {
	names := make([]string, 0, len(s.templates))
	for n := range s.templates {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// cloudFrontNamespace is where CloudFront publishes a distribution's
// metrics, with two dimensions, DistributionId and Region=Global
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/programming-cloudwatch-metrics.html):
// a metric naming only DistributionId has no data, so an alarm on it
// never fires and a graph of it stays empty.
const cloudFrontNamespace = "AWS/CloudFront"

// cloudFrontMetric is one metric on cloudFrontNamespace somewhere in a
// template: where, and its dimensions (values rendered as JSON).
type cloudFrontMetric struct {
	where      string
	dimensions map[string]string
}

// alarmCloudFrontMetrics are the CloudFront metrics of tp's alarms, on a
// metric or inside a metric math expression.
func alarmCloudFrontMetrics(tp tpl) []cloudFrontMetric {
	var out []cloudFrontMetric
	add := func(where string, m any) {
		if get(m, "Namespace") != cloudFrontNamespace {
			return
		}
		dims := map[string]string{}
		for _, d := range asSlice(get(m, "Dimensions")) {
			dims[fmt.Sprint(get(d, "Name"))] = toJSON(get(d, "Value"))
		}
		out = append(out, cloudFrontMetric{where: where, dimensions: dims})
	}
	for _, a := range tp.resources("AWS::CloudWatch::Alarm") {
		add("alarm "+a.ID, a.Props)
		for _, m := range asSlice(a.Props["Metrics"]) {
			add(fmt.Sprintf("alarm %s, metric %v", a.ID, get(m, "Id")), get(m, "MetricStat", "Metric"))
		}
	}
	return out
}

// dashboardCloudFrontMetrics are the CloudFront metrics of tp's dashboard
// widgets. A dashboard body is JSON in a Fn::Join whose tokens stand
// inside its strings: each is read as the string "TOKEN".
func dashboardCloudFrontMetrics(t *testing.T, tp tpl) []cloudFrontMetric {
	var out []cloudFrontMetric
	for _, d := range tp.resources("AWS::CloudWatch::Dashboard") {
		var body strings.Builder
		if s, ok := d.Props["DashboardBody"].(string); ok {
			body.WriteString(s)
		} else {
			for _, part := range asSlice(get(d.Props, "DashboardBody", "Fn::Join", 1)) {
				if s, ok := part.(string); ok {
					body.WriteString(s)
				} else {
					body.WriteString("TOKEN")
				}
			}
		}
		var doc struct {
			Widgets []struct {
				Properties struct {
					Title   string  `json:"title"`
					Metrics [][]any `json:"metrics"`
				} `json:"properties"`
			} `json:"widgets"`
		}
		require.NoError(t, json.Unmarshal([]byte(body.String()), &doc), "dashboard %s", d.ID)
		for _, w := range doc.Widgets {
			for _, m := range w.Properties.Metrics {
				// [namespace, name, dimension, value, ..., {options}]
				if len(m) < 2 || m[0] != cloudFrontNamespace {
					continue
				}
				dims := map[string]string{}
				for i := 2; i+1 < len(m); i += 2 {
					dims[fmt.Sprint(m[i])] = toJSON(m[i+1])
				}
				out = append(out, cloudFrontMetric{where: fmt.Sprintf("dashboard %s, widget %q, %v", d.ID, w.Properties.Title, m[1]), dimensions: dims})
			}
		}
	}
	return out
}

// TestCloudFrontMetricsNameRegionGlobal: every CloudFront metric of every
// template, in alarms and dashboards, names its distribution and
// Region=Global, the dimensions CloudFront publishes it with. (CDK's
// Distribution metric helpers name DistributionId only: aws/aws-cdk#19245.)
func TestCloudFrontMetricsNameRegionGlobal(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		t.Run(s.name, func(t *testing.T) {
			var metrics []cloudFrontMetric
			for _, name := range sortedTemplateNames(s) {
				tp := tpl(s.templates[name])
				metrics = append(metrics, alarmCloudFrontMetrics(tp)...)
				metrics = append(metrics, dashboardCloudFrontMetrics(t, tp)...)
			}
			// The edge's 5xx alarm and its dashboard's requests, 5xx and 4xx.
			require.GreaterOrEqual(t, len(metrics), 4, "the edge stack watches its distribution")
			for _, m := range metrics {
				assert.Equal(t, `"Global"`, m.dimensions["Region"], "%s: Region=Global", m.where)
				assert.NotEmpty(t, m.dimensions["DistributionId"], "%s: DistributionId", m.where)
				assert.Len(t, m.dimensions, 2, "%s: no other dimension: %v", m.where, m.dimensions)
			}
		})
	}
}
