package webhook

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Config is the webhook functions' settings, read from the environment as
// Lambda hands it over.
type Config struct {
	Table    string // WEBHOOKS_TABLE: subscriptions and delivery attempts
	QueueURL string // WEBHOOK_QUEUE_URL: events and deliveries waiting to be sent
	DLQURL   string // WEBHOOK_DLQ_URL: deliveries whose retries are spent
	// AllowLoopback is WEBHOOK_ALLOW_LOOPBACK ("true"): the local run's
	// setting that lets receivers on 127.0.0.1 be called. False unless set;
	// the CDK app never sets it.
	AllowLoopback bool
	// Schedule is WEBHOOK_RETRY_SCHEDULE, comma-separated waits before
	// each retry (DefaultSchedule); tests shorten it.
	Schedule []time.Duration
	// Timeout is WEBHOOK_TIMEOUT, the bound on one delivery (10s).
	Timeout time.Duration
}

// DefaultTimeout bounds one delivery: a receiver that takes longer is
// retried later.
const DefaultTimeout = 10 * time.Second

// LoadConfig reads the settings.
func LoadConfig(getenv func(string) string) (Config, error) {
	c := Config{Table: getenv("WEBHOOKS_TABLE"), QueueURL: getenv("WEBHOOK_QUEUE_URL"), DLQURL: getenv("WEBHOOK_DLQ_URL"),
		Schedule: DefaultSchedule, Timeout: DefaultTimeout}
	var errs []error
	switch v := getenv("WEBHOOK_ALLOW_LOOPBACK"); v {
	case "", "false":
	case "true":
		c.AllowLoopback = true
	default:
		errs = append(errs, fmt.Errorf("WEBHOOK_ALLOW_LOOPBACK: %q is not true or false", v))
	}
	if v := getenv("WEBHOOK_RETRY_SCHEDULE"); v != "" {
		c.Schedule = nil
		for _, p := range strings.Split(v, ",") {
			d, err := time.ParseDuration(strings.TrimSpace(p))
			if err != nil || d <= 0 {
				errs = append(errs, fmt.Errorf("WEBHOOK_RETRY_SCHEDULE: %q is not a positive duration", p))
				continue
			}
			c.Schedule = append(c.Schedule, d)
		}
	}
	if v := getenv("WEBHOOK_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 || d > time.Minute {
			errs = append(errs, fmt.Errorf("WEBHOOK_TIMEOUT: %q is not a duration from 1ms to 1m", v))
		} else {
			c.Timeout = d
		}
	}
	return c, errors.Join(errs...)
}

// Require checks that the named settings are set.
func (c Config) Require(names ...string) error {
	values := map[string]string{"WEBHOOKS_TABLE": c.Table, "WEBHOOK_QUEUE_URL": c.QueueURL, "WEBHOOK_DLQ_URL": c.DLQURL}
	var errs []error
	for _, n := range names {
		if values[n] == "" {
			errs = append(errs, fmt.Errorf("%s is not set", n))
		}
	}
	return errors.Join(errs...)
}

// Total is how long the schedule keeps retrying.
func Total(schedule []time.Duration) time.Duration {
	var t time.Duration
	for _, d := range schedule {
		t += d
	}
	return t
}
