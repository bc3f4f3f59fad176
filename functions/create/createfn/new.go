package createfn

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/audit"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/linkapi"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/shortcode"
)

// Options are what New needs to build a Handler the way every deployment
// runs it: the Lambda and the local gateway alike.
type Options struct {
	Store   linkstore.Store
	Config  config.Config
	Log     *slog.Logger
	Metrics *metrics.Emitter
	// Owners resolves API keys to owners: the keys table.
	Owners apigw.Owners
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Codes draws the generated codes; codes of Config.CodeLength from
	// crypto/rand when nil.
	Codes Codes
	// BaseURL, when set, gives the base URL per request instead of
	// Config.BaseURL: the distribution's host, learnt at run time.
	BaseURL linkapi.BaseURLFunc
	// EdgeHosts, when set, gives the hosts the edge answers on besides
	// the base URL's, refused as long URLs (Handler.EdgeHosts).
	EdgeHosts linkapi.HostsFunc
	// Audit records each link created; nil records none.
	Audit audit.Recorder
}

// New builds a handler from the configuration, drawing codes from crypto/rand
// unless Options.Codes draws them.
func New(o Options) (*Handler, error) {
	codes := o.Codes
	if codes == nil {
		gen, err := shortcode.New(o.Config.CodeLength, nil)
		if err != nil {
			return nil, fmt.Errorf("code generator: %w", err)
		}
		codes = gen
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	return &Handler{
		Store:     o.Store,
		Codes:     codes,
		Rules:     o.Config.Rules(),
		Present:   linkapi.Presenter{BaseURL: o.Config.BaseURL},
		Now:       now,
		Log:       o.Log,
		Metrics:   o.Metrics,
		Owners:    o.Owners,
		BaseURL:   o.BaseURL,
		EdgeHosts: o.EdgeHosts,
		Audit:     o.Audit,
	}, nil
}
