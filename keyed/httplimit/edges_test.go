package httplimit_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/numerus-closus/numerus/keyed/httplimit"
	"github.com/numerus-closus/numerus/keyed/memory"
	"github.com/numerus-closus/numerus/typed"
	"github.com/stretchr/testify/assert"
)

// TestQuotaOfAtTheEdge: a quota whose refill count fills a whole word of the division QuotaOf
// makes (2^60 tokens per 2^62 ns, burst 2^62) is computed, without a panic in bits.Div64.
func TestQuotaOfAtTheEdge(t *testing.T) {
	sp := typed.Spec{Algo: typed.AlgoGCRA, Count: 1 << 60, Period: 1 << 62, Burst: 1 << 62}
	assert.NotPanics(t, func() {
		assert.Equal(t, time.Duration(1<<62), httplimit.QuotaOf("a", sp)[0].Window)
	})
}

// TestCostAboveCapacity: a request costing more than the capacity is refused for good: the body
// says retrying will not succeed, with no Retry-After and no t, and the body is not sniffed.
func TestCostAboveCapacity(t *testing.T) {
	f := newFixture(t, memory.New(), "token 1/s burst 10", httplimit.FailClosed,
		httplimit.WithCost(func(*http.Request) int64 { return 11 }))
	w := f.do("192.0.2.1:1")
	assert.Equal(t, http.StatusTooManyRequests, w.Code)
	assert.Equal(t, "429 too many requests: retrying will not succeed\n", w.Body.String())
	assert.Equal(t, "nosniff", w.Header().Get("X-Content-Type-Options"))
	assert.Equal(t, `"default";r=10`, w.Header().Get("RateLimit"))
	assert.Empty(t, w.Header().Values("Retry-After"))
}

// TestPeersWithoutAnAddress: a peer whose RemoteAddr is no IP address (a Unix socket's "@") is
// keyed by RemoteAddr itself, so two such peers are two clients.
func TestPeersWithoutAnAddress(t *testing.T) {
	f := newFixture(t, memory.New(), "finite 1", httplimit.FailClosed)
	assert.Equal(t, http.StatusOK, f.do("@").Code)
	assert.Equal(t, http.StatusTooManyRequests, f.do("@").Code)
	assert.Equal(t, http.StatusOK, f.do("pipe").Code, "another peer without an address")
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
