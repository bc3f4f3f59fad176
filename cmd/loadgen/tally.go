package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/internal/localedge"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// edgeStatsPath is where the local run serves its edge's counters
// (cmd/shortener-local).
const edgeStatsPath = "/_local/edge"

// edgeStats reads the local run's edge counters.
func edgeStats(ctx context.Context, c *http.Client, origin string) (localedge.Stats, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, origin+edgeStatsPath, nil)
	if err != nil {
		return localedge.Stats{}, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return localedge.Stats{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return localedge.Stats{}, fmt.Errorf("%s: %d %s", edgeStatsPath, resp.StatusCode, b)
	}
	var s localedge.Stats
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		return localedge.Stats{}, fmt.Errorf("%s: %w", edgeStatsPath, err)
	}
	return s, nil
}

// countedClicks sums the analytics table's day counters: every click the
// clicks function counted, once (its hour, country and referrer counters
// hold the same clicks again). A scan is fine for a load run's table.
func countedClicks(ctx context.Context, db *dynamodb.Client, table string) (int64, error) {
	var sum int64
	p := dynamodb.NewScanPaginator(db, &dynamodb.ScanInput{
		TableName:                 &table,
		ConsistentRead:            aws.Bool(true),
		FilterExpression:          aws.String("begins_with(#b, :day)"),
		ProjectionExpression:      aws.String("#t"),
		ExpressionAttributeNames:  map[string]string{"#b": tableschema.AttrBucket, "#t": tableschema.AttrTotal},
		ExpressionAttributeValues: map[string]types.AttributeValue{":day": &types.AttributeValueMemberS{Value: "d#"}},
	})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return 0, fmt.Errorf("scan %s: %w", table, err)
		}
		for _, item := range out.Items {
			v, ok := item[tableschema.AttrTotal].(*types.AttributeValueMemberN)
			if !ok {
				return 0, fmt.Errorf("scan %s: a day counter without a number %s", table, tableschema.AttrTotal)
			}
			n, err := strconv.ParseInt(v.Value, 10, 64)
			if err != nil {
				return 0, fmt.Errorf("scan %s: %w", table, err)
			}
			sum += n
		}
	}
	return sum, nil
}

// tally prints, for a local run, the links' redirects its edge served, the
// real-time log records it dropped and, with the click pipeline, the
// clicks counted: after the last phase's drain, every record the edge
// kept has been counted, so the clicks counted should be the redirects
// served less the records dropped. unaccounted says when they are not.
func tally(ctx context.Context, out io.Writer, c *http.Client, l *local, pipeline bool) error {
	st, err := edgeStats(ctx, c, l.run.Origin)
	if err != nil {
		return err
	}
	dropped := fmt.Sprintf("%d real-time log records dropped by the edge (%s)", st.Dropped, percent(st.Dropped, st.Records+st.Dropped))
	if !pipeline {
		fmt.Fprintf(out, "%-22s %d redirects served by the edge; %s; clicks not counted (log discarded)\n", "", st.Redirects, dropped)
		return nil
	}
	counted, err := countedClicks(ctx, l.db, l.analytics)
	if err != nil {
		return err
	}
	var note strings.Builder
	if lost := st.Redirects - st.Dropped - counted; lost != 0 {
		fmt.Fprintf(&note, "; %d not accounted for by drops", lost)
	}
	fmt.Fprintf(out, "%-22s clicks counted / redirects served: %d / %d (%s); %s%s\n", "",
		counted, st.Redirects, percent(counted, st.Redirects), dropped, note.String())
	return nil
}

func percent(n, of int64) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f %%", 100*float64(n)/float64(of))
}
