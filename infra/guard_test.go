package infra_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/infra"
)

// TestGuardControlTower runs the check `make synth` runs (scripts/guard.sh:
// cfn-guard with AWS Control Tower's proactive control rules) over both
// synthesized apps (and the one with the audit archive): no finding may be left unsuppressed.
func TestGuardControlTower(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t), archived.get(t)} {
		cmd := exec.Command(filepath.Join(repoRoot, "scripts", "guard.sh"), s.outDir)
		out, err := cmd.CombinedOutput()
		assert.NoError(t, err, "%s:\n%s", s.name, out)
		assert.Contains(t, string(out), "no unsuppressed finding", s.name)
	}
}

// TestGuardSuppressions checks the suppressions: each has its reason, and
// each reaches the template as guard metadata on the resources it is about,
// only where it applies.
func TestGuardSuppressions(t *testing.T) {
	for _, sup := range infra.GuardSuppressions {
		assert.Greater(t, len(sup.Reason), 80, "%s (%s) needs a reason", sup.Rule, sup.Where)
		assert.True(t, strings.HasPrefix(sup.Control, "CT."), sup.Control)
		assert.True(t, strings.HasPrefix(sup.ResourceType, "AWS::"), sup.ResourceType)
	}
	suppressed := func(tp tpl, id string) []string {
		var rules []string
		for _, r := range asSlice(get(map[string]any(tp), "Resources", id, "Metadata", "guard", "SuppressedRules")) {
			rules = append(rules, r.(string))
		}
		return rules
	}
	d := defaults.get(t)
	dist := d.edge().resources("AWS::CloudFront::Distribution")
	require.Len(t, dist, 1)
	assert.ElementsMatch(t, []string{
		"cloudfront_access_logs_enabled_check", "cloudfront_default_root_object_configured_check",
		"cloudfront_custom_ssl_certificate_check", "cloudfront_sni_enabled_check", "cloudfront_security_policy_check",
	}, suppressed(d.edge(), dist[0].ID))
	c := custom.get(t)
	cdist := c.edge().resources("AWS::CloudFront::Distribution")
	require.Len(t, cdist, 1)
	assert.ElementsMatch(t, []string{"cloudfront_access_logs_enabled_check", "cloudfront_default_root_object_configured_check"},
		suppressed(c.edge(), cdist[0].ID), "with a custom domain the certificate rules hold: nothing to suppress")

	primary := d.regional(d.cfg.PrimaryRegion)
	for _, q := range primary.resources("AWS::SQS::Queue") {
		if _, redrives := q.Props["RedrivePolicy"]; redrives {
			assert.Empty(t, suppressed(primary, q.ID), "%s has its own dead letters: nothing to suppress", q.ID)
			continue
		}
		assert.Equal(t, []string{"sqs_dlq_check"}, suppressed(primary, q.ID), q.ID)
	}
	for _, fn := range primary.resources("AWS::Lambda::Function") {
		assert.Equal(t, []string{"lambda_inside_vpc_check"}, suppressed(primary, fn.ID), fn.ID)
	}
	for _, lg := range primary.resources("AWS::Logs::LogGroup") {
		assert.ElementsMatch(t, []string{"cloudwatch_log_group_encrypted_check", "cloudwatch_log_group_retention_period_check"},
			suppressed(primary, lg.ID), lg.ID)
	}
	// Nothing to suppress where nothing fails: the tables and the alarm
	// topic's key (which denies grants to all but AWS services).
	for _, tp := range []tpl{d.data(), primary, d.edge()} {
		for _, typ := range []string{"AWS::DynamoDB::GlobalTable", "AWS::KMS::Key", "AWS::SNS::Topic"} {
			for _, r := range tp.resources(typ) {
				assert.Empty(t, suppressed(tp, r.ID), r.ID)
			}
		}
	}
}
