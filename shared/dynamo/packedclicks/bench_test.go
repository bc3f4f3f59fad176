package packedclicks_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/functions/stats/statsfn"
	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/dynamo/packedclicks"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// oneLink is the links store of the benchmark: the one link.
type oneLink struct{ l link.Link }

func (o oneLink) Get(_ context.Context, code string) (link.Link, error) {
	if code != o.l.Code {
		return link.Link{}, link.ErrNotFound
	}
	return o.l, nil
}

// sameBucket returns n codes other than code that hash to its bucket.
func sameBucket(code string, buckets, n int) []string {
	bucket := func(c string) uint32 {
		h := fnv.New32a()
		h.Write([]byte(c))
		return h.Sum32() % uint32(buckets)
	}
	want := bucket(code)
	var out []string
	for i := 0; len(out) < n; i++ {
		if c := fmt.Sprintf("n%06d", i); bucket(c) == want {
			out = append(out, c)
		}
	}
	return out
}

// BenchmarkStats90DayHourly answers GET /v1/links/{code}/stats for 90 days
// by the hour through the stats handler over packedclicks on DynamoDB
// Local, with a year of that link's clicks compacted (every hour clicked,
// 10 countries and 10 referrers a day), 100 other links sharing its bucket
// every day (what makes a day item a few KB), and 8 rollups of 600 other
// links each not yet compacted, which every read also fetches; and the
// same over the default layout (dynamo.ClickStore: the link's year is 16,500
// items in its own partition). It reports the stats answer's p95 and,
// measured in the same run and interleaved with it, a GetItem of one small
// item, and their ratio.
//
//	scripts/with-emulators.sh go test -run '^$' -bench Stats90DayHourly -benchtime 300x ./shared/dynamo/packedclicks/
func BenchmarkStats90DayHourly(b *testing.B) {
	b.Run("packed", func(b *testing.B) { benchStats(b, true) })
	// The default layout, one item per code and bucket, with the same
	// year of the link's clicks (other links live in other partitions).
	b.Run("items", func(b *testing.B) { benchStats(b, false) })
}

