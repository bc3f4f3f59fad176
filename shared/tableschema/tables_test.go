package tableschema_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// TestByOwnerProjectionIsFrozen: the by-owner index's projection is what
// every deployed links table has; DynamoDB refuses to change it, so a
// different list fails the next cdk deploy of every install.
func TestByOwnerProjectionIsFrozen(t *testing.T) {
	assert.Equal(t, []string{"url", "alias", "status", "updated_at", "expires_at", "version", "redirect_status",
		"password_hash", "max_clicks", "rules", "targets", "expired_url"}, tableschema.ByOwnerAttributes)
}
