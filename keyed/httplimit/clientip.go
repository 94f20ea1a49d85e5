package httplimit

import (
	"net/http"
	"net/netip"
	"strings"
)

// ClientIP returns the address of the client that sent r: the peer's address (r.RemoteAddr),
// unless the peer is one of the trusted proxies. Only then is X-Forwarded-For read, from the
// right: each address a trusted proxy appended is the peer it saw, so the first address from the
// right that is not a trusted proxy is the client. An address that does not parse stops the walk
// at the proxy that reported it, whose address is returned. With no trusted proxies (the
// default) X-Forwarded-For is never read: any client can write it. A prefix contains the
// addresses of a link-local peer whatever its zone (fe80::/10 trusts fe80::1%eth0); the address
// returned keeps its zone. Addresses are read unmapped (::ffff:10.0.0.1 as 10.0.0.1), so name
// IPv4 proxies by IPv4 prefixes (10.0.0.0/8): an IPv4-mapped prefix (::ffff:10.0.0.0/104) trusts
// no peer, and X-Forwarded-For is then not read.
//
// It returns the zero Addr if r.RemoteAddr is not an address (as with some test transports).
func ClientIP(r *http.Request, trusted ...netip.Prefix) netip.Addr {
	addr := parseAddr(r.RemoteAddr)
	if !addr.IsValid() || !isTrusted(addr, trusted) {
		return addr
	}
	hops := forwarded(r.Header.Values("X-Forwarded-For"))
	for i := len(hops) - 1; i >= 0; i-- {
		hop := parseAddr(hops[i])
		if !hop.IsValid() {
			return addr
		}
		addr = hop
		if !isTrusted(hop, trusted) {
			break
		}
	}
	return addr
}

// forwarded splits X-Forwarded-For field lines into their addresses, in order.
func forwarded(lines []string) []string {
	var hops []string
	for _, line := range lines {
		for hop := range strings.SplitSeq(line, ",") {
			hops = append(hops, strings.TrimSpace(hop))
		}
	}
	return hops
}

// parseAddr reads "ip", "ip:port", "[ipv6]" or "[ipv6]:port", with IPv4-mapped IPv6 addresses
// unmapped. A bracket without its pair makes the address invalid.
func parseAddr(s string) netip.Addr {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap()
	}
	if len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']' {
		s = s[1 : len(s)-1]
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap()
}

// isTrusted reports whether a lies in one of the trusted prefixes. A zone (the interface of a
// link-local peer, as in fe80::1%eth0) is not part of the address a prefix names: netip.Prefix
// contains no zoned address, so the zone is set aside.
func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	a = a.WithZone("")
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
