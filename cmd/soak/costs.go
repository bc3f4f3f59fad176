package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/shortlink-dev/shortener/internal/capacity"
)

// costFigures are what the soak's traffic measured of the inputs
// infra/costmodel prices (docs/cost-model.md, "Measured"), from the local
// run's GET /_local/edge and GET /_local/costs at the end of the run.
type costFigures struct {
	// Changes are the edits and deletes answered as done; Invalidations
	// the invalidations the management API asked of the edge for them
	// (it asks only when an edge may hold the link: shared/edgemarks), and
	// Paths their paths.
	Changes, Invalidations, Paths int64
	// OriginRequests are the redirects the edge forwarded to the origin;
	// LinkReads the redirect function's reads of the links table (its
	// in-process cache answers the rest); Marks its writes to the marks
	// table, the refused ones (ErrFenced) included since DynamoDB bills
	// a failed conditional write too.
	OriginRequests, LinkReads, Marks int64
	// Records and RecordBytes are the real-time log records the edge
	// handed to the click stream and their bytes, as CloudFront formats
	// them.
	Records, RecordBytes int64
	// StatsAnswers are the stats requests answered; StatsRRU what the
	// stats function read for them.
	StatsAnswers int64
	StatsRRU     float64
}

// ratio is a/b, 0 when b is.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// line formats the figures as the soak prints them, after the summary.
func (f costFigures) line() string {
	return fmt.Sprintf("soak costs: changed links invalidated %d/%d = %.3f (%.2f paths each); edge marks %d per %d link reads = %.3f "+
		"(%d origin requests: %.3f per origin request); real-time log records %d, %.0f bytes each; stats answers %d, %.2f RRU each",
		f.Invalidations, f.Changes, ratio(float64(f.Invalidations), float64(f.Changes)), ratio(float64(f.Paths), float64(f.Invalidations)),
		f.Marks, f.LinkReads, ratio(float64(f.Marks), float64(f.LinkReads)),
		f.OriginRequests, ratio(float64(f.Marks), float64(f.OriginRequests)),
		f.Records, ratio(float64(f.RecordBytes), float64(f.Records)),
		f.StatsAnswers, ratio(f.StatsRRU, float64(f.StatsAnswers)))
}

// localCosts is GET /_local/costs's answer (cmd/shortener-local).
type localCosts struct {
	Functions   map[string]capacity.Usage `json:"functions"`
	Records     int64                     `json:"records"`
	RecordBytes int64                     `json:"record_bytes"`
}

// edgeCounters are the fields of GET /_local/edge the figures use.
type edgeCounters struct {
	Misses            int64 `json:"misses"`
	InvalidationPaths int64 `json:"invalidation_paths"`
	Invalidations     int64 `json:"invalidations"`
}

// figures fills the figures the local run knows, given the tables'
// names: the links table's reads and the marks table's writes of the
// redirect function.
func figures(edge edgeCounters, c localCosts, links, marks string) costFigures {
	f := costFigures{Invalidations: edge.Invalidations, Paths: edge.InvalidationPaths, OriginRequests: edge.Misses,
		Records: c.Records, RecordBytes: c.RecordBytes}
	for key, u := range c.Functions["redirect"].ByTable {
		table, op, _ := strings.Cut(key, " ")
		switch {
		case table == links && (op == "GetItem" || op == "Query" || op == "BatchGetItem"):
			f.LinkReads += int64(u.Calls)
		case table == marks && op == "UpdateItem":
			f.Marks += int64(u.Calls + u.Failed)
		}
	}
	f.StatsRRU = c.Functions["stats"].RRU
	return f
}

// getJSON decodes the local run's answer to GET path into v.
func (s *soaker) getJSON(ctx context.Context, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.origin+path, nil)
	if err != nil {
		return err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// costFigures reads the local run's counters; links is the links table's
// name, whose marks table the local run names after it.
func (s *soaker) costFigures(ctx context.Context, links string) (costFigures, error) {
	var edge edgeCounters
	var c localCosts
	if err := s.getJSON(ctx, "/_local/edge", &edge); err != nil {
		return costFigures{}, err
	}
	if err := s.getJSON(ctx, "/_local/costs", &c); err != nil {
		return costFigures{}, err
	}
	return figures(edge, c, links, links+"-edge-marks"), nil
}
