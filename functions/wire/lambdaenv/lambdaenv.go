// Package lambdaenv is what a Lambda entry point reads from its
// environment: the configuration, the SDK configuration and where logs and
// metrics go. It links no SDK service client, so the one function that
// calls no DynamoDB (originauth) links none (wirecore adds DynamoDB's).
package lambdaenv

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/shortlink-dev/shortener/shared/config"
)

// Base is what every function in Lambda gets: the SDK configuration
// (lambdaAWS), JSON logs on stderr and EMF metrics on stdout.
type Base struct {
	AWS     aws.Config
	Log     *slog.Logger
	Metrics io.Writer
}

// Load is the configuration and the Base of a function in Lambda.
func Load(_ context.Context, getenv config.Getenv) (config.Config, Base, error) {
	cfg, err := config.Load(getenv)
	if err != nil {
		return config.Config{}, Base{}, fmt.Errorf("configuration: %w", err)
	}
	sdk, err := lambdaAWS(getenv)
	if err != nil {
		return config.Config{}, Base{}, fmt.Errorf("aws configuration: %w", err)
	}
	return cfg, Base{AWS: sdk, Log: slog.New(slog.NewJSONHandler(os.Stderr, nil)), Metrics: os.Stdout}, nil
}

// Lambda builds a function from Load's result; a function that cannot be
// configured must not take requests: the entry point exits on the error.
func Lambda[H any](ctx context.Context, build func(config.Config, Base) (H, error)) (H, error) {
	cfg, b, err := Load(ctx, os.Getenv)
	if err != nil {
		var none H
		return none, err
	}
	return build(cfg, b)
}
