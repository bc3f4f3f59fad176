package main

import (
	"encoding/base64"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/clicklog"
)

// streamSpec describes a synthetic click stream.
type streamSpec struct {
	Records int
	Codes   int
	// Zipf is the exponent s of the popularity law: the link of rank k
	// gets clicks in proportion to 1/k^s.
	Zipf       float64
	BotShare   float64
	Countries  int
	Referrers  int
	CodeLength int
	// Rate is clicks per second across the stream; Shards splits them, and
	// a batch is at most BatchSize records of one shard, or what one shard
	// receives in Window, as the event source mapping delivers them.
	Rate      float64
	Shards    int
	BatchSize int
	Window    time.Duration
	// HitRatio is the share of clicks the edge answered from its cache.
	HitRatio float64
	// Span, when set, spreads the clicks' times evenly over it from Start
	// (a simulated day or more), while batches are still cut at Rate: the
	// batches the seeds' load makes, stamped across a day.
	Span  time.Duration
	Start time.Time
	Seed  uint64
}

// stream is a generated stream, cut into batches in delivery order.
type stream struct {
	Batches []events.KinesisEvent
	Clicks  int // records that are clicks (all of them here)
	Bots    int
	Codes   []string // by popularity rank
}

var (
	humanAgents = []string{
		"Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
		"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
		"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
	}
	botAgents = []string{
		"Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
		"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
		"facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
		"Twitterbot/1.0",
		"curl/8.5.0",
	}
	utmSources = []string{"newsletter", "twitter", "facebook", "linkedin", "google", "partner", "qr", "sms"}
	utmMedia   = []string{"email", "social", "cpc", "print"}
	// countryCodes are the 30 countries clicks come from, most frequent first.
	countryCodes = []string{"US", "DE", "GB", "FR", "IN", "BR", "JP", "CA", "ES", "IT", "NL", "AU", "MX", "PL", "SE",
		"KR", "TR", "ID", "AR", "CH", "BE", "AT", "NO", "DK", "FI", "IE", "PT", "CZ", "ZA", "NZ"}
)

// zipf draws ranks 0..n-1 with P(k) proportional to 1/(k+1)^s. It works
// for any s >= 0, unlike math/rand's Zipf, which needs s > 1: measured web
// and link popularity has exponents near 1 and below.
type zipf struct{ cdf []float64 }

func newZipf(n int, s float64) zipf {
	cdf := make([]float64, n)
	var sum float64
	for k := range n {
		sum += 1 / math.Pow(float64(k+1), s)
		cdf[k] = sum
	}
	for k := range cdf {
		cdf[k] /= sum
	}
	return zipf{cdf: cdf}
}

