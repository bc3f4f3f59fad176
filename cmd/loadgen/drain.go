package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/shortlink-dev/shortener/shared/dynamo"
)

// drainer waits, after a phase, until the local run has caught up with
// the work a phase leaves behind it: every redirect the edge answered
// became a real-time log record, which kinesalite, the clicks function and
// DynamoDB Local digest for a while after the phase ends. Without the
// wait that backlog would slow the next phase, the baseline's included.
//
// A nil drainer does not wait. It sends canaryClicks redirects to a fresh
// link and waits until the stats API counts all those the edge logged.
// The stream's shards are each read in order, and the canaries' random
// partition keys spread over every shard, so once they are counted so is
// everything sent before them.
type drainer struct {
	client *http.Client
	origin string
	store  *dynamo.LinkStore
	n      int
}

const (
	canaryClicks = 24
	drainTimeout = 3 * time.Minute
)

func (d *drainer) wait(ctx context.Context, out io.Writer) error {
	if d == nil {
		return nil // no click pipeline
	}
	d.n++
	codes, err := writeLinks(ctx, d.store, "D", d.n, 1)
	if err != nil {
		return err
	}
	code := codes[0]
	// The edge may drop canaries' log records when the phase left its
	// buffer full: nothing else is logged while they are sent, so the
	// records it drops meanwhile are theirs, and are waited for no more.
	before, err := edgeStats(ctx, d.client, d.origin)
	if err != nil {
		return err
	}
	for range canaryClicks {
		resp, err := get(ctx, d.client, d.origin+"/"+code)
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusFound {
			return fmt.Errorf("canary %s: status %d", code, resp.StatusCode)
		}
	}
	after, err := edgeStats(ctx, d.client, d.origin)
	if err != nil {
		return err
	}
	want := canaryClicks - (after.Dropped - before.Dropped)
	start := time.Now()
	for {
		total, err := d.clicks(ctx, code)
		if err != nil {
			return err
		}
		if total == want {
			fmt.Fprintf(out, "%-22s clicks pipeline caught up in %.1f s", "", time.Since(start).Seconds())
			if want < canaryClicks {
				fmt.Fprintf(out, " (the edge dropped %d of the %d canaries' log records)", canaryClicks-want, canaryClicks)
			}
			fmt.Fprintln(out)
			return nil
		}
		if total > want {
			return fmt.Errorf("canary %s counted %d clicks of %d sent and logged", code, total, want)
		}
		if time.Since(start) > drainTimeout {
			return fmt.Errorf("the clicks pipeline did not catch up within %s (%d of %d canary clicks counted)", drainTimeout, total, want)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// clicks reads a link's click total from the stats API.
func (d *drainer) clicks(ctx context.Context, code string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.origin+"/v1/links/"+code+"/stats", nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("x-api-key", apiKey)
	resp, err := d.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return 0, fmt.Errorf("stats of %s: %d %s", code, resp.StatusCode, b)
	}
	var body struct {
		Totals struct {
			Total int64 `json:"total"`
		} `json:"totals"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return 0, err
	}
	return body.Totals.Total, nil
}
