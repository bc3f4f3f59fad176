package edgeinfo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/shortlink-dev/shortener/shared/ssmparam"
)

// Info is what the edge stack publishes.
type Info struct {
	DistributionID string `json:"distributionId"`
	// DomainName is the distribution's own host, d111111abcdef8.cloudfront.net.
	DomainName string `json:"domainName"`
	// VersionStoreARN is the CloudFront KeyValueStore of link versions the
	// redirect cache is keyed on, with the context edgeVersionKeys; empty
	// without it.
	VersionStoreARN string `json:"versionStoreArn,omitempty"`
}

// The JSON keys of the parameter's value, for the stack that writes it.
const (
	KeyDistributionID = "distributionId"
	KeyDomainName     = "domainName"
	KeyVersionStore   = "versionStoreArn"
)

// Parse reads a parameter's value, refusing one without either field.
func Parse(value string) (Info, error) {
	var in Info
	if err := json.Unmarshal([]byte(value), &in); err != nil {
		return Info{}, fmt.Errorf("edge parameter: %w", err)
	}
	in.DistributionID = strings.TrimSpace(in.DistributionID)
	in.DomainName = strings.TrimSuffix(strings.TrimSpace(in.DomainName), ".")
	var errs []error
	if in.DistributionID == "" {
		errs = append(errs, errors.New("edge parameter: no "+KeyDistributionID))
	}
	if in.DomainName == "" || strings.ContainsAny(in.DomainName, "/:@ ") {
		errs = append(errs, fmt.Errorf("edge parameter: %s %q is not a host name", KeyDomainName, in.DomainName))
	}
	return in, errors.Join(errs...)
}

// BaseURL is the origin of short links served by the distribution's own
// host: the base URL when no custom domain is configured.
func (i Info) BaseURL() string { return "https://" + i.DomainName }

// Source gives the edge's Info.
type Source interface {
	Info(ctx context.Context) (Info, error)
}

// Static is a Source that is known in advance: the local run's edge.
type Static Info

// Info returns s.
func (s Static) Info(context.Context) (Info, error) { return Info(s), nil }

// ParameterAPI reads an SSM parameter's value: ssmparam.Client, a signed
// GetParameter call that spares the functions the SDK's SSM client and its
// start-up cost (docs/benchmarks.md, "Cold start").
type ParameterAPI interface {
	Get(ctx context.Context, name string) (string, error)
}

var _ ParameterAPI = (*ssmparam.Client)(nil)

// DefaultRefresh is how long a read value is trusted before the next
// request reads the parameter again: the distribution changes only when
// it is replaced, and a GetParameter every 15 minutes per function
// instance is well inside SSM's free standard throughput.
const DefaultRefresh = 15 * time.Minute

// Parameter reads Info from the SSM parameter Name the first time it is
// asked for, and keeps it for Refresh. A failed read is retried by the
// next call; once a value has been read, a failed refresh keeps it for
// another period.
type Parameter struct {
	API     ParameterAPI
	Name    string
	Refresh time.Duration    // DefaultRefresh when zero or less
	Now     func() time.Time // time.Now when nil

	mu   sync.Mutex
	have bool
	info Info
	read time.Time
}

var _ Source = (*Parameter)(nil)

// Info returns the edge's Info, reading the parameter when it has none
// or what it has is older than Refresh.
func (p *Parameter) Info(ctx context.Context) (Info, error) {
	now := time.Now
	if p.Now != nil {
		now = p.Now
	}
	refresh := p.Refresh
	if refresh <= 0 {
		refresh = DefaultRefresh
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.have && now().Sub(p.read) < refresh {
		return p.info, nil
	}
	info, err := p.get(ctx)
	if err != nil {
		if p.have {
			// Keep serving what was read; try again a period later
			// rather than on every request.
			p.read = now()
			return p.info, nil
		}
		return Info{}, err
	}
	p.have, p.info, p.read = true, info, now()
	return info, nil
}

func (p *Parameter) get(ctx context.Context) (Info, error) {
	value, err := p.API.Get(ctx, p.Name)
	if err != nil {
		return Info{}, fmt.Errorf("get parameter %s: %w", p.Name, err)
	}
	return Parse(value)
}
