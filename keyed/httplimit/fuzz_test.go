package httplimit_test

import (
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/numerus-closus/numerus/keyed/httplimit"
	"github.com/stretchr/testify/require"
)

// FuzzClientIP feeds arbitrary peer addresses and X-Forwarded-For lines to ClientIP. It never
// panics. With no trusted proxy it answers the peer's address whatever the header says. With
// some, it answers either the peer or a hop of the header that the chain vouches for: the peer
// and every hop to its right are trusted proxies with valid addresses, and the walk stopped
// there because the hop is not trusted, or is the leftmost, or the hop to its left does not
// parse.
func FuzzClientIP(f *testing.F) {
	for _, seed := range [][3]string{
		{"10.0.0.1:80", "6.6.6.6, 1.2.3.4, 10.0.0.2", ""},
		{"10.0.0.1:80", "6.6.6.6", "1.2.3.4 , 10.9.9.9"},
		{"10.0.0.1:80", "10.0.0.3, 10.0.0.2", ""},
		{"10.0.0.1:80", "1.2.3.4, junk", ""},
		{"[fd00::1]:443", "[2001:db8::5]:1234", "[::ffff:10.0.0.4]"},
		{"203.0.113.7:5555", "1.2.3.4", ""},
		{"pipe", "1.2.3.4", ""},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}
	isTrusted := func(a netip.Addr) bool {
		return a.IsValid() && (trusted[0].Contains(a) || trusted[1].Contains(a))
	}
	// parse reads an address as ClientIP reads RemoteAddr when it trusts nobody.
	parse := func(s string) netip.Addr { return httplimit.ClientIP(&http.Request{RemoteAddr: s}) }
	f.Fuzz(func(t *testing.T, remote, line1, line2 string) {
		r := &http.Request{RemoteAddr: remote, Header: http.Header{}}
		var hops []netip.Addr
		for _, line := range []string{line1, line2} {
			if line == "" {
				continue
			}
			r.Header.Add("X-Forwarded-For", line)
			for hop := range strings.SplitSeq(line, ",") {
				hops = append(hops, parse(strings.TrimSpace(hop)))
			}
		}
		peer := parse(remote)
		require.Equal(t, peer, httplimit.ClientIP(r), "no proxy is trusted: the header must be ignored")
		got := httplimit.ClientIP(r, trusted...)
		if got == peer {
			return
		}
		require.True(t, isTrusted(peer), "answered %v from the header of an untrusted peer %v", got, peer)
		j := len(hops) - 1 // the hop answered: the first from the right that is not a trusted proxy
		for j >= 0 && hops[j] != got {
			require.True(t, isTrusted(hops[j]), "answered %v past hop %v, which no trusted proxy vouches for", got, hops[j])
			j--
		}
		require.GreaterOrEqual(t, j, 0, "answered %v, which is neither the peer nor a hop", got)
		if isTrusted(got) { // the walk went on past got: it must have ended there
			require.True(t, j == 0 || !hops[j-1].IsValid(), "stopped at the trusted proxy %v", got)
		}
	})
}
