package edgecache

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/shortlink-dev/shortener/shared/cfinvalidate"
)

// CloudFrontAPI lists the CloudFront call this package makes:
// CreateInvalidation of paths on distribution id under callerReference.
// cfinvalidate.Client makes it without the SDK's CloudFront client, whose
// initialisation was most of what was left of the management function's
// cold start (docs/benchmarks.md, "Cold start").
type CloudFrontAPI interface {
	CreateInvalidation(ctx context.Context, id, callerReference string, paths []string) error
}

var _ CloudFrontAPI = (*cfinvalidate.Client)(nil)

// Defaults of CloudFrontConfig.
const (
	// MaxPaths is the most paths one CreateInvalidation may carry.
	MaxPaths = 3000
	// DefaultWindow is how long a batch stays open for more paths. It is
	// small next to the CreateInvalidation call itself (hundreds of ms) and
	// next to the 30 s within which a change must show.
	DefaultWindow = 50 * time.Millisecond
	// DefaultTimeout bounds one CreateInvalidation call, retries included.
	DefaultTimeout = 10 * time.Second
)

// CloudFrontConfig says which distribution to invalidate and how to batch.
type CloudFrontConfig struct {
	DistributionID string
	// Window is how long the first call of a batch waits for others to
	// join it; DefaultWindow when zero or less.
	Window time.Duration
	// MaxPaths caps one batch; a full batch is sent at once. MaxPaths
	// when zero, less, or more than CloudFront accepts.
	MaxPaths int
	// Timeout bounds each CreateInvalidation call; DefaultTimeout when zero
	// or less. It is the batch's own bound: one caller giving up does not
	// cancel the call the others wait for.
	Timeout time.Duration
	// Now stamps the CallerReference; time.Now when nil.
	Now func() time.Time
}

// CloudFront invalidates paths on one distribution, merging the calls made
// within Window into one CreateInvalidation.
type CloudFront struct {
	api CloudFrontAPI
	cfg CloudFrontConfig
	// after runs f once d has passed and returns a function that stops it;
	// a field so tests can hold a window open deterministically.
	after func(d time.Duration, f func()) (stop func() bool)

	mu   sync.Mutex
	open *batch // the batch new paths join; nil when none is open
}

// batch is one future CreateInvalidation. Its fields other than done and
// err are guarded by CloudFront.mu; err is written once before done closes.
type batch struct {
	paths   []string
	set     map[string]struct{}
	waiters int
	sent    bool
	stop    func() bool
	done    chan struct{}
	err     error
}

// NewCloudFront returns an invalidator for cfg.DistributionID over api.
func NewCloudFront(api CloudFrontAPI, cfg CloudFrontConfig) (*CloudFront, error) {
	if cfg.DistributionID == "" {
		return nil, errors.New("edgecache: no CloudFront distribution id")
	}
	if cfg.Window <= 0 {
		cfg.Window = DefaultWindow
	}
	if cfg.MaxPaths <= 0 || cfg.MaxPaths > MaxPaths {
		cfg.MaxPaths = MaxPaths
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &CloudFront{api: api, cfg: cfg, after: afterFunc}, nil
}

func afterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// Invalidate asks CloudFront to drop paths from every edge cache. It joins
// the open batch (or opens one), and returns when the CreateInvalidation
// of every batch holding its paths has answered: nil once CloudFront has
// accepted the invalidation (it completes at the edges later), the call's
// error otherwise, the same error for every caller of the batch. It
// returns ctx's error as soon as ctx ends; the batch is still sent. A ctx
// that has already ended sends nothing.
func (c *CloudFront) Invalidate(ctx context.Context, paths ...string) error {
	clean, err := request(ctx, paths)
	if err != nil || len(clean) == 0 {
		return err
	}
	c.mu.Lock()
	batches := c.enqueueLocked(clean)
	c.mu.Unlock()

	var errs []error
	for _, b := range batches {
		select {
		case <-b.done:
			if b.err != nil {
				errs = append(errs, b.err)
			}
		case <-ctx.Done():
			return fmt.Errorf("invalidate %d paths: %w", len(clean), ctx.Err())
		}
	}
	return errors.Join(errs...)
}

// enqueueLocked adds paths to the open batch, sending it when it fills and
// opening the next, and returns the batches that hold them.
func (c *CloudFront) enqueueLocked(paths []string) []*batch {
	var mine []*batch
	for _, p := range paths {
		b := c.open
		if b == nil || (len(b.paths) >= c.cfg.MaxPaths && !b.has(p)) {
			if b != nil {
				c.sendLocked(b)
			}
			b = c.openLocked()
		}
		if !b.has(p) {
			b.set[p] = struct{}{}
			b.paths = append(b.paths, p)
		}
		if !slices.Contains(mine, b) {
			b.waiters++
			mine = append(mine, b)
		}
	}
	if b := c.open; b != nil && len(b.paths) >= c.cfg.MaxPaths {
		c.sendLocked(b) // full: waiting longer cannot add to it
	}
	return mine
}

func (b *batch) has(p string) bool {
	_, ok := b.set[p]
	return ok
}

func (c *CloudFront) openLocked() *batch {
	b := &batch{set: map[string]struct{}{}, done: make(chan struct{})}
	c.open = b
	b.stop = c.after(c.cfg.Window, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.sendLocked(b)
	})
	return b
}

// sendLocked closes b to new paths and sends it, once.
func (c *CloudFront) sendLocked(b *batch) {
	if b.sent {
		return
	}
	b.sent = true
	if c.open == b {
		c.open = nil
	}
	if b.stop != nil {
		b.stop()
	}
	go c.send(b, slices.Clone(b.paths))
}

func (c *CloudFront) send(b *batch, paths []string) {
	defer close(b.done)
	// Not any caller's context: the batch serves them all, and one that
	// gives up must not cancel the others' invalidation.
	ctx, cancel := context.WithTimeout(context.Background(), c.cfg.Timeout)
	defer cancel()
	slices.Sort(paths)
	if err := c.api.CreateInvalidation(ctx, c.cfg.DistributionID, c.callerReference(), paths); err != nil {
		b.err = fmt.Errorf("create invalidation of %d paths on distribution %s: %w", len(paths), c.cfg.DistributionID, err)
	}
}

// callerReference is unique per request: CloudFront treats a repeated
// reference as a replay and, with other paths, refuses it
// (InvalidationBatchAlreadyExists). The time orders them for a reader; the
// random part keeps concurrent instances apart.
func (c *CloudFront) callerReference() string {
	return "shortener-" + strconv.FormatInt(c.cfg.Now().UnixNano(), 10) + "-" + rand.Text()
}
