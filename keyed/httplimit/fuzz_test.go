package httplimit_test

import (
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/numerus-closus/numerus/keyed/httplimit"
	"github.com/stretchr/testify/require"
)

// FuzzClientIP feeds arbitrary peer addresses and X-Forwarded-For lines to ClientIP. It never
// panics; with no trusted proxy it answers the peer's address whatever the header says; and with
// some it answers what a model of the walk answers, the model reading addresses with net/netip
// on its own: the peer, unless it is a trusted proxy; then each hop from the right while the hops
// passed are trusted proxies, stopping at the first hop that is not one, and at the last address
// read when a hop does not parse.
func FuzzClientIP(f *testing.F) {
	for _, seed := range [][3]string{
		{"10.0.0.1:80", "6.6.6.6, 1.2.3.4, 10.0.0.2", ""},
		{"10.0.0.1:80", "6.6.6.6", "1.2.3.4 , 10.9.9.9"},
		{"10.0.0.1:80", "10.0.0.3, 10.0.0.2", ""},
		{"10.0.0.1:80", "10.0.0.2, 10.0.0.2", ""},
		{"10.0.0.1:80", "junk, 10.0.0.2", "10.0.0.2"},
		{"10.0.0.1:80", "10.0.0.1, 6.6.6.6", ""},
		{"10.0.0.1:80", "1.2.3.4, junk", ""},
		{"10.0.0.1:80", ", 1.2.3.4", ""},
		{"[fd00::1]:443", "[2001:db8::5]:1234", "[::ffff:10.0.0.4]"},
		{"203.0.113.7:5555", "1.2.3.4", ""},
		{"pipe", "1.2.3.4", ""},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}
	f.Fuzz(func(t *testing.T, remote, line1, line2 string) {
		r := &http.Request{RemoteAddr: remote, Header: http.Header{}}
		var hops []string
		for _, line := range []string{line1, line2} {
			if line != "" {
				r.Header.Add("X-Forwarded-For", line)
				hops = append(hops, strings.Split(line, ",")...)
			}
		}
		peer := modelAddr(remote)
		require.Equal(t, peer, httplimit.ClientIP(r), "no proxy is trusted: the peer, whatever the header says")
		require.Equal(t, modelClientIP(peer, hops, trusted), httplimit.ClientIP(r, trusted...),
			"peer %q, hops %q", remote, hops)
	})
}

// modelClientIP is the walk ClientIP documents, over the peer's address and the header's hops.
func modelClientIP(peer netip.Addr, hops []string, trusted []netip.Prefix) netip.Addr {
	isTrusted := func(a netip.Addr) bool {
		return slices.ContainsFunc(trusted, func(p netip.Prefix) bool { return p.Contains(a) })
	}
	addr := peer
	for i := len(hops) - 1; i >= 0 && addr.IsValid() && isTrusted(addr); i-- {
		hop := modelAddr(strings.TrimSpace(hops[i]))
		if !hop.IsValid() {
			break
		}
		addr = hop
	}
	return addr
}

// modelAddr reads an address as ClientIP documents: ip:port or [ipv6]:port as net/netip reads
// them, else ip or [ipv6] alone, an IPv4-mapped IPv6 address as its IPv4 address; the zero Addr
// if it is none of them.
func modelAddr(s string) netip.Addr {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap()
	}
	if inner, bracketed := strings.CutPrefix(s, "["); bracketed {
		var closed bool
		if s, closed = strings.CutSuffix(inner, "]"); !closed {
			return netip.Addr{}
		}
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap()
}
