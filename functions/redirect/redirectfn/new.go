package redirectfn

import (
	"log/slog"
	"time"

	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/edgemarks"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkcounter"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/missbudget"
	"github.com/shortlink-dev/shortener/shared/redirectcache"
)

// Options are what New needs to build a Handler the way every deployment
// runs it.
type Options struct {
	Store   Getter
	Config  config.Config
	Log     *slog.Logger
	Metrics *metrics.Emitter
	// Misses counts unknown codes per client (missbudget); nil counts
	// none.
	Misses missbudget.Counter
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Counters and Verify serve the links decided at the origin (see
	// Handler); Draw draws their targets, math/rand/v2 when nil.
	Counters linkcounter.Store
	Verify   PasswordVerifier
	Draw     func() int
	// Marks is this Region's edge marks table (edgemarks); nil writes
	// none.
	Marks edgemarks.Store
}

// New builds a handler and its cache from the configuration: entries live
// at most CacheTTL (jittered down by 20 % so a burst of fills does not
// expire at once), misses NegativeCacheTTL, and while DynamoDB fails an
// entry may be served stale for what config.ChangesShowWithin leaves after
// CacheTTL: an entry read just before a change never answers past the
// promise (10 s with the default 20 s cache; none with a 30 s one).
func New(o Options) *Handler {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	c := o.Config
	h := &Handler{
		Store: o.Store,
		Cache: redirectcache.New[cached](redirectcache.Options{
			Capacity:    c.CacheSize,
			TTL:         c.CacheTTL,
			NegativeTTL: c.NegativeCacheTTL,
			Jitter:      0.2,
			StaleFor:    max(config.ChangesShowWithin-c.CacheTTL, 0),
			NotFound:    link.ErrNotFound,
			Now:         now,
		}),
		CacheTTL:         c.CacheTTL,
		NegativeCacheTTL: c.NegativeCacheTTL,
		Timeout:          c.RedirectTimeout,
		EdgeTTL:          c.EdgeTTL,
		NewLinkTTL:       DefaultNewLinkTTL,
		NotFoundTTL:      DefaultNotFoundTTL,
		GoneTTL:          DefaultGoneTTL,
		Now:              now,
		Log:              o.Log,
		Metrics:          o.Metrics,
	}
	h.Counters, h.Verify, h.Draw = o.Counters, o.Verify, o.Draw
	if h.Draw == nil {
		h.Draw = defaultDraw
	}
	if o.Misses != nil {
		h.Misses = missbudget.New(o.Misses, c.MissBudget, c.MissWindow)
	}
	if o.Marks != nil {
		h.Marks = edgemarks.NewMarker(o.Marks, edgemarks.DefaultSlack)
	}
	h.load = h.loadLink
	return h
}
