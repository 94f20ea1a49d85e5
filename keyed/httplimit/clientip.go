package httplimit

import (
	"net/http"
	"net/netip"
	"strings"
)

// ClientIP returns the address of the client that sent r: r.RemoteAddr, unless that peer is a
// trusted proxy; then X-Forwarded-For is read from the right, and the first address that is not
// a trusted proxy is the client. With no trusted proxies X-Forwarded-For is never read. Addresses
// are compared unmapped, so name IPv4 proxies by IPv4 prefixes. It returns the zero Addr if
// r.RemoteAddr is not an address.
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
