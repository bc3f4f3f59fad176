package webhook_test

import (
	"context"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/shortlink-dev/shortener/shared/webhook"
)

// TestAllowedRanges walks every range of IANA's special-purpose address
// registries (https://www.iana.org/assignments/iana-ipv4-special-registry/,
// https://www.iana.org/assignments/iana-ipv6-special-registry/) and the
// IPv6 space outside global unicast 2000::/3 (RFC 4291 section 2.4): the
// first and the last address of each is refused, and an ordinary global
// address next to it is allowed. The list is written out here rather than
// read from the guard, so a range the guard forgets fails.
func TestAllowedRanges(t *testing.T) {
	refused := []struct {
		name   string
		prefix string
	}{
		// IPv4 special-purpose registry.
		{"this network", "0.0.0.0/8"},
		{"private 10/8", "10.0.0.0/8"},
		{"shared address space (CGNAT)", "100.64.0.0/10"},
		{"loopback", "127.0.0.0/8"},
		{"link local, instance metadata", "169.254.0.0/16"},
		{"private 172.16/12", "172.16.0.0/12"},
		{"IETF protocol assignments", "192.0.0.0/24"},
		{"PCP anycast (globally reachable, answered by the local gateway)", "192.0.0.9/32"},
		{"TURN anycast (globally reachable)", "192.0.0.10/32"},
		{"TEST-NET-1", "192.0.2.0/24"},
		{"AS112-v4 (globally reachable sink)", "192.31.196.0/24"},
		{"AMT (globally reachable relay anycast)", "192.52.193.0/24"},
		{"deprecated 6to4 relay anycast", "192.88.99.0/24"},
		{"private 192.168/16", "192.168.0.0/16"},
		{"direct delegation AS112 (globally reachable sink)", "192.175.48.0/24"},
		{"benchmarking", "198.18.0.0/15"},
		{"TEST-NET-2", "198.51.100.0/24"},
		{"TEST-NET-3", "203.0.113.0/24"},
		{"multicast", "224.0.0.0/4"},
		{"reserved", "240.0.0.0/4"},
		{"limited broadcast", "255.255.255.255/32"},

		// IPv6 outside 2000::/3, registry rows among them.
		{"unspecified, loopback and IPv4-compatible", "::/96"},
		{"IPv4-translated (SIIT)", "::ffff:0:0:0/96"},
		{"NAT64 well-known prefix", "64:ff9b::/96"},
		{"NAT64 local-use prefix", "64:ff9b:1::/48"},
		{"discard-only", "100::/64"},
		{"dummy IPv6 prefix", "100:0:0:1::/64"},
		{"SRv6 SIDs", "5f00::/16"},
		{"unique local", "fc00::/7"},
		{"deprecated site local", "fec0::/10"},
		{"link local", "fe80::/10"},
		{"multicast", "ff00::/8"},
		{"reserved 4000::/2", "4000::/2"},
		{"reserved 8000::/1", "8000::/1"},

		// IPv6 registry rows inside 2000::/3.
		{"IETF protocol assignments", "2001::/23"},
		{"Teredo", "2001::/32"},
		{"PCP anycast (globally reachable)", "2001:1::1/128"},
		{"TURN anycast (globally reachable)", "2001:1::2/128"},
		{"DNS-SD SRP anycast (globally reachable)", "2001:1::3/128"},
		{"benchmarking", "2001:2::/48"},
		{"AMT (globally reachable)", "2001:3::/32"},
		{"AS112-v6 (globally reachable sink)", "2001:4:112::/48"},
		{"ORCHIDv2 (globally reachable identifiers, not locators)", "2001:20::/28"},
		{"drone remote ID tags (globally reachable identifiers)", "2001:30::/28"},
		{"documentation", "2001:db8::/32"},
		{"6to4", "2002::/16"},
		{"direct delegation AS112 (globally reachable sink)", "2620:4f:8000::/48"},
		{"documentation (RFC 9637)", "3fff::/20"},
	}
	deployed := webhook.Guard{}
	for _, tt := range refused {
		p := netip.MustParsePrefix(tt.prefix)
		t.Run(tt.name+" "+tt.prefix, func(t *testing.T) {
			first, last := p.Masked().Addr(), lastAddr(p)
			assert.False(t, deployed.Allowed(first), "first address %s", first)
			assert.False(t, deployed.Allowed(last), "last address %s", last)
			if first.Is4() {
				mapped := netip.AddrFrom16(first.As16())
				assert.False(t, deployed.Allowed(mapped), "IPv4-mapped %s", mapped)
			}
		})
	}

	// Smuggling: a private or metadata IPv4 wrapped in an IPv6 form.
	for _, s := range []string{
		"::ffff:10.0.0.1", "::ffff:169.254.169.254", "::ffff:127.0.0.1", // IPv4-mapped
		"::10.0.0.1", "::169.254.169.254", "::127.0.0.1", // IPv4-compatible (deprecated)
		"::ffff:0:10.0.0.1", "::ffff:0:169.254.169.254", // IPv4-translated
		"64:ff9b::10.0.0.1", "64:ff9b::169.254.169.254", "64:ff9b::8.8.8.8", // NAT64
		"64:ff9b:1::a00:1", "64:ff9b:1:ffff::a9fe:a9fe", // local-use NAT64
		"2002:a00:1::1", "2002:a9fe:a9fe::1", "2002:808:808::1", // 6to4
		"2001:0:4136:e378:8000:63bf:f5ff:fffe",      // Teredo, obfuscated 10.0.0.1
		"fe80::1%eth0", "2606:4700:4700::1111%eth0", // zoned
	} {
		assert.False(t, deployed.Allowed(netip.MustParseAddr(s)), s)
	}

	// Global unicast next to the refused ranges is allowed: the guard
	// refuses the registry's rows, not their neighbourhoods.
	for _, s := range []string{
		"1.1.1.1", "8.8.8.8", "9.255.255.255", "11.0.0.0", "100.63.255.255", "100.128.0.0",
		"126.255.255.255", "128.0.0.0", "169.253.255.255", "169.255.0.0", "172.15.255.255",
		"172.32.0.0", "192.0.1.0", "192.0.3.0", "192.31.195.255", "192.31.197.0", "192.52.192.255",
		"192.52.194.0", "192.88.98.255", "192.88.100.0", "192.167.255.255", "192.169.0.0",
		"192.175.47.255", "192.175.49.0", "198.17.255.255", "198.20.0.0", "198.51.99.255",
		"198.51.101.0", "203.0.112.255", "203.0.114.0", "223.255.255.255",
		"::ffff:8.8.8.8", // IPv4-mapped public: the same host as 8.8.8.8
		"2000::1", "2001:200::1", "2001:4860:4860::8888", "2001:db7:ffff::1", "2001:db9::1",
		"2003::1", "2606:4700:4700::1111", "2620:4f:7fff::1", "2620:4f:8001::1",
		"2a00:1450:4001:81c::200e", "3ffe:ffff::1", "3fff:1000::1",
	} {
		assert.True(t, deployed.Allowed(netip.MustParseAddr(s)), s)
	}
}

