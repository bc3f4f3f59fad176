package linkapi

import (
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
	// Password is write-only: it is hashed before it is stored and no
	// answer ever carries it.
	Password   *string  `json:"password,omitempty"`
	MaxClicks  *int64   `json:"max_clicks,omitempty"`
	Rules      []Rule   `json:"rules,omitempty"`
	Targets    []Target `json:"targets,omitempty"`
	ExpiredURL string   `json:"expired_url,omitempty"`
}

// Domain converts the wire request, parsing expires_at as RFC 3339.
func (r CreateRequest) Domain() (link.CreateRequest, error) {
	out := link.CreateRequest{URL: r.URL, Alias: r.Alias, TTLSeconds: r.TTLSeconds, RedirectStatus: r.RedirectStatus,
		Features: link.FeaturesRequest{Password: r.Password, MaxClicks: r.MaxClicks, Rules: DomainRules(r.Rules),
			Targets: DomainTargets(r.Targets), ExpiredURL: r.ExpiredURL}}
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
}

// Presenter turns links into their API form under the service's base URL.
type Presenter struct {
	// BaseURL is the short domain's origin, such as https://sho.rt.
	BaseURL string
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
	}
}
