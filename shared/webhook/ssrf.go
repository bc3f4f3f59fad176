package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// ErrForbiddenAddress: a receiver URL that reaches, or resolves to, an
// address a deployed stack must not call (SSRF).
var ErrForbiddenAddress = errors.New("receiver address is not public")

// Resolver looks host names up; *net.Resolver satisfies it.
type Resolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

var _ Resolver = (*net.Resolver)(nil)

// Guard decides which receivers may be called. The zero value is the
// deployed configuration: https only, public unicast addresses only.
type Guard struct {
	// AllowLoopback lets receivers on loopback addresses be called, over
	// http too: the local run's setting (WEBHOOK_ALLOW_LOOPBACK), so tests
	// can run a receiver on 127.0.0.1. Off by default and in every
	// deployed stack.
	AllowLoopback bool
	// Resolver looks hosts up at creation; net.DefaultResolver when nil.
	Resolver Resolver
}

// Non-public ranges netip's predicates do not cover: IANA's special-purpose
// registries (RFC 6890 and its updates,
// https://www.iana.org/assignments/iana-ipv4-special-registry/ and
// .../iana-ipv6-special-registry/).
var blocked = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // CGNAT, RFC 6598
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // TEST-NET-1
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // TEST-NET-2
	netip.MustParsePrefix("203.0.113.0/24"),  // TEST-NET-3
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and broadcast
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64: reaches IPv4 inside
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001::/23"),       // IETF protocol assignments (Teredo, ...)
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("2002::/16"),       // 6to4: reaches IPv4 inside
}

// Allowed reports whether a receiver at ip may be called.
func (g Guard) Allowed(ip netip.Addr) bool {
	ip = ip.Unmap()
	if g.AllowLoopback && ip.IsLoopback() {
		return true
	}
	if !ip.IsValid() || !ip.IsGlobalUnicast() || ip.IsPrivate() || ip.IsLoopback() ||
		ip.IsLinkLocalUnicast() || ip.IsMulticast() || ip.IsUnspecified() {
		return false
	}
	for _, p := range blocked {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// CheckURL validates a receiver URL at creation: absolute, https (http
// only to an allowed loopback address), a host, no user info, at most
// MaxURLBytes, and every address the host resolves to allowed. Delivery
// checks again at dial time (Client), since DNS can change in between.
func (g Guard) CheckURL(ctx context.Context, raw string) error {
	if len(raw) > MaxURLBytes {
		return fieldErr("url", fmt.Sprintf("must be at most %d bytes", MaxURLBytes))
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return fieldErr("url", "must be an absolute https URL with a host")
	}
	if u.User != nil {
		return fieldErr("url", "must not carry user info")
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return fieldErr("url", "must be an https URL")
	}
	host := u.Hostname()
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else {
		r := g.Resolver
		if r == nil {
			r = net.DefaultResolver
		}
		addrs, err := r.LookupIPAddr(ctx, host)
		if err != nil || len(addrs) == 0 {
			return fieldErr("url", "host "+host+" does not resolve")
		}
		for _, a := range addrs {
			ip, ok := netip.AddrFromSlice(a.IP)
			if !ok {
				return fieldErr("url", "host "+host+" does not resolve")
			}
			ips = append(ips, ip)
		}
	}
	for _, ip := range ips {
		if !g.Allowed(ip) {
			return fmt.Errorf("%w: %w", ErrForbiddenAddress, fieldErr("url", "must reach a public address, not "+ip.Unmap().String()))
		}
		if u.Scheme == "http" && !(g.AllowLoopback && ip.Unmap().IsLoopback()) {
			return fieldErr("url", "must be an https URL")
		}
	}
	return nil
}

// Control is a net.Dialer Control function that refuses connections to
// addresses the guard forbids. It runs after DNS resolution, on the very
// address being dialled, so a name that resolved to a public address at
// creation and to 169.254.169.254 now is still refused.
func (g Guard) Control(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, address)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !g.Allowed(ip) {
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, host)
	}
	return nil
}

// Client is the HTTP client deliveries use: every dial passes Control, no
// proxy from the environment, no redirects followed (a 3xx is an answer,
// and following it would reopen the SSRF door), and timeout bounds each
// delivery.
func (g Guard) Client(timeout time.Duration) *http.Client {
	d := &net.Dialer{Timeout: timeout, Control: g.Control}
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			Proxy:                 nil,
			DialContext:           d.DialContext,
			TLSHandshakeTimeout:   timeout,
			ResponseHeaderTimeout: timeout,
			MaxIdleConnsPerHost:   2,
			IdleConnTimeout:       30 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// SchemeAllowed reports whether the guard may send to u's scheme: https,
// or http to a loopback host when AllowLoopback is set.
func (g Guard) SchemeAllowed(u *url.URL) bool {
	return u.Scheme == "https" || g.AllowLoopback && u.Scheme == "http" && isLoopbackHost(u.Hostname())
}

func isLoopbackHost(h string) bool {
	if ip, err := netip.ParseAddr(h); err == nil {
		return ip.Unmap().IsLoopback()
	}
	return strings.EqualFold(h, "localhost")
}