// TestCheckURLRefusesSpecialRanges: creation refuses a receiver whose
// literal address is in one of the ranges the old guard let through.
func TestCheckURLRefusesSpecialRanges(t *testing.T) {
	for _, u := range []string{
		"https://[::a00:1]/", "https://[::ffff:0:a9fe:a9fe]/", "https://[fec0::1]/",
		"https://[3fff::1]/", "https://[5f00::1]/", "https://192.31.196.1/",
	} {
		assert.ErrorIs(t, webhook.Guard{}.CheckURL(context.Background(), u), webhook.ErrForbiddenAddress, u)
	}
}

func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

// FuzzAllowed: whatever bytes arrive (4 or 16 make an address), an allowed address is global
// unicast by netip's own predicates, its IPv4-mapped form judges as the
// IPv4 it carries, and nothing panics.
func FuzzAllowed(f *testing.F) {
	for _, s := range []string{
		"8.8.8.8", "::ffff:10.0.0.1", "::a00:1", "::ffff:0:a00:1", "64:ff9b::a9fe:a9fe", "2002:a00:1::1",
		"fec0::1", "3fff::1", "5f00::1", "2001:4860:4860::8888", "2620:4f:8000::1", "192.88.99.1",
	} {
		b := netip.MustParseAddr(s).As16()
		f.Add(b[:])
	}
	deployed := webhook.Guard{}
	f.Fuzz(func(t *testing.T, b []byte) {
		ip, valid := netip.AddrFromSlice(b)
		if !valid {
			assert.False(t, deployed.Allowed(ip))
			return
		}
		ok := deployed.Allowed(ip)
		assert.Equal(t, deployed.Allowed(ip.Unmap()), ok, "mapped and plain agree for %s", ip)
		if ok {
			u := ip.Unmap()
			assert.True(t, u.IsGlobalUnicast() && !u.IsPrivate() && !u.IsLoopback(), "%s allowed", ip)
		}
	})
}

// BenchmarkAllowed: the check runs on every dial of every delivery.
func BenchmarkAllowed(b *testing.B) {
	deployed := webhook.Guard{}
	addrs := []netip.Addr{netip.MustParseAddr("93.184.215.14"), netip.MustParseAddr("2606:4700:4700::1111"),
		netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("::ffff:169.254.169.254")}
	for i := 0; b.Loop(); i++ {
		deployed.Allowed(addrs[i%len(addrs)])
	}
}
