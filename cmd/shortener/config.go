package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// Environment variables the CLI reads.
const (
	envEndpoint = "SHORTENER_ENDPOINT"
	envAPIKey   = "SHORTENER_API_KEY"
	envConfig   = "SHORTENER_CONFIG"
)

// defaultEndpoint is the local run's address (make dev).
const defaultEndpoint = "http://127.0.0.1:8080"

// fileConfig is the config file: {"endpoint": "...", "api_key": "..."}.
type fileConfig struct {
	Endpoint string `json:"endpoint"`
	APIKey   string `json:"api_key"`
}

// settings are where to send requests and with which key, and where each
// came from, for messages.
type settings struct {
	endpoint, endpointFrom string
	apiKey, apiKeyFrom     string
}

// configPath is the config file's path: --config, $SHORTENER_CONFIG,
// $XDG_CONFIG_HOME/shortener/config.json, ~/.config/shortener/config.json.
func configPath(flag string, getenv func(string) string) string {
	if flag != "" {
		return flag
	}
	if p := getenv(envConfig); p != "" {
		return p
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "shortener", "config.json")
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".config", "shortener", "config.json")
	}
	return ""
}

// resolve picks each setting from the flag, else the environment, else
// the config file. A config file that was named explicitly must exist;
// the default one may be absent.
func resolve(flagEndpoint, flagKey, flagConfig string, getenv func(string) string) (settings, error) {
	var s settings
	var file fileConfig
	path := configPath(flagConfig, getenv)
	if path != "" {
		b, err := os.ReadFile(path)
		explicit := flagConfig != "" || getenv(envConfig) != ""
		switch {
		case errors.Is(err, fs.ErrNotExist) && !explicit:
		case err != nil:
			return s, usagef("config file: %v", err)
		default:
			dec := json.NewDecoder(strings.NewReader(string(b)))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&file); err != nil {
				return s, usagef("config file %s: %v (want {\"endpoint\": \"https://...\", \"api_key\": \"...\"})", path, err)
			}
		}
	}
	pick := func(flag, flagName, env, envName, fromFile, fileName string) (string, string) {
		switch {
		case flag != "":
			return flag, "--" + flagName
		case env != "":
			return env, envName
		case fromFile != "":
			return fromFile, path + " (" + fileName + ")"
		}
		return "", ""
	}
	s.endpoint, s.endpointFrom = pick(flagEndpoint, "endpoint", getenv(envEndpoint), envEndpoint, file.Endpoint, "endpoint")
	s.apiKey, s.apiKeyFrom = pick(flagKey, "api-key", getenv(envAPIKey), envAPIKey, file.APIKey, "api_key")
	if s.endpoint == "" {
		s.endpoint, s.endpointFrom = defaultEndpoint, "the default (the local run)"
	}
	u, err := url.Parse(s.endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return s, usagef("endpoint %q from %s: want an http(s) URL such as https://sho.rt", s.endpoint, s.endpointFrom)
	}
	s.endpoint = strings.TrimSuffix(s.endpoint, "/")
	return s, nil
}

// requireKey fails with a usage error that says where a key may come from.
func (s settings) requireKey() error {
	if s.apiKey == "" {
		return usagef("no API key: pass --api-key, set %s, or put \"api_key\" in the config file", envAPIKey)
	}
	return nil
}

func (s settings) String() string {
	return fmt.Sprintf("endpoint %s (from %s)", s.endpoint, s.endpointFrom)
}
