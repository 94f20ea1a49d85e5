package httplimit_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/httplimit"
	"github.com/numerus-closus/numerus/keyed/memory"
	"github.com/numerus-closus/numerus/typed"
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

// TestQuotaOfAtTheEdge: a quota whose refill count fills a whole word of the division QuotaOf
// makes (2^60 tokens per 2^62 ns, burst 2^62) is computed, without a panic in bits.Div64.
func TestQuotaOfAtTheEdge(t *testing.T) {
	sp := typed.Spec{Algo: typed.AlgoGCRA, Count: 1 << 60, Period: 1 << 62, Burst: 1 << 62}
	assert.NotPanics(t, func() {
		assert.Equal(t, time.Duration(1<<62), httplimit.QuotaOf("a", sp)[0].Window)
	})
}

// TestSetHeadersRetryAfterAtLeastOne: a refusal whose wait rounds to zero seconds still answers
// Retry-After: 1, never 0 (which a client would take as "retry at once", in a loop).
func TestSetHeadersRetryAfterAtLeastOne(t *testing.T) {
	q := []httplimit.Quota{{Name: "default", Limit: 100, Window: time.Minute}}
	h := http.Header{}
	httplimit.SetHeaders(h, q, keyed.Decision{Limit: 100, FullAfter: keyed.DurationOf(time.Minute), RetryAfter: keyed.DurationOf(0)})
	assert.Equal(t, `"default";r=0;t=0`, h.Get("RateLimit"))
	assert.Equal(t, "1", h.Get("Retry-After"))
}

// TestSetHeadersReplacesRetryAfter: headers set for a refusal and then, on the same map, for an
// admission or a refusal that can never succeed carry no Retry-After: one left from the first
// would tell the client to come back.
func TestSetHeadersReplacesRetryAfter(t *testing.T) {
	q := []httplimit.Quota{{Name: "default", Limit: 100, Window: time.Minute}}
	refused := keyed.Decision{Limit: 100, FullAfter: keyed.DurationOf(time.Minute), RetryAfter: keyed.DurationOf(3 * time.Second)}
	for name, d := range map[string]keyed.Decision{
		"admitted": {Allowed: true, Remaining: 1, Limit: 100, FullAfter: keyed.DurationOf(time.Second), RetryAfter: keyed.DurationOf(0)},
		"never":    {Limit: 100, FullAfter: keyed.Duration{}, RetryAfter: keyed.Duration{}},
	} {
		h := http.Header{}
		httplimit.SetHeaders(h, q, refused)
		assert.Equal(t, "3", h.Get("Retry-After"))
		httplimit.SetHeaders(h, q, d)
		assert.Empty(t, h.Values("Retry-After"), name)
	}
}
