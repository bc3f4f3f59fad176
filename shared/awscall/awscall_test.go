package awscall_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/shortlink-dev/shortener/shared/awscall"
	"github.com/shortlink-dev/shortener/shared/awscall/awscalltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEndpointOrder: the service's own configured endpoint, then the
// global one, then the public one; a source that is not an endpoint
// source, or answers for another service, is passed over.
func TestEndpointOrder(t *testing.T) {
	public := "https://svc.eu-west-1.amazonaws.com"
	assert.Equal(t, public, awscall.Endpoint(aws.Config{}, "Svc", public))
	assert.Equal(t, "http://127.0.0.1:1", awscall.Endpoint(aws.Config{BaseEndpoint: aws.String("http://127.0.0.1:1")}, "Svc", public))
	assert.Equal(t, "http://127.0.0.1:2", awscall.Endpoint(aws.Config{BaseEndpoint: aws.String("http://127.0.0.1:1"),
		ConfigSources: []any{"not a source", awscalltest.EndpointSource{"Other": "http://127.0.0.1:3"}, awscalltest.EndpointSource{"Svc": "http://127.0.0.1:2"}}}, "Svc", public))
}

// TestRegional: a regional service's caller signs for the service in the
// configuration's Region and goes to the Region's host, or the configured
// endpoint.
func TestRegional(t *testing.T) {
	c := awscall.Regional(aws.Config{Region: "eu-west-1"}, "Svc", "svc")
	assert.Equal(t, "svc", c.Service)
	assert.Equal(t, "eu-west-1", c.Region)
	assert.Equal(t, "https://svc.eu-west-1.amazonaws.com", c.Endpoint())
	assert.Equal(t, "http://127.0.0.1:2", awscall.Regional(aws.Config{Region: "cn-north-1",
		ConfigSources: []any{awscalltest.EndpointSource{"Svc": "http://127.0.0.1:2"}}}, "Svc", "svc").Endpoint())
	assert.Equal(t, "https://svc.cn-north-1.amazonaws.com.cn", awscall.Regional(aws.Config{Region: "cn-north-1"}, "Svc", "svc").Endpoint())
}

var errBusy = errors.New("busy")

// TestRetry: a retryable failure is tried again up to attempts times, a
// final one stops at once, and an ended context stops the retries.
func TestRetry(t *testing.T) {
	none := func(int) time.Duration { return 0 }
	busy := func(err error) bool { return errors.Is(err, errBusy) }
	tries := 0
	err := awscall.Retry(context.Background(), 3, none, busy, func() error { tries++; return errBusy })
	require.ErrorIs(t, err, errBusy)
	assert.Equal(t, 3, tries)

	tries = 0
	final := errors.New("refused")
	require.ErrorIs(t, awscall.Retry(context.Background(), 3, none, busy, func() error { tries++; return final }), final)
	assert.Equal(t, 1, tries)

	tries = 0
	require.NoError(t, awscall.Retry(context.Background(), 3, none, busy, func() error {
		tries++
		if tries < 2 {
			return errBusy
		}
		return nil
	}))
	assert.Equal(t, 2, tries)

	ctx, cancel := context.WithCancel(context.Background())
	tries = 0
	err = awscall.Retry(ctx, 3, func(int) time.Duration { return time.Hour }, busy, func() error { tries++; cancel(); return errBusy })
	require.ErrorIs(t, err, errBusy)
	assert.Equal(t, 1, tries, "an ended context is not retried")
}
