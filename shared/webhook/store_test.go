package webhook_test

import (
	"testing"

	"github.com/shortlink-dev/shortener/shared/webhook"
	"github.com/shortlink-dev/shortener/shared/webhook/storetest"
)

func TestMemory(t *testing.T) {
	storetest.Run(t, func(*testing.T) webhook.Store { return webhook.NewMemory() })
}
