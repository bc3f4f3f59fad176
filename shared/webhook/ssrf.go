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

// globalUnicast6 is the only IPv6 space a receiver may be in: global
// unicast (RFC 4291 section 2.4, https://www.rfc-editor.org/rfc/rfc4291#section-2.4).
// Everything outside it is refused without a list: ::/96 (unspecified,
// loopback and the deprecated IPv4-compatible form, which would smuggle
// ::10.0.0.1 through), ::ffff:0:0:0/96 (IPv4-translated), 64:ff9b::/96 and
// 64:ff9b:1::/48 (NAT64: they reach the IPv4 address inside through a
// translator, and no deployed function resolves through DNS64), 100::/64,
// 5f00::/16 (SRv6 SIDs), fc00::/7, fec0::/10 (deprecated site-local),
// fe80::/10, ff00::/8 and the unassigned rest. IPv4-mapped addresses
// (::ffff:0:0/96) are unmapped first and judged as the IPv4 they carry.
var globalUnicast6 = netip.MustParsePrefix("2000::/3")

// special is every row of IANA's special-purpose address registries that is
// not already outside globalUnicast6
// (https://www.iana.org/assignments/iana-ipv4-special-registry/,
// https://www.iana.org/assignments/iana-ipv6-special-registry/), plus the
// IPv4 multicast and reserved blocks. All are refused, the rows marked
// "globally reachable: true" too, because none is where a receiver's HTTPS
// server lives: the anycast rows (PCP, TURN, DNS-SD SRP, AMT, AS112) are
// answered by the nearest operator's box, for PCP the caller's own gateway,
// so a request there lands inside the network it leaves; ORCHIDv2 and the
// drone tags are identifiers, not locators. Ordinary global addresses next
// to them (2001:4860::/32, say) are not in the registries and pass.
var special = []netip.Prefix{
	// IPv4.
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("10.0.0.0/8"),      // private, RFC 1918
	netip.MustParsePrefix("100.64.0.0/10"),   // shared address space (CGNAT), RFC 6598
	netip.MustParsePrefix("127.0.0.0/8"),     // loopback
	netip.MustParsePrefix("169.254.0.0/16"),  // link local, the instance metadata service
	netip.MustParsePrefix("172.16.0.0/12"),   // private, RFC 1918
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments, PCP and TURN anycast among them
	netip.MustParsePrefix("192.0.2.0/24"),    // TEST-NET-1
	netip.MustParsePrefix("192.31.196.0/24"), // AS112-v4 (globally reachable: a DNS sink)
	netip.MustParsePrefix("192.52.193.0/24"), // AMT relay anycast (globally reachable)
	netip.MustParsePrefix("192.88.99.0/24"),  // deprecated 6to4 relay anycast, RFC 7526
	netip.MustParsePrefix("192.168.0.0/16"),  // private, RFC 1918
	netip.MustParsePrefix("192.175.48.0/24"), // AS112 direct delegation (globally reachable: a DNS sink)
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // TEST-NET-2
	netip.MustParsePrefix("203.0.113.0/24"),  // TEST-NET-3
	netip.MustParsePrefix("224.0.0.0/4"),     // multicast
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and the limited broadcast 255.255.255.255

	// IPv6 rows inside 2000::/3.
	netip.MustParsePrefix("2001::/23"),         // IETF protocol assignments: Teredo (IPv4 inside), PCP/TURN/SRP anycast, benchmarking, AMT, AS112-v6, ORCHID, drone tags
	netip.MustParsePrefix("2001:db8::/32"),     // documentation
	netip.MustParsePrefix("2002::/16"),         // 6to4: reaches the IPv4 address inside
	netip.MustParsePrefix("2620:4f:8000::/48"), // AS112 direct delegation (globally reachable: a DNS sink)
	netip.MustParsePrefix("3fff::/20"),         // documentation, RFC 9637
}

// Allowed reports whether a receiver at ip may be called: a global unicast
// address in no special-purpose range, or a loopback one when AllowLoopback
// is set. An address with a zone is refused: a zone names a local link.
func (g Guard) Allowed(ip netip.Addr) bool {
	if !ip.IsValid() || ip.Zone() != "" {
		return false
	}
	ip = ip.Unmap()
	if g.AllowLoopback && ip.IsLoopback() {
		return true
	}
	if ip.Is6() && !globalUnicast6.Contains(ip) {
		return false
	}
	for _, p := range special {
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