func benchStats(b *testing.B, packed bool) {
	ctx := context.Background()
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(b))
	table := testenv.UniqueName(b, "bench")
	if err := localtable.Create(ctx, db, table, tableschema.Analytics()); err != nil {
		b.Fatal(err)
	}
	now := time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC)
	// A year of closed days at once: fold all their groups a run.
	pstore := packedclicks.New(db, packedclicks.Config{Table: table, Timeout: 30 * time.Second, MergeGroups: packedclicks.DefaultGroups, Now: func() time.Time { return now }})
	var store clickstore.Store = pstore
	chunkItems := packedclicks.MaxChunkItems - 600
	if !packed {
		store = dynamo.NewClickStore(db, dynamo.ClickConfig{Table: table, Timeout: 30 * time.Second, Now: func() time.Time { return now }})
		chunkItems = clickstore.MaxItems
	}
	const code = "Ab3dE5g"
	neighbours := sameBucket(code, packedclicks.DefaultBuckets, 100)
	r := rand.New(rand.NewPCG(1, 2))

	// A year, a rollup a month or so, compacted.
	seq := 0
	apply := func(items []clickstore.Item) {
		for len(items) > 0 {
			n := min(len(items), chunkItems)
			seq++
			s := fmt.Sprint(seq)
			if err := store.Apply(ctx, clickstore.Chunk{Shard: "bench/shardId-0", First: s, Last: s, Items: items[:n]}); err != nil {
				b.Fatal(err)
			}
			items = items[n:]
		}
	}
	var items []clickstore.Item
	add := func(k clickstore.Key, n int64) {
		items = append(items, clickstore.Item{Key: k, Counts: clickstore.Counts{Total: n, Human: n}})
	}
	for d := 365; d >= 0; d-- {
		day := now.Truncate(24*time.Hour).AddDate(0, 0, -d)
		var total int64
		for h := range 24 {
			n := int64(1 + r.IntN(40))
			total += n
			add(clickstore.HourKey(code, day.Add(time.Duration(h)*time.Hour)), n)
		}
		add(clickstore.DayKey(code, day), total)
		for i := range 10 {
			add(clickstore.CountryKey(code, day, fmt.Sprintf("C%c", 'A'+i)), total/20)
			add(clickstore.ReferrerKey(code, day, fmt.Sprintf("ref%d.example", i)), total/20)
		}
		for _, nb := range neighbours {
			if !packed {
				break
			}
			at := day.Add(time.Duration(r.IntN(24)) * time.Hour)
			add(clickstore.HourKey(nb, at), 1)
			add(clickstore.DayKey(nb, at), 1)
			add(clickstore.CountryKey(nb, at, "US"), 1)
			add(clickstore.ReferrerKey(nb, at, fmt.Sprintf("ref%d.example", r.IntN(50))), 1)
		}
		if len(items) > chunkItems || d == 0 {
			apply(items)
			items = nil
		}
	}
	for packed {
		res, err := pstore.Compact(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if res.Gen == 0 {
			break // everything compacted and every closed day folded
		}
	}
	// Rollups not yet compacted: 8 batches of clicks on other links.
	for range 8 {
		if !packed {
			break
		}
		for i := range 600 {
			c := fmt.Sprintf("o%06d", r.IntN(1_000_000))
			at := now.Add(-time.Duration(i) * time.Second)
			add(clickstore.HourKey(c, at), 1)
			add(clickstore.DayKey(c, at), 1)
			add(clickstore.CountryKey(c, at, "DE"), 1)
		}
		slices.SortFunc(items, func(a, b clickstore.Item) int { return clickstore.CompareKeys(a.Key, b.Key) })
		items = slices.CompactFunc(items, func(a, b clickstore.Item) bool { return a.Key == b.Key })
		apply(items)
		items = nil
	}

	owners := apikey.NewResolver(apikey.NewMemory(map[string]string{"bench-key": "bench-owner"}), apikey.ResolverOptions{})
	h := statsfn.New(statsfn.Options{
		Links: oneLink{link.Link{Code: code, URL: "https://example.com/", Owner: "bench-owner", Status: link.StatusActive,
			CreatedAt: now.AddDate(-2, 0, 0), ExpiresAt: now.AddDate(3, 0, 0), RedirectStatus: 302, Version: 1}},
		Clicks: store, Owners: owners, Now: func() time.Time { return now },
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: metrics.New(io.Discard, "Shortener", "stats"),
	})
	req := events.APIGatewayProxyRequest{HTTPMethod: "GET", Path: "/v1/links/" + code + "/stats",
		PathParameters: map[string]string{"code": code},
		QueryStringParameters: map[string]string{"granularity": "hour",
			"from": now.AddDate(0, 0, -89).Format(time.DateOnly), "to": now.Format(time.DateOnly)}}
	req.RequestContext.Identity.APIKey = "bench-key"
	getItem := &dynamodb.GetItemInput{TableName: &table, ConsistentRead: aws.Bool(true), Key: map[string]types.AttributeValue{
		"code": &types.AttributeValueMemberS{Value: code}, "bucket": &types.AttributeValueMemberS{Value: "d#" + now.Format("20060102")}}}
	if packed {
		getItem.Key["code"], getItem.Key["bucket"] = &types.AttributeValueMemberS{Value: "#meta"}, &types.AttributeValueMemberS{Value: "compaction"}
	}
	// Warm both paths.
	for range 5 {
		if resp, err := h.Handle(ctx, req); err != nil || resp.StatusCode != 200 {
			b.Fatalf("stats: %v %d %s", err, resp.StatusCode, resp.Body)
		}
	}

	stats := make([]time.Duration, 0, b.N)
	gets := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		resp, err := h.Handle(ctx, req)
		stats = append(stats, time.Since(start))
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("stats: %v %d", err, resp.StatusCode)
		}
		start = time.Now()
		if _, err := db.GetItem(ctx, getItem); err != nil {
			b.Fatal(err)
		}
		gets = append(gets, time.Since(start))
	}
	b.StopTimer()
	p95 := func(d []time.Duration) time.Duration {
		slices.Sort(d)
		return d[min(len(d)-1, len(d)*95/100)]
	}
	sp, gp := p95(stats), p95(gets)
	b.ReportMetric(float64(sp.Microseconds())/1000, "stats-p95-ms")
	b.ReportMetric(float64(gp.Microseconds())/1000, "getitem-p95-ms")
	b.ReportMetric(float64(sp)/float64(gp), "p95-ratio")
	b.ReportMetric(float64(stats[len(stats)/2].Microseconds())/1000, "stats-p50-ms")
}
