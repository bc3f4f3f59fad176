package managefn

import (
	"log/slog"
	"time"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/audit"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/edgecache"
	"github.com/shortlink-dev/shortener/shared/edgemarks"
	"github.com/shortlink-dev/shortener/shared/linkapi"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/workspace"
)

// Options are what New needs to build a Handler the way every deployment
// runs it: the Lambda and the local gateway alike.
type Options struct {
	Store Store
	// Edge is edgecache.CloudFront in AWS; the local run passes the
	// edgecache.Recorder its CloudFront emulator purges through.
	Edge   edgecache.Invalidator
	Config config.Config
	// Grace is how long a deleted link's code is held back
	// (SHORTENER_TOMBSTONE_GRACE); link.DefaultTombstoneGrace when zero.
	Grace   time.Duration
	Log     *slog.Logger
	Metrics *metrics.Emitter
	// Owners resolves API keys to owners: the keys table.
	Owners apigw.Owners
	// Members is the members table (MEMBERS_TABLE); nil: no members API.
	Members workspace.Store
	// Keys is the keys table (KEYS_TABLE) the keys API writes; nil: no
	// keys API.
	Keys apikey.Store
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Sleep waits out the invalidation settle time; time.Sleep when nil.
	Sleep func(time.Duration)
	// BaseURL, when set, gives the base URL per request instead of
	// Config.BaseURL: the distribution's host, learnt at run time.
	BaseURL linkapi.BaseURLFunc
	// EdgeHosts, when set, gives the hosts the edge answers on besides
	// the base URL's, refused as long URLs (Handler.EdgeHosts).
	EdgeHosts linkapi.HostsFunc
	// Marks are the edge marks of the Regions whose redirects serve the
	// edge; nil invalidates every change.
	Marks *edgemarks.Check
	// Audit records each edit and delete; AuditLog reads the log for GET
	// /v1/audit. nil: none recorded, and the route answers 404.
	Audit    audit.Recorder
	AuditLog audit.Reader
}

// New builds a handler from the configuration.
func New(o Options) *Handler {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	return &Handler{
		Store:   o.Store,
		Edge:    o.Edge,
		Rules:   o.Config.Rules(),
		Present: linkapi.Presenter{BaseURL: o.Config.BaseURL},
		Grace:   o.Grace,
		Now:     now,
		Log:     o.Log,
		Metrics: o.Metrics,
		Owners:  o.Owners,
		Members: o.Members,
		Keys:    o.Keys,

		EdgeSettle: o.Config.InvalidationSettle,
		EdgeSleep:  o.Sleep,
		BaseURL:    o.BaseURL,
		EdgeHosts:  o.EdgeHosts,
		Marks:      o.Marks,
		Audit:      o.Audit,
		AuditLog:   o.AuditLog,
	}
}
