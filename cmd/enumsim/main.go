// Command enumsim measures the redirect's defence against code enumeration
// on the local run (cmd/shortener-local, on 127.0.0.1 only): a scanner
// tries random codes as fast as its workers can from one viewer address
// while a legitimate client clicks known links at a steady rate from
// another, and the same legitimate client is first measured alone.
//
// The local run holds a few hundred links, so a random 7-character code
// would never hit one; the scanner therefore guesses a live code with the
// probability a random guess has at the seed load (-density: 6 B live
// links in 62^7 codes, 1 in 587), and a random code otherwise. It prints
// what the scanner got (404s, 429s, live links found, from the edge's
// cache or from the origin), the live links it would have found without
// the budget, both per hour, and the legitimate client's success rate and
// latency against its run alone; then the finds per hour at the seed load
// that the budget allows (docs/codes.md, "Enumeration: the miss budget").
//
// Bounded: each phase lasts -duration and the scanner sends at most -max
// requests.
//
//	go run ./cmd/enumsim                  (make enumsim)
//	go run ./cmd/enumsim -duration 30s -workers 32
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/shortlink-dev/shortener/internal/localrun"
	"github.com/shortlink-dev/shortener/shared/missbudget"
	"github.com/shortlink-dev/shortener/shared/shortcode"
)

// Seed-load figures (docs/cost-model.md): live links in the first year
// (100 M creates a month) and in the steady state (five years, 6 B live).
const (
	liveYear1 = 1.2e9
	liveYear5 = 6e9
)

type config struct {
	duration   time.Duration
	workers    int
	scanRate   float64
	max        int
	legitRate  float64
	links      int
	known      int
	density    float64
	budget     int
	window     time.Duration
	codeLength int
	binary     string
	verbose    bool
}

const (
	apiKey = "enumsim-key"
	owner  = "enumsim"
	// The scanner and the legitimate client connect from these loopback
	// addresses; the edge forwards each as the viewer's address.
	scannerIP = "127.0.0.2"
	legitIP   = "127.0.0.3"
)

