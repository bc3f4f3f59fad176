package fnclients

import (
	"fmt"
	"log"
	"log/slog"
	"os"

	"github.com/shortlink-dev/shortener/shared/config"
)

// Load is the configuration and the Clients of a function in Lambda: the
// SDK configuration (lambdaAWS), JSON logs on stderr and EMF metrics on
// stdout.
func Load(getenv config.Getenv) (config.Config, Clients, error) {
	cfg, err := config.Load(getenv)
	if err != nil {
		return config.Config{}, Clients{}, fmt.Errorf("configuration: %w", err)
	}
	sdk, err := lambdaAWS(getenv)
	if err != nil {
		return config.Config{}, Clients{}, fmt.Errorf("aws configuration: %w", err)
	}
	return cfg, Clients{AWS: sdk, Log: slog.New(slog.NewJSONHandler(os.Stderr, nil)), Metrics: os.Stdout}, nil
}

// Lambda is function's handler as its Lambda entry point builds it: build
// (its handler package's Build) over Load's configuration and Clients. It
// starts nothing. A function that cannot be configured must not take
// requests: Lambda exits on the error, naming the function.
func Lambda[H any](function string, build func(config.Config, Clients) (H, error)) H {
	cfg, c, err := Load(os.Getenv)
	var h H
	if err == nil {
		h, err = build(cfg, c)
	}
	if err != nil {
		log.Fatalf("%s: %v", function, err)
	}
	return h
}
