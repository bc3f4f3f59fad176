package originauthfn_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/originauth/originauthfn"
	"github.com/shortlink-dev/shortener/internal/eventtest"
)

const secret = "c2VjcmV0LW9yaWdpbi12YWx1ZQ" // the fixture's header value

func fixture(t *testing.T) events.APIGatewayV2CustomAuthorizerV2Request {
	t.Helper()
	return eventtest.Load[events.APIGatewayV2CustomAuthorizerV2Request](t, "testdata/authorizer-v2-request.json")
}

func TestHandle(t *testing.T) {
	tests := []struct {
		name    string
		header  map[string]string // replaces the fixture's headers when set
		secrets []string
		allow   bool
	}{
		{name: "the current secret", secrets: []string{secret}, allow: true},
		{name: "the previous secret during a rotation", secrets: []string{"the-new-one", secret}, allow: true},
		{name: "a retired secret", secrets: []string{"the-new-one", "the-one-before"}, allow: false},
		{name: "a prefix of the secret", header: map[string]string{"x-origin-verify": secret[:10]}, secrets: []string{secret}, allow: false},
		{name: "the secret and more", header: map[string]string{"x-origin-verify": secret + "x"}, secrets: []string{secret}, allow: false},
		{name: "an empty value", header: map[string]string{"x-origin-verify": ""}, secrets: []string{secret}, allow: false},
		{name: "no header", header: map[string]string{"host": "abcdef123.execute-api.us-east-1.amazonaws.com"}, secrets: []string{secret}, allow: false},
		{name: "another spelling of the header", header: map[string]string{"X-Origin-Verify": secret}, secrets: []string{secret}, allow: true},
		{name: "an empty accepted value never matches", header: map[string]string{"x-origin-verify": ""}, secrets: []string{""}, allow: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := fixture(t)
			if tt.header != nil {
				req.Headers = tt.header
			}
			var logs bytes.Buffer
			h := originauthfn.New(originauthfn.Options{Secrets: originauthfn.Static(tt.secrets), Log: slog.New(slog.NewJSONHandler(&logs, nil))})
			resp, err := h.Handle(context.Background(), req)
			require.NoError(t, err)
			assert.Equal(t, tt.allow, resp.IsAuthorized)
			assert.NotContains(t, logs.String(), secret[:10], "the secret never reaches the logs")
			if !tt.allow {
				assert.Contains(t, logs.String(), "origin request refused")
			}
		})
	}
}

func TestHandleWithoutSecretsFails(t *testing.T) {
	h := originauthfn.New(originauthfn.Options{Secrets: failing{}})
	_, err := h.Handle(context.Background(), fixture(t))
	assert.Error(t, err, "API Gateway answers an authorizer error with 500 and caches nothing")
}

type failing struct{}

func (failing) Values(context.Context) ([]string, error) { return nil, errors.New("unreachable") }

// fakeSM is Secrets Manager with versions by staging label.
type fakeSM struct {
	stages map[string]string
	err    error
	calls  int
}

func (f *fakeSM) GetSecretValue(_ context.Context, in *secretsmanager.GetSecretValueInput, _ ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error) {
	f.calls++
	if f.err != nil {
		return nil, f.err
	}
	v, ok := f.stages[aws.ToString(in.VersionStage)]
	if !ok {
		return nil, &types.ResourceNotFoundException{Message: aws.String("Secrets Manager can't find the specified secret value for staging label: " + aws.ToString(in.VersionStage))}
	}
	return &secretsmanager.GetSecretValueOutput{SecretString: aws.String(v), VersionStages: []string{aws.ToString(in.VersionStage)}}, nil
}

func TestSecretsManager(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	sm := &fakeSM{stages: map[string]string{originauthfn.StageCurrent: "one"}}
	s := &originauthfn.SecretsManager{Client: sm, SecretID: "origin", Now: func() time.Time { return now }, Log: slog.New(slog.DiscardHandler)}
	ctx := context.Background()

	got, err := s.Values(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"one"}, got, "a secret never rotated has no AWSPREVIOUS")

	// A rotation: the new value is AWSCURRENT, the old one AWSPREVIOUS.
	sm.stages = map[string]string{originauthfn.StageCurrent: "two", originauthfn.StagePrevious: "one"}
	got, _ = s.Values(ctx)
	assert.Equal(t, []string{"one"}, got, "kept until the refresh")
	now = now.Add(originauthfn.DefaultRefresh)
	got, _ = s.Values(ctx)
	assert.Equal(t, []string{"two", "one"}, got, "both accepted while CloudFront changes over")

	// Secrets Manager fails: the values read before stay accepted.
	sm.err = errors.New("throttled")
	now = now.Add(originauthfn.DefaultRefresh)
	got, err = s.Values(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"two", "one"}, got)

	// With nothing read yet, the failure is the caller's.
	fresh := &originauthfn.SecretsManager{Client: sm, SecretID: "origin"}
	_, err = fresh.Values(ctx)
	assert.Error(t, err)
}

func TestMatch(t *testing.T) {
	assert.True(t, originauthfn.Match("abc", []string{"x", "abc"}))
	assert.False(t, originauthfn.Match("abc", nil))
	assert.False(t, originauthfn.Match("", []string{""}))
	assert.False(t, originauthfn.Match("ABC", []string{"abc"}), "case matters")
}
