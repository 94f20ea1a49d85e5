package httplimit_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/httplimit"
	"github.com/numerus-closus/numerus/keyed/memory"
	"github.com/numerus-closus/numerus/typed"
)

// TestDefaultKeyIPv6 checks the default key of IPv6 clients: their /64 by default, so that a
// host cannot step around its limit through the addresses of its /64; the network of the length
// WithIPv6Prefix gives otherwise. IPv4 clients keep their address.
func TestDefaultKeyIPv6(t *testing.T) {
	f := newFixture(t, memory.New(), "finite 1", httplimit.FailClosed)
	assert.Equal(t, http.StatusOK, f.do("[2001:db8:0:1::1]:1").Code)
	assert.Equal(t, http.StatusTooManyRequests, f.do("[2001:db8:0:1::2]:1").Code, "one /64, one client")
	assert.Equal(t, http.StatusTooManyRequests, f.do("[2001:db8:0:1:ffff::9%eth0]:1").Code, "a zone changes nothing")
	assert.Equal(t, http.StatusOK, f.do("[2001:db8:0:2::1]:1").Code, "another /64 is another client")
	assert.Equal(t, http.StatusOK, f.do("192.0.2.1:1").Code)
	assert.Equal(t, http.StatusOK, f.do("192.0.2.2:1").Code, "IPv4 clients keep their address")
	assert.Equal(t, http.StatusOK, f.do("[::ffff:192.0.2.3]:1").Code, "so do IPv4-mapped ones")
	assert.Equal(t, http.StatusTooManyRequests, f.do("192.0.2.3:1").Code, "the mapped address was 192.0.2.3")

	for _, c := range []struct {
		bits       int
		same, next string // an address of the same client as 2001:db8:0:100::1, and of the next
	}{
		{128, "2001:db8:0:100::1", "2001:db8:0:100::2"},
		{127, "2001:db8:0:100::", "2001:db8:0:100::2"},
		{64, "2001:db8:0:100:ffff::1", "2001:db8:0:101::1"},
		{56, "2001:db8:0:1ff::1", "2001:db8:0:200::1"},
		{48, "2001:db8:0:ffff::1", "2001:db8:1::1"},
	} {
		f := newFixture(t, memory.New(), "finite 1", httplimit.FailClosed, httplimit.WithIPv6Prefix(c.bits))
		assert.Equal(t, http.StatusOK, f.do("[2001:db8:0:100::1]:1").Code, "/%d", c.bits)
		assert.Equal(t, http.StatusTooManyRequests, f.do("["+c.same+"]:1").Code, "/%d: %s is the same client", c.bits, c.same)
		assert.Equal(t, http.StatusOK, f.do("["+c.next+"]:1").Code, "/%d: %s is another client", c.bits, c.next)
	}
}

// TestIPv6PrefixOutOfRange: a prefix length outside [1, 128] is an error of New, naming the
// option, not a silent choice of another length.
func TestIPv6PrefixOutOfRange(t *testing.T) {
	l, err := keyed.New(memory.New(), typed.Spec{Algo: typed.AlgoFinite, Count: 1}, keyed.StringKey{})
	require.NoError(t, err)
	for _, bits := range []int{0, -1, 129} {
		_, err := httplimit.New(l, httplimit.FailClosed, httplimit.WithIPv6Prefix(bits))
		require.ErrorIs(t, err, numerus.ErrInvalidArgument, "bits %d", bits)
		assert.ErrorContains(t, err, "WithIPv6Prefix")
	}
}

// TestIPv6FloodOfOneSubnet floods a real server on loopback, behind a trusted proxy that reports
// each client in X-Forwarded-For, with 10,000 requests from fresh addresses of one /64 under
// window 5/h: five are served, and the store holds one subject. (Keyed by address, all 10,000
// were served and held 10,000 entries.)
func TestIPv6FloodOfOneSubnet(t *testing.T) {
	sp, err := typed.Parse("window 5/h")
	require.NoError(t, err)
	store := memory.New()
	// A clock that stands still, so that the flood never straddles the top of an hour, where the
	// window would start again.
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	l, err := keyed.New(store, sp, keyed.StringKey{}, keyed.WithClock(func() time.Time { return now }))
	require.NoError(t, err)
	m, err := httplimit.New(l, httplimit.FailClosed,
		httplimit.WithTrustedProxies(netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")))
	require.NoError(t, err)
	srv := httptest.NewServer(m.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})))
	defer srv.Close()
	client := srv.Client()
	client.Timeout = 10 * time.Second
	served := 0
	for i := range 10_000 {
		req, err := http.NewRequest("GET", srv.URL, nil)
		require.NoError(t, err)
		req.Header.Set("X-Forwarded-For", fmt.Sprintf("2001:db8:5:7:%x:%x::1", i>>16, i&0xffff))
		resp, err := client.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			served++
		}
	}
	assert.Equal(t, 5, served)
	assert.Equal(t, 1, store.Len(), "one subject in the store")
}

// TestPeersWithoutAnAddress: a peer whose RemoteAddr is no IP address (a Unix socket's "@") is
// keyed by RemoteAddr itself, so two such peers are two clients.
func TestPeersWithoutAnAddress(t *testing.T) {
	f := newFixture(t, memory.New(), "finite 1", httplimit.FailClosed)
	assert.Equal(t, http.StatusOK, f.do("@").Code)
	assert.Equal(t, http.StatusTooManyRequests, f.do("@").Code)
	assert.Equal(t, http.StatusOK, f.do("pipe").Code, "another peer without an address")
}
