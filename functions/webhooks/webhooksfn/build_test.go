package webhooksfn

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/fnclients/fntest"
)

func TestBuildNamesEachMissingSetting(t *testing.T) {
	fntest.Requires(t, Build, "KEYS_TABLE", "WEBHOOKS_TABLE", "AUDIT_TABLE")
}

// TestBuildKeepsSubscriptionsInThePrimary: the /v1 functions run in every
// Region, but the webhooks table is in the primary Region only: the
// subscriptions API reads and writes the primary's (PRIMARY_REGION,
// eu-west-1).
func TestBuildKeepsSubscriptionsInThePrimary(t *testing.T) {
	rec := &fntest.HostRecorder{}
	h, err := Build(fntest.Load(t), fntest.Regional(rec))
	require.NoError(t, err)
	_, _ = h.o.Store.List(context.Background(), "team-a")
	assert.Equal(t, []string{"dynamodb.eu-west-1.amazonaws.com"}, rec.Hosts())
}
