package infra_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/infra/monitoring"
)

// TestClickEventsRetrySchedule: in the primary Region, a rule invokes the
// clicks function with {} every minute (the handler queues the
// link.clicked events it kept), and only that rule may: the function's
// EventBridge permission names the rule's ARN.
func TestClickEventsRetrySchedule(t *testing.T) {
	s := defaults.get(t)
	for _, region := range s.cfg.Regions {
		tp := s.regional(region)
		rules := tp.resourcesNamed("AWS::Events::Rule", "ClickEventsRetry")
		if region != s.cfg.PrimaryRegion {
			assert.Empty(t, rules, "%s: clicks runs in the primary Region only", region)
			continue
		}
		require.Len(t, rules, 1, region)
		r := rules[0]
		assert.Equal(t, "rate(1 minute)", r.Props["ScheduleExpression"])
		fn, ok := tp.function("clicks")
		require.True(t, ok)
		targets := asSlice(r.Props["Targets"])
		require.Len(t, targets, 1)
		assert.Contains(t, toJSON(get(targets[0], "Arn")), fn.ID)
		assert.Equal(t, "{}", get(targets[0], "Input"))
		assert.Equal(t, float64(0), get(targets[0], "RetryPolicy", "MaximumRetryAttempts"))

		var perms []resource
		for _, p := range tp.resources("AWS::Lambda::Permission") {
			if strings.Contains(toJSON(p.Props["FunctionName"]), fn.ID) && p.Props["Principal"] == "events.amazonaws.com" {
				perms = append(perms, p)
			}
		}
		require.Len(t, perms, 1)
		assert.Equal(t, `{"Fn::GetAtt":["`+r.ID+`","Arn"]}`, toJSON(perms[0].Props["SourceArn"]), "only the rule invokes it")

		age := alarmsOn(tp, monitoring.MetricsNamespace, "ClickEventsPendingAge")
		require.Len(t, age, 1, "one alarm on the kept events' wait")
		assert.Equal(t, `"clicks"`, dimension(age[0], "function"))
		assert.Equal(t, "Maximum", age[0].Props["Statistic"])
		assert.Equal(t, float64(monitoring.ClickEventsPendingAlarmMinutes*60*1000), age[0].Props["Threshold"])
		assert.NotEmpty(t, age[0].Props["AlarmActions"])
	}
}
