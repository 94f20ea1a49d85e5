package httplimit_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/httplimit"
	"github.com/numerus-closus/numerus/keyed/memory"
	"github.com/numerus-closus/numerus/typed"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestQuotaOf(t *testing.T) {
	for text, want := range map[string]httplimit.Quota{
		"10/s":                 {Limit: 10, Window: time.Second}, // the sliding log
		"gcra 10/s":            {Limit: 1, Window: 100 * time.Millisecond},
		"gcra 100/s burst 200": {Limit: 200, Window: 2 * time.Second},
		"token 3/s burst 1":    {Limit: 1, Window: 333333334},
		"leaky 1/h burst 5":    {Limit: 5, Window: 5 * time.Hour},
		"window 1000/h":        {Limit: 1000, Window: time.Hour},
		"sliding 50/m":         {Limit: 50, Window: time.Minute},
		"buckets 60/m in 6":    {Limit: 60, Window: time.Minute},
		"count 5/10s":          {Limit: 5, Window: 10 * time.Second},
		"finite 7":             {Limit: 7},
		// burst·period overflows int64: the window is taken in 128 bits
		"gcra 2000000000/10s burst 3000000000":  {Limit: 3e9, Window: 15 * time.Second},
		"gcra 4000000000/100s burst 6000000000": {Limit: 6e9, Window: 150 * time.Second},
		"gcra 1/73000d":                         {Limit: 1, Window: 1 << 62}, // 200 years, saturated at 146
	} {
		sp, err := typed.Parse(text)
		require.NoError(t, err)
		want.Name = "api"
		assert.Equal(t, []httplimit.Quota{want}, httplimit.QuotaOf("api", sp), text)
	}
	// several limits: one quota each, in the notation's order, named name-1, name-2, …
	for text, want := range map[string][]httplimit.Quota{
		"10/s burst 5 & window 100/h": {{"api-1", 5, 500 * time.Millisecond}, {"api-2", 100, time.Hour}},
		"5/s | 100/min":               {{"api-1", 5, time.Second}, {"api-2", 100, time.Minute}},
		"(window 5/m | finite 5) & sliding 1000/d": {{"api-1", 5, time.Minute}, {"api-2", 5, 0},
			{"api-3", 1000, 24 * time.Hour}},
	} {
		sp, err := typed.Parse(text)
		require.NoError(t, err)
		assert.Equal(t, want, httplimit.QuotaOf("api", sp), text)
	}
}

func TestSetHeaders(t *testing.T) {
	q := []httplimit.Quota{{Name: "default", Limit: 100, Window: time.Minute}}
	for _, c := range []struct {
		name              string
		d                 keyed.Decision
		policy, rl, retry string
	}{
		{"admitted", keyed.Decision{Allowed: true, Remaining: 50, Limit: 100, FullAfter: keyed.DurationOf(time.Minute), RetryAfter: keyed.DurationOf(0), RefillAfter: keyed.DurationOf(29500 * time.Millisecond)},
			`"default";q=100;w=60`, `"default";r=50;t=30`, ""},
		{"full", keyed.Decision{Allowed: true, Remaining: 100, Limit: 100, FullAfter: keyed.DurationOf(0), RetryAfter: keyed.DurationOf(0), RefillAfter: keyed.DurationOf(0)},
			`"default";q=100;w=60`, `"default";r=100;t=0`, ""},
		{"refused", keyed.Decision{Remaining: 0, Limit: 100, FullAfter: keyed.DurationOf(time.Minute), RetryAfter: keyed.DurationOf(1)},
			`"default";q=100;w=60`, `"default";r=0;t=1`, "1"},
		{"refused 2.1s", keyed.Decision{Remaining: 1, Limit: 100, FullAfter: keyed.DurationOf(time.Minute), RetryAfter: keyed.DurationOf(2100 * time.Millisecond)},
			`"default";q=100;w=60`, `"default";r=1;t=3`, "3"},
		{"never", keyed.Decision{Remaining: 0, Limit: 100},
			`"default";q=100;w=60`, `"default";r=0`, ""},
		{"beyond 15 digits", keyed.Decision{Remaining: 1e16, Limit: 1e17, FullAfter: keyed.Duration{}, RetryAfter: keyed.DurationOf(time.Duration(1<<63 - 1))},
			`"default";q=100;w=60`, `"default";r=999999999999999;t=9223372037`, "9223372037"},
	} {
		h := http.Header{}
		httplimit.SetHeaders(h, q, c.d)
		assert.Equal(t, c.policy, h.Get("RateLimit-Policy"), c.name)
		assert.Equal(t, c.rl, h.Get("RateLimit"), c.name)
		assert.Equal(t, c.retry, h.Get("Retry-After"), c.name)
	}
	h := http.Header{}
	httplimit.SetHeaders(h, []httplimit.Quota{{Name: "a\"b\\é"}}, keyed.Decision{Allowed: true, Limit: 3, FullAfter: keyed.DurationOf(0)})
	assert.Equal(t, `"a\"b\\??";q=3`, h.Get("RateLimit-Policy"))
	h = http.Header{}
	httplimit.SetHeaders(h, []httplimit.Quota{{Limit: 1e16, Window: time.Hour}}, keyed.Decision{Allowed: true, Remaining: 5, FullAfter: keyed.DurationOf(0)})
	assert.Equal(t, `"default";q=999999999999999;w=3600`, h.Get("RateLimit-Policy"), "a quota beyond 15 digits")
}

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

// fixture is a middleware on a memory store at a fixed instant, and a counting handler.
type fixture struct {
	h      http.Handler
	served int
}

