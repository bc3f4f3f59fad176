package webhookstreamfn_test

import (
	"testing"

	"github.com/shortlink-dev/shortener/functions/webhookstream/webhookstreamfn"
	"github.com/shortlink-dev/shortener/shared/fnclients/fntest"
)

func TestBuildNamesEachMissingSetting(t *testing.T) {
	fntest.Requires(t, webhookstreamfn.Build, "WEBHOOKS_TABLE", "WEBHOOK_QUEUE_URL")
}
