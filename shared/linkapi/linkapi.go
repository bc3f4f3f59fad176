package linkapi

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/shortlink-dev/shortener/shared/link"
)

// CreateRequest is the body of POST /v1/links.
type CreateRequest struct {
	URL            string  `json:"url"`
	Alias          string  `json:"alias,omitempty"`
	ExpiresAt      *string `json:"expires_at,omitempty"`
	TTLSeconds     *int64  `json:"ttl_seconds,omitempty"`
	RedirectStatus *int    `json:"redirect_status,omitempty"`
	// Status is "active" (absent) or "disabled": a link created disabled
	// is never live, not even until a PATCH disables it.
	Status *string `json:"status,omitempty"`
	// Password is write-only: it is hashed before it is stored and no
	// answer ever carries it.
	Password   *string  `json:"password,omitempty"`
	MaxClicks  *int64   `json:"max_clicks,omitempty"`
	Rules      []Rule   `json:"rules,omitempty"`
	Targets    []Target `json:"targets,omitempty"`
	ExpiredURL string   `json:"expired_url,omitempty"`
	// ForwardQuery false keeps the visitor's query from the destination;
	// absent is true. QueryPrecedence is "destination" (absent) or
	// "visitor".
	ForwardQuery    *bool  `json:"forward_query,omitempty"`
	QueryPrecedence string `json:"query_precedence,omitempty"`
	// ImportedClicks is the click total another shortener counted, kept
	// apart from the clicks counted here (the stats' "imported"); set only
	// at create.
	ImportedClicks *int64 `json:"imported_clicks,omitempty"`
}

// Domain converts the wire request, parsing expires_at as RFC 3339.
func (r CreateRequest) Domain() (link.CreateRequest, error) {
	out := link.CreateRequest{URL: r.URL, Alias: r.Alias, TTLSeconds: r.TTLSeconds, RedirectStatus: r.RedirectStatus,
		Status: r.Status, Features: link.FeaturesRequest{Password: r.Password, MaxClicks: r.MaxClicks, Rules: r.Rules, Targets: r.Targets,
			ExpiredURL: r.ExpiredURL, ForwardQuery: r.ForwardQuery, QueryPrecedence: r.QueryPrecedence}}
	out.ImportedClicks = r.ImportedClicks
	if r.ExpiresAt != nil {
		t, err := time.Parse(time.RFC3339, *r.ExpiresAt)
		if err != nil {
			return out, &link.FieldError{Field: "expires_at", Reason: "must be an RFC 3339 time such as 2030-01-02T15:04:05Z"}
		}
		out.ExpiresAt = &t
	}
	return out, nil
}

// Link is a link as the API shows it.
type Link struct {
	Code           string `json:"code"`
	ShortURL       string `json:"short_url"`
	URL            string `json:"url"`
	Alias          string `json:"alias,omitempty"`
	CreatedAt      string `json:"created_at"`
	ExpiresAt      string `json:"expires_at"`
	RedirectStatus int    `json:"redirect_status"`
	Features
	// ImportedClicks is the link's imported click total, absent when it
	// has none. A listing leaves it out (linkstore.Listed); GET of the
	// link has it.
	ImportedClicks int64 `json:"imported_clicks,omitempty"`
}

// Presenter turns links into their API form under the service's base URL.
type Presenter struct {
	// BaseURL is the short domain's origin, such as https://sho.rt.
	BaseURL string
}

// BaseURLFunc gives the short links' base URL when it is learnt at run
// time rather than configured: the distribution's own host, without a
// custom domain (shared/edgeinfo).
type BaseURLFunc func(ctx context.Context) (string, error)

// Site is p and r under the base URL f gives (Under), or p and r as they
// are when f is nil. A base URL that cannot be learnt or used is
// link.ErrUnavailable: the API answers 503 and writes nothing.
func (f BaseURLFunc) Site(ctx context.Context, p Presenter, r link.Rules) (Presenter, link.Rules, error) {
	if f == nil {
		return p, r, nil
	}
	base, err := f(ctx)
	if err != nil {
		return p, r, fmt.Errorf("%w: the short links' base URL: %w", link.ErrUnavailable, err)
	}
	if p, r, err = Under(base, p, r); err != nil {
		return p, r, fmt.Errorf("%w: %w", link.ErrUnavailable, err)
	}
	return p, r, nil
}

// HostsFunc gives, at run time, hosts the edge answers on that no setting
// names: the distribution's own *.cloudfront.net name, which still serves
// every short link when a custom domain is set (shared/edgeinfo).
type HostsFunc func(ctx context.Context) ([]string, error)

// Refuse is r refusing long URLs on the hosts f gives, or r as it is when
// f is nil. Hosts that cannot be learnt are link.ErrUnavailable: the API
// answers 503 and writes nothing, rather than let a loop through.
func (f HostsFunc) Refuse(ctx context.Context, r link.Rules) (link.Rules, error) {
	if f == nil {
		return r, nil
	}
	hosts, err := f(ctx)
	if err != nil {
		return r, fmt.Errorf("%w: the edge's hosts: %w", link.ErrUnavailable, err)
	}
	for _, h := range hosts {
		if h != "" {
			r = r.WithShortDomain(h)
		}
	}
	return r, nil
}

// Serving is p and r as one request sees them: under the base URL base
// gives (BaseURLFunc.Site), refusing the hosts hosts gives
// (HostsFunc.Refuse). Either may be nil.
func Serving(ctx context.Context, base BaseURLFunc, hosts HostsFunc, p Presenter, r link.Rules) (Presenter, link.Rules, error) {
	p, r, err := base.Site(ctx, p, r)
	if err != nil {
		return p, r, err
	}
	r, err = hosts.Refuse(ctx, r)
	return p, r, err
}

// Under is p and r for short links under base: p shows them under it, and
// r refuses long URLs on its host, which would loop.
func Under(base string, p Presenter, r link.Rules) (Presenter, link.Rules, error) {
	u, err := url.Parse(base)
	if err != nil || u.Hostname() == "" {
		return p, r, fmt.Errorf("base URL %q has no host", base)
	}
	p.BaseURL = base
	return p, r.WithShortDomain(u.Hostname()), nil
}

// Link presents l.
func (p Presenter) Link(l link.Link) Link {
	return Link{
		Code:           l.Code,
		ShortURL:       strings.TrimSuffix(p.BaseURL, "/") + "/" + l.Path(),
		URL:            l.URL,
		Alias:          l.Alias,
		CreatedAt:      l.CreatedAt.UTC().Format(time.RFC3339Nano),
		ExpiresAt:      l.ExpiresAt.UTC().Format(time.RFC3339),
		RedirectStatus: l.RedirectStatus,
		Features:       PresentFeatures(l.Features),
		ImportedClicks: l.ImportedClicks,
	}
}
