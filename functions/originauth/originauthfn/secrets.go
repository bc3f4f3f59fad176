package originauthfn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"
)

// The staging labels Secrets Manager moves on every new value: the new
// version becomes AWSCURRENT and the one before it AWSPREVIOUS
// (https://docs.aws.amazon.com/secretsmanager/latest/userguide/whats-in-a-secret.html).
const (
	StageCurrent  = "AWSCURRENT"
	StagePrevious = "AWSPREVIOUS"
)

// DefaultRefresh is how long SecretsManager keeps the values it read: a
// rotation's new value is accepted everywhere this long after it is put.
const DefaultRefresh = 5 * time.Minute

// SecretGetter is the Secrets Manager call SecretsManager makes.
type SecretGetter interface {
	GetSecretValue(ctx context.Context, in *secretsmanager.GetSecretValueInput, optFns ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error)
}

var _ SecretGetter = (*secretsmanager.Client)(nil)

// SecretsManager reads the accepted values from one secret: its AWSCURRENT
// and, when there is one, its AWSPREVIOUS version. It keeps them for
// Refresh; when a refresh fails it goes on with the values it has (and
// logs), so a Secrets Manager hiccup does not refuse CloudFront.
type SecretsManager struct {
	Client   SecretGetter
	SecretID string
	Refresh  time.Duration // DefaultRefresh when zero
	Now      func() time.Time
	Log      *slog.Logger

	mu      sync.Mutex
	values  []string
	fetched time.Time
}

var _ Secrets = (*SecretsManager)(nil)

// Values returns the accepted values.
func (s *SecretsManager) Values(ctx context.Context) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	refresh := s.Refresh
	if refresh <= 0 {
		refresh = DefaultRefresh
	}
	if s.values != nil && now().Sub(s.fetched) < refresh {
		return s.values, nil
	}
	values, err := s.fetch(ctx)
	if err != nil {
		if s.values != nil {
			if s.Log != nil {
				s.Log.WarnContext(ctx, "origin secret not refreshed, the values read before stay accepted", "error", err.Error())
			}
			return s.values, nil
		}
		return nil, err
	}
	s.values, s.fetched = values, now()
	return values, nil
}

func (s *SecretsManager) fetch(ctx context.Context) ([]string, error) {
	current, err := s.get(ctx, StageCurrent)
	if err != nil {
		return nil, err
	}
	values := []string{current}
	previous, err := s.get(ctx, StagePrevious)
	var missing *types.ResourceNotFoundException
	switch {
	case errors.As(err, &missing):
		// A secret never rotated has no AWSPREVIOUS version.
	case err != nil:
		return nil, err
	case previous != current:
		values = append(values, previous)
	}
	return values, nil
}

func (s *SecretsManager) get(ctx context.Context, stage string) (string, error) {
	out, err := s.Client.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{
		SecretId: aws.String(s.SecretID), VersionStage: aws.String(stage),
	})
	if err != nil {
		return "", fmt.Errorf("get %s of the origin secret: %w", stage, err)
	}
	if out.SecretString == nil || *out.SecretString == "" {
		return "", fmt.Errorf("the origin secret's %s version has no string value", stage)
	}
	return *out.SecretString, nil
}

// Static is a fixed set of accepted values: the local run's, which makes
// its secret when it starts.
type Static []string

// Values returns the values.
func (s Static) Values(context.Context) ([]string, error) { return s, nil }
