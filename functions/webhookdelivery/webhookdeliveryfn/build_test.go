package webhookdeliveryfn_test

import (
	"testing"

	"github.com/shortlink-dev/shortener/functions/webhookdelivery/webhookdeliveryfn"
	"github.com/shortlink-dev/shortener/shared/fnclients/fntest"
)

func TestBuildNamesEachMissingSetting(t *testing.T) {
	fntest.Requires(t, webhookdeliveryfn.Build, "WEBHOOKS_TABLE", "WEBHOOK_QUEUE_URL", "WEBHOOK_DLQ_URL")
}
