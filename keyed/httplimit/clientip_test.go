package httplimit_test

import (
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/numerus-closus/numerus/keyed/httplimit"
)

func TestClientIP(t *testing.T) {
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}
	linkLocal := []netip.Prefix{netip.MustParsePrefix("fe80::/10")}
	for _, c := range []struct {
		remote  string
		xff     []string
		trusted []netip.Prefix
		want    string
	}{
		{"203.0.113.7:5555", nil, nil, "203.0.113.7"},
		{"203.0.113.7:5555", []string{"1.2.3.4"}, nil, "203.0.113.7"},                  // never trusted by default
		{"10.0.0.1:80", []string{"1.2.3.4"}, nil, "10.0.0.1"},                          // nor from a proxy not declared
		{"203.0.113.7:5555", []string{"1.2.3.4"}, proxies, "203.0.113.7"},              // the peer is no proxy
		{"10.0.0.1:80", []string{"1.2.3.4"}, proxies, "1.2.3.4"},                       // one trusted hop
		{"10.0.0.1:80", []string{"6.6.6.6, 1.2.3.4, 10.0.0.2"}, proxies, "1.2.3.4"},    // the rightmost untrusted
		{"10.0.0.1:80", []string{"6.6.6.6", "1.2.3.4 , 10.9.9.9"}, proxies, "1.2.3.4"}, // over several lines
		{"10.0.0.1:80", []string{"10.0.0.3, 10.0.0.2"}, proxies, "10.0.0.3"},           // every hop trusted
		{"10.0.0.1:80", []string{"1.2.3.4, junk"}, proxies, "10.0.0.1"},                // junk stops at its reporter
		{"10.0.0.1:80", []string{"[1.2.3.4"}, proxies, "10.0.0.1"},                     // a bracket without its pair is junk
		{"10.0.0.1:80", []string{"[2001:db8::5]"}, proxies, "2001:db8::5"},
		{"10.0.0.1:80", nil, proxies, "10.0.0.1"},
		{"[fd00::1]:443", []string{"[2001:db8::5]:1234"}, proxies, "2001:db8::5"},
		{"[::ffff:203.0.113.9]:1", nil, nil, "203.0.113.9"},
		{"[fe80::1%eth0]:443", []string{"1.2.3.4"}, linkLocal, "1.2.3.4"},           // a zoned proxy is in its prefix
		{"[fe80::1%eth0]:443", []string{"fe80::2%eth1"}, linkLocal, "fe80::2%eth1"}, // a zoned hop too, kept whole
		{"pipe", nil, nil, "invalid IP"},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = c.remote
		for _, v := range c.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		assert.Equal(t, c.want, httplimit.ClientIP(r, c.trusted...).String(), "%s %q", c.remote, c.xff)
	}
}

// TestMappedTrustedPrefixTrustsNothing: peers are read unmapped, so an IPv4-mapped prefix trusts
// none of them, and ClientIP returns the peer itself, as its doc says: a mistake that fails safe.
func TestMappedTrustedPrefixTrustsNothing(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "[::ffff:10.0.0.1]:80"
	r.Header.Set("X-Forwarded-For", "192.0.2.7")
	assert.Equal(t, netip.MustParseAddr("10.0.0.1"), httplimit.ClientIP(r, netip.MustParsePrefix("::ffff:10.0.0.0/104")))
	assert.Equal(t, netip.MustParseAddr("192.0.2.7"), httplimit.ClientIP(r, netip.MustParsePrefix("10.0.0.0/8")))
}