func main() {
	c := config{}
	flag.DurationVar(&c.duration, "duration", 20*time.Second, "length of each phase (the client alone, then with the scanner)")
	flag.IntVar(&c.workers, "workers", 16, "scanner workers, each sending its next guess as soon as the last is answered")
	flag.Float64Var(&c.scanRate, "scan-rate", 1000, "the scanner's guesses per second, at most (0: as fast as its workers go)")
	flag.IntVar(&c.max, "max", 100_000, "most requests the scanner sends")
	flag.Float64Var(&c.legitRate, "legit-rate", 20, "the legitimate client's clicks per second")
	flag.IntVar(&c.links, "links", 300, "live links created")
	flag.IntVar(&c.known, "known", 50, "of them, the ones the legitimate client clicks")
	flag.Float64Var(&c.density, "density", liveYear5/math.Pow(62, shortcode.DefaultLength), "probability that a guess is a live code (default: 6 B live links in 62^7 codes)")
	flag.IntVar(&c.budget, "budget", missbudget.DefaultBudget, "SHORTENER_MISS_BUDGET of the local run")
	flag.DurationVar(&c.window, "window", missbudget.DefaultWindow, "SHORTENER_MISS_WINDOW of the local run")
	flag.StringVar(&c.binary, "local-run", "", "a built cmd/shortener-local (default: build one)")
	flag.BoolVar(&c.verbose, "v", false, "copy the local run's log to stderr")
	flag.Parse()
	c.codeLength = shortcode.DefaultLength
	if c.known > c.links || c.workers < 1 || c.max < 1 || c.legitRate <= 0 || c.density <= 0 || c.density >= 1 {
		fmt.Fprintln(os.Stderr, "enumsim: need 0 < known <= links, workers >= 1, max >= 1, legit-rate > 0, 0 < density < 1")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "enumsim:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, c config, out io.Writer) (err error) {
	bin := c.binary
	if bin == "" {
		dir, err := os.MkdirTemp("", "enumsim")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		fmt.Fprintln(out, "building the local run ...")
		if bin, err = localrun.Build(ctx, dir); err != nil {
			return err
		}
	}
	var logw io.Writer
	if c.verbose {
		logw = os.Stderr
	}
	suffix := fmt.Sprintf("%08x", rand.Uint32())
	lr, err := localrun.Start(ctx, bin, map[string]string{
		"SHORTENER_API_KEYS":    apiKey + "=" + owner,
		"LINKS_TABLE":           "enumsim-links-" + suffix,
		"IDEMPOTENCY_TABLE":     "enumsim-idem-" + suffix,
		"ANALYTICS_TABLE":       "enumsim-analytics-" + suffix,
		"MISSES_TABLE":          "enumsim-misses-" + suffix,
		"CLICKS_STREAM":         "enumsim-clicks-" + suffix,
		"SHORTENER_MISS_BUDGET": fmt.Sprint(c.budget),
		"SHORTENER_MISS_WINDOW": c.window.String(),
		"SHORTENER_ACCESS_LOG":  "errors",
	}, logw, 3*time.Minute)
	if err != nil {
		return err
	}
	defer func() {
		if serr := lr.Stop(); serr != nil && err == nil {
			err = fmt.Errorf("the local run failed at shutdown: %w", serr)
		}
	}()
	if !strings.Contains(lr.Origin, "127.0.0.1") && !strings.Contains(lr.Origin, "localhost") {
		return fmt.Errorf("the local run serves at %s, not on 127.0.0.1", lr.Origin)
	}
	base := strings.Replace(lr.Origin, "localhost", "127.0.0.1", 1)

	fmt.Fprintf(out, "creating %d links ...\n", c.links)
	codes, err := createLinks(ctx, base, c.links)
	if err != nil {
		return err
	}
	known := codes[:c.known]
	legit := viewer(legitIP, 8)
	for _, code := range known { // warm: the edge and the function's cache
		if _, _, err := get(ctx, legit, base+"/"+code); err != nil {
			return err
		}
	}

	fmt.Fprintf(out, "phase 1: the legitimate client alone, %s at %.0f clicks/s ...\n", c.duration, c.legitRate)
	alone := clicks(ctx, legit, base, known, c.legitRate, c.duration)

	fmt.Fprintf(out, "phase 2: the same client and a scanner (%d workers, at most %.0f guesses/s, density %.3g), %s ...\n", c.workers, c.scanRate, c.density, c.duration)
	sctx, cancel := context.WithTimeout(ctx, c.duration)
	var wg sync.WaitGroup
	var scan scanResult
	wg.Go(func() { scan = scanner(sctx, viewer(scannerIP, c.workers), base, codes, c) })
	together := clicks(ctx, legit, base, known, c.legitRate, c.duration)
	cancel()
	wg.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	report(out, c, alone, together, scan)
	if alone.ok != alone.sent || together.ok != together.sent {
		return errors.New("the legitimate client did not get every redirect")
	}
	return nil
}

// viewer is a client whose connections come from ip.
func viewer(ip string, conns int) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	return &http.Client{
		Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns},
		Timeout:   10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

func get(ctx context.Context, c *http.Client, url string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("X-Cache"), nil
}

func createLinks(ctx context.Context, base string, n int) ([]string, error) {
	api := viewer("127.0.0.1", 4)
	var codes []string
	for len(codes) < n {
		var body struct {
			Links []map[string]string `json:"links"`
		}
		for i := len(codes); i < min(n, len(codes)+100); i++ {
			body.Links = append(body.Links, map[string]string{"url": fmt.Sprintf("https://example.com/enumsim/%d", i)})
		}
		raw, _ := json.Marshal(body)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/links/batch", bytes.NewReader(raw))
		if err != nil {
			return nil, err
		}
		req.Header.Set("x-api-key", apiKey)
		req.Header.Set("content-type", "application/json")
		resp, err := api.Do(req)
		if err != nil {
			return nil, err
		}
		var res struct {
			Results []struct {
				Status int
				Link   struct{ Code string }
			}
		}
		err = json.NewDecoder(resp.Body).Decode(&res)
		_ = resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("batch create: %d %v", resp.StatusCode, err)
		}
		for _, r := range res.Results {
			if r.Status == http.StatusCreated {
				codes = append(codes, r.Link.Code)
			}
		}
	}
	return codes, nil
}

// clickResult is what the legitimate client saw.
type clickResult struct {
	sent, ok  int
	latencies []time.Duration
}

func (r clickResult) quantile(q float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	s := slices.Clone(r.latencies)
	slices.Sort(s)
	return s[min(int(q*float64(len(s))), len(s)-1)]
}

// clicks follows known links at rate per second for d, one at a time on
// a fixed schedule, and counts the redirects it got.
func clicks(ctx context.Context, c *http.Client, base string, known []string, rate float64, d time.Duration) clickResult {
	var r clickResult
	every := time.Duration(float64(time.Second) / rate)
	tick := time.NewTicker(every)
	defer tick.Stop()
	end := time.Now().Add(d)
	for time.Now().Before(end) && ctx.Err() == nil {
		code := known[rand.IntN(len(known))]
		start := time.Now()
		status, _, err := get(ctx, c, base+"/"+code)
		r.sent++
		if err == nil && status == http.StatusFound {
			r.ok++
			r.latencies = append(r.latencies, time.Since(start))
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
		}
	}
	return r
}

// scanResult is what the scanner saw.
type scanResult struct {
	elapsed              time.Duration
	sent, errs           int64
	notFound, refused    int64
	livePicks            int64 // guesses that were live codes
	foundEdge, foundOrig int64 // live codes answered with a redirect, from the cache or the origin
	other                int64
	otherStatuses        map[int]int64
}