func (z zipf) draw(r *rand.Rand) int {
	k, _ := slices.BinarySearch(z.cdf, r.Float64())
	return min(k, len(z.cdf)-1)
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// generate builds the stream: every record a redirect the edge answered
// (302, GET or, for some bots, HEAD), the way CloudFront logs it.
func generate(sp streamSpec) (stream, error) {
	if sp.Records <= 0 || sp.Codes <= 0 || sp.Shards <= 0 || sp.BatchSize <= 0 || sp.Rate <= 0 {
		return stream{}, fmt.Errorf("stream: records, codes, shards, batch size and rate must be positive")
	}
	if sp.Countries > len(countryCodes) {
		return stream{}, fmt.Errorf("stream: at most %d countries", len(countryCodes))
	}
	r := rand.New(rand.NewPCG(sp.Seed, 0x5EED))
	codes := make([]string, sp.Codes)
	seen := make(map[string]bool, sp.Codes)
	for i := range codes {
		for {
			b := make([]byte, sp.CodeLength)
			for j := range b {
				b[j] = base62[r.IntN(len(base62))]
			}
			if c := string(b); !seen[c] {
				seen[c], codes[i] = true, c
				break
			}
		}
	}
	// Addresses and campaigns come from a generator of their own, so the
	// rest of the stream is the one it was before they were added.
	extra := rand.New(rand.NewPCG(sp.Seed, 0xC1A55))
	campaigns := newZipf(50, 1)
	popularity := newZipf(sp.Codes, sp.Zipf)
	countries := newZipf(sp.Countries, 1)
	referrers := newZipf(sp.Referrers, 1)

	type pending struct {
		recs  []events.KinesisEventRecord
		first time.Time
	}
	shards := make([]pending, sp.Shards)
	seqs := make([]uint64, sp.Shards)
	var out stream
	out.Codes = codes
	flush := func(s int) {
		if len(shards[s].recs) > 0 {
			out.Batches = append(out.Batches, events.KinesisEvent{Records: shards[s].recs})
			shards[s] = pending{}
		}
	}
	step := time.Duration(float64(time.Second) / sp.Rate)
	id := make([]byte, 42)
	var line []byte
	for i := range sp.Records {
		t := sp.Start.Add(time.Duration(i) * step)
		// A window closes a shard's batch as the mapping's would.
		for s := range shards {
			if len(shards[s].recs) > 0 && t.Sub(shards[s].first) >= sp.Window {
				flush(s)
			}
		}
		at := t
		if sp.Span > 0 {
			at = sp.Start.Add(time.Duration(float64(sp.Span) * float64(i) / float64(sp.Records)))
		}
		rec := clicklog.Record{Time: at, Status: 302, Method: "GET", Host: "short.example", ResultType: "Hit"}
		rank := popularity.draw(r)
		rec.URI = "/" + codes[rank]
		// Every click from its own address (the most visitor observations
		// a click can make). A link is shared in one campaign or none:
		// one link in four carries utm_ parameters on four clicks in
		// five, its source, medium and campaign (one of 50, Zipf) fixed
		// by the link.
		rec.ClientIP = fmt.Sprintf("10.%d.%d.%d", extra.IntN(256), extra.IntN(256), extra.IntN(256))
		if h := uint64(rank) * 0x9E3779B97F4A7C15; h>>61 < 2 && extra.IntN(5) != 0 {
			cr := rand.New(rand.NewPCG(uint64(rank), 7))
			rec.URI += "?utm_source=" + utmSources[cr.IntN(len(utmSources))] + "&utm_medium=" + utmMedia[cr.IntN(len(utmMedia))] +
				"&utm_campaign=campaign-" + strconv.Itoa(campaigns.draw(cr))
		}
		if r.Float64() >= sp.HitRatio {
			rec.ResultType = "Miss"
		}
		if r.Float64() < sp.BotShare {
			out.Bots++
			rec.UserAgent = botAgents[r.IntN(len(botAgents))]
			if r.IntN(4) == 0 {
				rec.Method = "HEAD"
			}
		} else {
			rec.UserAgent = humanAgents[r.IntN(len(humanAgents))]
		}
		// About one click in fifty comes from an address with no country
		// and four in ten carry no Referer (typed, apps, privacy settings).
		if r.IntN(50) != 0 {
			rec.Country = countryCodes[countries.draw(r)]
		}
		if r.IntN(10) >= 4 {
			rec.Referer = "https://ref" + strconv.Itoa(referrers.draw(r)) + ".example/some/page"
		}
		for j := range id {
			id[j] = byte(r.Uint32())
		}
		rec.RequestID = base64.RawURLEncoding.EncodeToString(id)
		line = clicklog.Append(line[:0], rec)

		s := r.IntN(sp.Shards) // CloudFront picks partition keys; records spread evenly
		seqs[s]++
		seq := fmt.Sprintf("4960%02d%020d", s, seqs[s])
		shardID := fmt.Sprintf("shardId-%012d", s)
		kr := events.KinesisEventRecord{
			EventSource:    "aws:kinesis",
			EventSourceArn: "arn:aws:kinesis:us-east-1:123456789012:stream/clicks",
			EventID:        shardID + ":" + seq,
			EventName:      "aws:kinesis:record",
			Kinesis: events.KinesisRecord{
				Data: slices.Clone(line), SequenceNumber: seq, PartitionKey: strconv.Itoa(i),
				ApproximateArrivalTimestamp: events.SecondsEpochTime{Time: at},
			},
		}
		if len(shards[s].recs) == 0 {
			shards[s].first = t
		}
		shards[s].recs = append(shards[s].recs, kr)
		if len(shards[s].recs) == sp.BatchSize {
			flush(s)
		}
		out.Clicks++
	}
	for s := range shards {
		flush(s)
	}
	return out, nil
}
