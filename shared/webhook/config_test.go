package webhook_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/webhook"
)

func TestLoadConfig(t *testing.T) {
	c, err := webhook.LoadConfig(func(string) string { return "" })
	require.NoError(t, err)
	assert.False(t, c.AllowLoopback, "deployed default: no loopback receivers")
	assert.Equal(t, webhook.DefaultSchedule, c.Schedule)
	assert.GreaterOrEqual(t, webhook.Total(c.Schedule), 24*time.Hour, "retries span at least a day")
	assert.Error(t, c.Require("WEBHOOKS_TABLE"))

	env := map[string]string{"WEBHOOK_ALLOW_LOOPBACK": "true", "WEBHOOK_RETRY_SCHEDULE": "10ms, 20ms", "WEBHOOKS_TABLE": "t"}
	c, err = webhook.LoadConfig(func(k string) string { return env[k] })
	require.NoError(t, err)
	assert.True(t, c.AllowLoopback)
	assert.Equal(t, []time.Duration{10 * time.Millisecond, 20 * time.Millisecond}, c.Schedule)
	assert.NoError(t, c.Require("WEBHOOKS_TABLE"))

	for _, bad := range []map[string]string{{"WEBHOOK_ALLOW_LOOPBACK": "yes"}, {"WEBHOOK_RETRY_SCHEDULE": "5s,never"}, {"WEBHOOK_TIMEOUT": "2h"}} {
		_, err := webhook.LoadConfig(func(k string) string { return bad[k] })
		assert.Error(t, err, "%v", bad)
	}
}