// scanner guesses codes from its workers until ctx ends or c.max are sent:
// a live code with probability c.density, a random one otherwise.
func scanner(ctx context.Context, client *http.Client, base string, live []string, c config) scanResult {
	var r scanResult
	var sent, errs, nf, refused, picks, edge, orig, other atomic.Int64
	var mu sync.Mutex
	r.otherStatuses = map[int]int64{}
	start := time.Now()
	// A token per guess at scanRate, shared by the workers.
	var tokens <-chan time.Time
	if c.scanRate > 0 {
		t := time.NewTicker(time.Duration(float64(time.Second) / c.scanRate))
		defer t.Stop()
		tokens = t.C
	}
	var wg sync.WaitGroup
	for range c.workers {
		wg.Go(func() {
			for ctx.Err() == nil && sent.Add(1) <= int64(c.max) {
				if tokens != nil {
					select {
					case <-tokens:
					case <-ctx.Done():
						return
					}
				}
				code := randomCode(c.codeLength)
				if rand.Float64() < c.density {
					code = live[rand.IntN(len(live))]
					picks.Add(1)
				}
				status, xcache, err := get(ctx, client, base+"/"+code)
				switch {
				case err != nil:
					if ctx.Err() == nil {
						errs.Add(1)
					}
				case status == http.StatusNotFound:
					nf.Add(1)
				case status == http.StatusTooManyRequests:
					refused.Add(1)
				case status == http.StatusFound && strings.HasPrefix(xcache, "Hit"):
					edge.Add(1)
				case status == http.StatusFound:
					orig.Add(1)
				default:
					other.Add(1)
					mu.Lock()
					r.otherStatuses[status]++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	r.elapsed = time.Since(start)
	r.sent = min(sent.Load(), int64(c.max))
	r.errs, r.notFound, r.refused = errs.Load(), nf.Load(), refused.Load()
	r.livePicks, r.foundEdge, r.foundOrig, r.other = picks.Load(), edge.Load(), orig.Load(), other.Load()
	return r
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

func randomCode(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = base62[rand.IntN(len(base62))]
	}
	return string(b)
}

func report(out io.Writer, c config, alone, together clickResult, s scanResult) {
	perHour := func(n int64) float64 { return float64(n) * float64(time.Hour) / float64(s.elapsed) }
	rate := float64(s.sent) / s.elapsed.Seconds()
	fmt.Fprintf(out, "\nscanner (%s, one address): %d guesses in %s (%.0f/s): %d answered 404, %d refused 429, %d redirects (%d from the edge's cache, %d from the origin), %d other %v, %d errors\n",
		scannerIP, s.sent, s.elapsed.Round(time.Millisecond), rate, s.notFound, s.refused, s.foundEdge+s.foundOrig, s.foundEdge, s.foundOrig, s.other, s.otherStatuses, s.errs)
	fmt.Fprintf(out, "  live codes among the guesses: %d; without the budget it would have found all of them: %.0f per hour\n", s.livePicks, perHour(s.livePicks))
	fmt.Fprintf(out, "  found with the budget (budget %d per %s): %d from the origin (all within its budget), %d from the edge's cache; %.0f per hour at this rate\n",
		c.budget, c.window, s.foundOrig, s.foundEdge, perHour(s.foundEdge+s.foundOrig))

	okRate := func(r clickResult) float64 { return 100 * float64(r.ok) / float64(max(r.sent, 1)) }
	fmt.Fprintf(out, "legitimate client (%s): alone %d/%d redirects (%.2f %%), p50 %s p95 %s; with the scanner %d/%d (%.2f %%), p50 %s p95 %s\n",
		legitIP, alone.ok, alone.sent, okRate(alone), alone.quantile(0.5).Round(10*time.Microsecond), alone.quantile(0.95).Round(10*time.Microsecond),
		together.ok, together.sent, okRate(together), together.quantile(0.5).Round(10*time.Microsecond), together.quantile(0.95).Round(10*time.Microsecond))
	ratio := func(a, b time.Duration) float64 { return float64(b) / float64(max(a, 1)) }
	fmt.Fprintf(out, "  latency with the scanner / alone: p50 %.2fx, p95 %.2fx (one machine: the scanner's load shares its CPUs)\n",
		ratio(alone.quantile(0.5), together.quantile(0.5)), ratio(alone.quantile(0.95), together.quantile(0.95)))

	// At the seed load: the origin answers a scanner's address at most
	// budget misses per window (two budgets across a window's boundary),
	// each a live link with the seed density.
	honest := float64(c.budget) * float64(time.Hour) / float64(c.window)
	space := math.Pow(62, float64(c.codeLength))
	fmt.Fprintf(out, "seed load, L=%d (%.2g codes), per scanner address and hour, through the origin: at most %.0f answered guesses (%.0f across a window boundary)\n",
		c.codeLength, space, honest, honest+float64(c.budget))
	for _, y := range []struct {
		name string
		live float64
	}{{"year 1", liveYear1}, {"year 5", liveYear5}} {
		d := y.live / space
		fmt.Fprintf(out, "  %s (%.2g live links, 1 guess in %.0f hits): %.2f live links found per hour (%.2f at worst); WAF's rate rule (1,000 per 5 min) allowed %.1f\n",
			y.name, y.live, 1/d, honest*d, (honest+float64(c.budget))*d, 12_000*d)
	}
	fmt.Fprintf(out, "  plus what the edge already holds: guesses/h x (links cached at the scanner's edge location / %.2g); here %.0f guesses/h would find %.2f per hour per 1 M cached links\n",
		space, rate*3600, rate*3600*1e6/space)
}
