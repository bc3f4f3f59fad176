package fnstores_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/stretchr/testify/assert"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/fnclients"
	"github.com/shortlink-dev/shortener/shared/fnclients/fntest"
	"github.com/shortlink-dev/shortener/shared/fnstores"
)

// TestPrimaryOnlyWritesGoToThePrimaryRegion: the lifecycle's writes and
// the primary-only tables are in PRIMARY_REGION, or this Region's when it
// is unset; the rest reads this Region's replica.
func TestPrimaryOnlyWritesGoToThePrimaryRegion(t *testing.T) {
	for _, tt := range []struct {
		name    string
		primary string
		want    string
	}{
		{name: "PRIMARY_REGION set", primary: "eu-west-1", want: "eu-west-1"},
		{name: "unset: this Region", primary: "", want: "eu-central-1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := fntest.Lambda()
			assert.Equal(t, tt.want, fnstores.PrimaryDynamoDB(config.Config{PrimaryRegion: tt.primary}, c).Options().Region)
			assert.Equal(t, "eu-central-1", fnstores.DynamoDB(c).Options().Region, "the rest reads this Region's replica")
			assert.Equal(t, "eu-central-1", c.AWS.Region, "the Clients' own Region is left as it was")
		})
	}
	// DynamoDB Local's one shared database serves every Region: the
	// primary's client calls the same endpoint.
	c := fnclients.Clients{AWS: emulator.AWSConfig("http://127.0.0.1:8000")}
	assert.Equal(t, aws.String("http://127.0.0.1:8000"), fnstores.PrimaryDynamoDB(config.Config{PrimaryRegion: "eu-west-1"}, c).Options().BaseEndpoint)
}