func newFixture(t *testing.T, store keyed.Store, policy string, onError httplimit.OnError, opts ...httplimit.Option) *fixture {
	t.Helper()
	sp, err := typed.Parse(policy)
	require.NoError(t, err)
	l, err := keyed.New(store, sp, keyed.StringKey{}, keyed.WithClock(func() time.Time { return t0 }))
	require.NoError(t, err)
	m, err := httplimit.New(l, onError, opts...)
	require.NoError(t, err)
	f := &fixture{}
	f.h = m.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { f.served++ }))
	return f
}

func (f *fixture) do(remote string, xff ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = remote
	for _, v := range xff {
		r.Header.Add("X-Forwarded-For", v)
	}
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, r)
	return w
}

func TestMiddleware(t *testing.T) {
	f := newFixture(t, memory.New(), "gcra 2/s burst 2", httplimit.FailClosed)
	w := f.do("192.0.2.1:1000")
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, `"default";q=2;w=1`, w.Header().Get("RateLimit-Policy"))
	assert.Equal(t, `"default";r=1;t=1`, w.Header().Get("RateLimit"))
	assert.Empty(t, w.Header().Get("Retry-After"))
	f.do("192.0.2.1:1001")
	w = f.do("192.0.2.1:1002", "198.51.100.1") // a spoofed X-Forwarded-For changes nothing
	assert.Equal(t, http.StatusTooManyRequests, w.Code)
	assert.Equal(t, `"default";r=0;t=1`, w.Header().Get("RateLimit"))
	assert.Equal(t, "1", w.Header().Get("Retry-After"))
	assert.Equal(t, http.StatusOK, f.do("192.0.2.2:1000").Code, "another client has a limit of its own")
	assert.Equal(t, 3, f.served)
}

func TestMiddlewareTrustedProxy(t *testing.T) {
	f := newFixture(t, memory.New(), "finite 1", httplimit.FailClosed,
		httplimit.WithTrustedProxies(netip.MustParsePrefix("10.0.0.0/8")))
	assert.Equal(t, http.StatusOK, f.do("10.0.0.1:80", "198.51.100.1").Code)
	assert.Equal(t, http.StatusOK, f.do("10.0.0.1:80", "198.51.100.2").Code)
	w := f.do("10.0.0.2:80", "198.51.100.1")
	assert.Equal(t, http.StatusTooManyRequests, w.Code)
	assert.Empty(t, w.Header().Get("Retry-After"), "a spent finite quota has no retry")
	assert.Equal(t, `"default";r=0`, w.Header().Get("RateLimit"))
	assert.Equal(t, "429 too many requests: retrying will not succeed\n", w.Body.String())
}

// TestMiddlewareNilOptions checks that WithKey(nil) and WithCost(nil) restore the defaults rather
// than leave a function that panics on the first request.
func TestMiddlewareNilOptions(t *testing.T) {
	f := newFixture(t, memory.New(), "finite 1", httplimit.FailClosed, httplimit.WithCost(nil), httplimit.WithKey(nil))
	assert.NotPanics(t, func() { assert.Equal(t, http.StatusOK, f.do("192.0.2.1:1").Code) })
	assert.Equal(t, http.StatusTooManyRequests, f.do("192.0.2.1:1").Code, "the default cost is one token")
	assert.Equal(t, http.StatusOK, f.do("192.0.2.2:1").Code, "the default key is the client")
}

// invalid is a store that refuses every request as an invalid argument, for reasons of its own.
type invalid struct{ keyed.Store }

func (invalid) Acquire(context.Context, keyed.Request) (keyed.Decision, error) {
	return keyed.Decision{}, &numerus.ParamError{Param: "key", Problem: "is not one this store keeps"}
}

// failing is a store whose backend is down.
type failing struct{ keyed.Store }

var errDown = errors.New("backend down")

func (failing) Acquire(context.Context, keyed.Request) (keyed.Decision, error) {
	return keyed.Decision{}, errDown
}

func TestMiddlewareStoreErrors(t *testing.T) {
	var logged []error
	log := httplimit.WithErrorLog(func(_ *http.Request, err error) { logged = append(logged, err) })
	closed := newFixture(t, failing{memory.New()}, "10/s", httplimit.FailClosed, log)
	w := closed.do("192.0.2.1:1")
	assert.Equal(t, http.StatusServiceUnavailable, w.Code)
	assert.Empty(t, w.Header().Get("RateLimit"))
	assert.Zero(t, closed.served)
	open := newFixture(t, failing{memory.New()}, "10/s", httplimit.FailOpen, log)
	w = open.do("192.0.2.1:1")
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Empty(t, w.Header().Get("RateLimit"))
	assert.Equal(t, 1, open.served)
	require.Len(t, logged, 2)
	assert.ErrorIs(t, logged[0], errDown)
	// a store's own error that matches ErrInvalidArgument is a store error, not a cost above the
	// capacity: OnError decides, and no 429 tells the client never to retry
	picky := newFixture(t, invalid{memory.New()}, "10/s", httplimit.FailClosed, log)
	w = picky.do("192.0.2.1:1")
	assert.Equal(t, http.StatusServiceUnavailable, w.Code)
	assert.Zero(t, picky.served)
	require.Len(t, logged, 3)
	assert.ErrorIs(t, logged[2], numerus.ErrInvalidArgument)
}

func TestNewRejects(t *testing.T) {
	l, err := keyed.New(memory.New(), numerus.Must(typed.Parse("1/s")), keyed.StringKey{})
	require.NoError(t, err)
	_, err = httplimit.New(l, 0)
	assert.Error(t, err)
	_, err = httplimit.New(keyed.Limiter[string]{}, httplimit.FailOpen)
	assert.Error(t, err)
	_, err = httplimit.New(l, httplimit.FailOpen, nil)
	var pe *numerus.ParamError
	if assert.ErrorAs(t, err, &pe) {
		assert.Equal(t, "option", pe.Param)
	}
}
