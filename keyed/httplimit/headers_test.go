package httplimit_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/httplimit"
	"github.com/numerus-closus/numerus/keyed/memory"
	"github.com/numerus-closus/numerus/typed"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHeadersOfEveryLimit: a real server on loopback under "5/s & window 7/min" (the window
// starting on the minute) advertises both limits in RateLimit-Policy, and RateLimit reports the
// one that binds, with t the time until it has one token more: the log's while it has fewer
// tokens left, the window's once both have none, for the window refills last. (RateLimit-Policy
// named the least quota alone, and t was the time until the whole policy was full again.)
func TestHeadersOfEveryLimit(t *testing.T) {
	var now atomic.Int64
	now.Store(t0.UnixNano())
	sp, err := typed.Parse("5/s & window 7/min")
	require.NoError(t, err)
	l, err := keyed.New(memory.New(), sp, keyed.StringKey{}, keyed.WithClock(func() time.Time { return time.Unix(0, now.Load()) }))
	require.NoError(t, err)
	m, err := httplimit.New(l, httplimit.FailClosed)
	require.NoError(t, err)
	srv := httptest.NewServer(m.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})))
	defer srv.Close()
	get := func(at time.Duration) *http.Response {
		now.Store(t0.Add(at).UnixNano())
		resp, err := srv.Client().Get(srv.URL)
		require.NoError(t, err)
		resp.Body.Close()
		return resp
	}
	const policy = `"default-1";q=5;w=1, "default-2";q=7;w=60`
	for i, c := range []struct {
		at        time.Duration
		code      int
		rl, retry string
	}{
		{0, 200, `"default-1";r=4;t=1`, ""},
		{100 * time.Millisecond, 200, `"default-1";r=3;t=1`, ""},
		{200 * time.Millisecond, 200, `"default-1";r=2;t=1`, ""},
		{300 * time.Millisecond, 200, `"default-1";r=1;t=1`, ""},
		{400 * time.Millisecond, 200, `"default-1";r=0;t=1`, ""}, // the first token comes back at 1s
		{500 * time.Millisecond, 429, `"default-1";r=0;t=1`, "1"},
		{time.Second, 200, `"default-1";r=0;t=1`, ""},              // the log holds none again, the window 1
		{1100 * time.Millisecond, 200, `"default-2";r=0;t=59`, ""}, // both none: the window holds on longer
		{1200 * time.Millisecond, 429, `"default-2";r=0;t=59`, "59"},
	} {
		resp := get(c.at)
		assert.Equal(t, c.code, resp.StatusCode, "request %d at %v", i, c.at)
		assert.Equal(t, policy, resp.Header.Get("RateLimit-Policy"), "request %d", i)
		assert.Equal(t, c.rl, resp.Header.Get("RateLimit"), "request %d at %v", i, c.at)
		assert.Equal(t, c.retry, resp.Header.Get("Retry-After"), "request %d at %v", i, c.at)
	}
}

// TestWithQuotaNamesEveryLimit: WithQuota renames the limits, one Quota each; another number of
// quotas is an error of New.
func TestWithQuotaNamesEveryLimit(t *testing.T) {
	sp, err := typed.Parse("5/s & window 100/min")
	require.NoError(t, err)
	l, err := keyed.New(memory.New(), sp, keyed.StringKey{}, keyed.WithClock(func() time.Time { return t0 }))
	require.NoError(t, err)
	qs := []httplimit.Quota{{Name: "second", Limit: 5, Window: time.Second}, {Name: "minute", Limit: 100, Window: time.Minute}}
	m, err := httplimit.New(l, httplimit.FailClosed, httplimit.WithQuota(qs...))
	require.NoError(t, err)
	w := httptest.NewRecorder()
	r := httptest.NewRequest("GET", "/", nil)
	m.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})).ServeHTTP(w, r)
	assert.Equal(t, `"second";q=5;w=1, "minute";q=100;w=60`, w.Header().Get("RateLimit-Policy"))
	assert.Equal(t, `"second";r=4;t=1`, w.Header().Get("RateLimit"))
	_, err = httplimit.New(l, httplimit.FailClosed, httplimit.WithQuota(qs[0]))
	assert.ErrorContains(t, err, "WithQuota")
}
