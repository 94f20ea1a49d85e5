package upstream

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/stretchr/testify/require"
)

// fuzzRef is the upstream's instant the fuzz targets read dates against.
var fuzzRef = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// FuzzRetryAfter feeds arbitrary Retry-After and Date fields to readSignal on a 429. It never
// panics; the pause is never negative nor above the max pause; a field of digits alone is that
// many seconds, clamped; and a field that is neither digits nor an HTTP-date pauses nothing.
func FuzzRetryAfter(f *testing.F) {
	for _, seed := range [][2]string{
		{"120", ""}, {"0", ""}, {"99999999999999999999", ""}, {" 7 ", ""}, {"-1", ""}, {"1e3", ""},
		{"Thu, 01 Jan 2026 12:00:30 GMT", "Thu, 01 Jan 2026 12:00:00 GMT"},
		{"Thursday, 01-Jan-26 12:00:30 GMT", ""}, {"Thu Jan  1 12:00:30 2026", "garbage"},
		{"Thu, 01 Jan 2026 11:00:00 GMT", "Thu, 01 Jan 2026 12:00:00 GMT"},
	} {
		f.Add(seed[0], seed[1])
	}
	const most = time.Hour
	f.Fuzz(func(t *testing.T, v, date string) {
		h := http.Header{"Retry-After": {v}, "Date": {date}}
		got := readSignal(http.StatusTooManyRequests, h, fuzzRef, most).pause
		require.GreaterOrEqual(t, got, time.Duration(0))
		require.LessOrEqual(t, got, most)
		trimmed := strings.Trim(v, " \t")
		if n, err := strconv.ParseUint(trimmed, 10, 64); err == nil && strings.Trim(trimmed, "0123456789") == "" {
			require.Equal(t, min(seconds(int64(min(n, uint64(maxSeconds)))), most), got, "%q", v)
		}
		if _, ok := retryAfter(v, fuzzRef); !ok {
			require.Zero(t, got, "%q says nothing", v)
		}
	})
}

// FuzzRateLimit feeds arbitrary RateLimit and RateLimit-Policy fields to readSignal. It never
// panics; every quota has nothing negative and a reset within the max pause; a quota with nothing
// left pauses at least until its reset; and the budgets they make, composed as a gate composes
// them, obey the time rule: a debit at the response's instant after a refusal is refused no
// earlier than the gate was told.
func FuzzRateLimit(f *testing.F) {
	for _, seed := range [][2]string{
		{`"burst";q=100;w=60`, `"burst";r=50;t=30`},
		{`"a";q=10;w=1, "b";q=1000;w=3600`, `"b";r=0;t=7200, "a";r=3;t=1`},
		{`"p";q=5;w=10;pk=:YQ==:`, `"p";r=1;pk=:YQ==:`},
		{`b;q=5;qu="content-bytes"`, `b;r=1;t=1`},
		{``, `"x";r=999999999999999;t=999999999999999`},
		{`"a";q=`, `"a";r=1;t=3,,`}, {`"a";q=1`, `("a");r=1`},
	} {
		f.Add(seed[0], seed[1])
	}
	const most = 10 * time.Minute
	f.Fuzz(func(t *testing.T, policy, limit string) {
		h := http.Header{"Ratelimit-Policy": {policy}, "Ratelimit": {limit}}
		checkSignal(t, readSignal(http.StatusOK, h, fuzzRef, most), most)
	})
}

// FuzzXRateLimit feeds arbitrary X-RateLimit-Limit, -Remaining and -Reset fields, and a Date,
// to readSignal, with the properties of FuzzRateLimit; and a Reset of digits alone reads by the
// documented rule: later than a day before the Date in Unix seconds, an instant, else seconds.
func FuzzXRateLimit(f *testing.F) {
	day := strconv.FormatInt(fuzzRef.Add(-24*time.Hour).Unix(), 10)
	for _, seed := range [][4]string{
		{"5000", "4987", strconv.FormatInt(fuzzRef.Add(time.Hour).Unix(), 10), "Thu, 01 Jan 2026 12:00:00 GMT"},
		{"60", "0", "30", ""}, {"60", "0", "30.5", ""}, {"", "3", day, "Thu, 01 Jan 2026 12:00:00 GMT"},
		{"x", "-1", "1.", ""}, {"1", "1", "99999999999999999999.999999999", ""},
	} {
		f.Add(seed[0], seed[1], seed[2], seed[3])
	}
	const most = 2 * time.Hour
	f.Fuzz(func(t *testing.T, limit, left, reset, date string) {
		h := http.Header{"X-Ratelimit-Limit": {limit}, "X-Ratelimit-Remaining": {left},
			"X-Ratelimit-Reset": {reset}, "Date": {date}}
		s := readSignal(http.StatusOK, h, fuzzRef, most)
		checkSignal(t, s, most)
		n, err := strconv.ParseInt(reset, 10, 64)
		if err != nil || len(s.quotas) == 0 || strings.Trim(reset, "0123456789") != "" {
			return
		}
		ref := serverNow(h, fuzzRef)
		want := seconds(n)
		if n > ref.Add(-epochAfter).Unix() {
			want = max(time.Unix(n, 0).Sub(ref), 0)
		}
		require.Equal(t, min(want, most), s.quotas[0].reset, "reset %q against %v", reset, ref)
	})
}

// checkSignal checks the properties that every signal has, and that its budgets make a lawful
// limiter: nothing goes before a spent quota's reset.
func checkSignal(t *testing.T, s signal, most time.Duration) {
	require.GreaterOrEqual(t, s.pause, time.Duration(0))
	require.LessOrEqual(t, s.pause, most)
	require.LessOrEqual(t, len(s.quotas), 1<<16)
	for _, q := range s.quotas {
		require.GreaterOrEqual(t, q.left, int64(0))
		require.GreaterOrEqual(t, q.limit, int64(0))
		require.GreaterOrEqual(t, q.window, time.Duration(0))
		require.True(t, q.reset >= 0 && q.reset <= most, "reset %v", q.reset)
		if q.left == 0 {
			require.GreaterOrEqual(t, s.pause, q.reset)
		}
	}
	var l numerus.Limiter = newSteered(numerus.AlwaysAllow()).steer(fuzzRef, s.quotas, 0)
	for i := range 3 {
		next, from, ok := l.Debit(fuzzRef)
		if !ok {
			at, finite := from.Time()
			require.True(t, !finite || !at.Before(fuzzRef), "debit %d answers %v", i, from)
			return
		}
		l = next
	}
}
