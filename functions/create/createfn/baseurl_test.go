package createfn

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/apigw/apigwtest"
	"github.com/shortlink-dev/shortener/shared/linkapi"
)

// Without a custom domain the short links live on the distribution's own
// host, which the function learns at run time (BaseURL).
func TestCreateUnderABaseURLLearntAtRunTime(t *testing.T) {
	f := newFixture(t, "Ab3dE5g")
	f.h.Present = linkapi.Presenter{}
	f.h.Rules.ShortDomains = nil
	f.h.BaseURL = func(context.Context) (string, error) { return "https://d111111abcdef8.cloudfront.net", nil }

	resp, err := f.h.Handle(context.Background(), event(t, "create-request.json"))
	require.NoError(t, err)
	require.Equal(t, 201, resp.StatusCode, resp.Body)
	assert.Equal(t, "https://d111111abcdef8.cloudfront.net/Ab3dE5g", apigwtest.Decode[linkapi.Link](t, resp).ShortURL)

	loop := apigwtest.WithBody(event(t, "create-request.json"), `{"url":"https://d111111abcdef8.cloudfront.net/Ab3dE5g"}`)
	resp, err = f.h.Handle(context.Background(), loop)
	require.NoError(t, err)
	require.Equal(t, 400, resp.StatusCode, resp.Body)
	assert.Contains(t, resp.Body, "would loop")
	assert.Empty(t, f.h.Rules.ShortDomains, "the handler's own rules are not changed per request")
}

func TestCreateWithoutItsBaseURLIsRetryable(t *testing.T) {
	f := newFixture(t, "Ab3dE5g")
	f.h.BaseURL = func(context.Context) (string, error) { return "", errors.New("ParameterNotFound") }

	resp, err := f.h.Handle(context.Background(), event(t, "create-request.json"))
	require.NoError(t, err)
	assert.Equal(t, 503, resp.StatusCode, resp.Body)
	assert.Equal(t, apigw.RetryAfter, resp.Headers["Retry-After"])
	assert.NotContains(t, resp.Body, "ParameterNotFound", "the cause is logged, not answered")
	_, err = f.store.Get(context.Background(), "Ab3dE5g")
	assert.Error(t, err, "nothing is written")
}
