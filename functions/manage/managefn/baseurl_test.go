package managefn

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apigw/apigwtest"
	"github.com/shortlink-dev/shortener/shared/linkapi"
)

func TestManageUnderABaseURLLearntAtRunTime(t *testing.T) {
	f := newFixture(t)
	f.seed(t, code, "", ownerA)
	f.h.Present = linkapi.Presenter{}
	f.h.Rules.ShortDomains = nil
	f.h.BaseURL = func(context.Context) (string, error) { return "https://d111111abcdef8.cloudfront.net", nil }

	resp := f.do(t, as(at(event(t, "get-link.json"), code), ownerA))
	require.Equal(t, 200, resp.StatusCode, resp.Body)
	assert.Contains(t, resp.Body, `"short_url":"https://d111111abcdef8.cloudfront.net/`+code+`"`)

	patch := as(at(apigwtest.WithBody(event(t, "patch-link.json"), `{"url":"https://d111111abcdef8.cloudfront.net/x"}`), code), ownerA)
	resp = f.do(t, patch)
	apigwtest.RequireProblem(t, resp, 400, "url")
}

func TestManageWithoutItsBaseURLIsRetryable(t *testing.T) {
	f := newFixture(t)
	f.seed(t, code, "", ownerA)
	f.h.BaseURL = func(context.Context) (string, error) { return "", errors.New("ParameterNotFound") }
	resp := f.do(t, as(at(event(t, "get-link.json"), code), ownerA))
	assert.Equal(t, 503, resp.StatusCode, resp.Body)

	resp = f.do(t, as(at(event(t, "get-link.json"), code), ""))
	assert.Equal(t, 401, resp.StatusCode, "a caller without a key is refused before anything is looked up")
}
