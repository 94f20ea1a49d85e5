package numerus_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
)

// TestInvalidParameters checks every invalid parameter of every constructor: the error matches
// ErrInvalidArgument, is a *ParamError naming the parameter, and no limiter comes with it.
func TestInvalidParameters(t *testing.T) {
	ok := numerus.PerSecond(1)
	year1 := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	year3000 := time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name  string
		param string
		make  func() (numerus.Limiter, error)
	}{
		{"gcra/zero rate", "rate tokens", func() (numerus.Limiter, error) { return numerus.GCRA(numerus.Rate{}, 1) }},
		{"gcra/negative tokens", "rate tokens", func() (numerus.Limiter, error) { return numerus.GCRA(numerus.Per(-1, time.Second), 1) }},
		{"gcra/zero period", "rate period", func() (numerus.Limiter, error) { return numerus.GCRA(numerus.Per(1, 0), 1) }},
		{"gcra/negative period", "rate period", func() (numerus.Limiter, error) { return numerus.GCRA(numerus.Every(-time.Second), 1) }},
		{"gcra/zero burst", "burst", func() (numerus.Limiter, error) { return numerus.GCRA(ok, 0) }},
		{"gcra/negative burst", "burst", func() (numerus.Limiter, error) { return numerus.GCRA(ok, -1) }},
		{"gcra/max burst", "burst", func() (numerus.Limiter, error) { return numerus.GCRA(ok, math.MaxInt64) }},
		{"gcra/burst over 292 years", "burst", func() (numerus.Limiter, error) { return numerus.GCRA(numerus.Every(200*year), 2) }},
		{"gcra/rate above int64", "rate", func() (numerus.Limiter, error) { return numerus.GCRA(numerus.Per(math.MaxInt64, 1), 1) }},
		{"gcra/interval over the range", "rate period", func() (numerus.Limiter, error) { return numerus.GCRA(numerus.Every(math.MaxInt64), 1) }},
		{"gcra/two over the range", "rate period", func() (numerus.Limiter, error) { return numerus.GCRA(numerus.Per(2, math.MaxInt64), 1) }},
		{"token/zero capacity", "capacity", func() (numerus.Limiter, error) { return numerus.TokenBucket(0, ok) }},
		{"token/zero rate", "rate tokens", func() (numerus.Limiter, error) { return numerus.TokenBucket(1, numerus.Rate{}) }},
		{"token/capacity over 292 years", "capacity", func() (numerus.Limiter, error) { return numerus.TokenBucket(300, numerus.Every(year)) }},
		{"leaky/zero capacity", "capacity", func() (numerus.Limiter, error) { return numerus.LeakyBucket(0, ok) }},
		{"leaky/zero period", "rate period", func() (numerus.Limiter, error) { return numerus.LeakyBucket(1, numerus.Per(1, 0)) }},
		{"leaky/max capacity", "capacity", func() (numerus.Limiter, error) { return numerus.LeakyBucket(math.MaxInt64, numerus.Every(1)) }},
		{"finite/zero", "size", func() (numerus.Limiter, error) { return numerus.FiniteBucket(0) }},
		{"finite/negative", "size", func() (numerus.Limiter, error) { return numerus.FiniteBucket(-5) }},
		{"fixed/zero window", "window", func() (numerus.Limiter, error) { return numerus.FixedWindow(0, 1, t0) }},
		{"fixed/zero n", "limit", func() (numerus.Limiter, error) { return numerus.FixedWindow(time.Second, 0, t0) }},
		{"fixed/start in year 1", "start", func() (numerus.Limiter, error) { return numerus.FixedWindow(time.Second, 1, year1) }},
		{"fixed/start in year 3000", "start", func() (numerus.Limiter, error) { return numerus.FixedWindow(time.Second, 1, year3000) }},
		{"sliding/negative window", "window", func() (numerus.Limiter, error) { return numerus.SlidingWindow(-time.Second, 1) }},
		{"sliding/zero n", "limit", func() (numerus.Limiter, error) { return numerus.SlidingWindow(time.Second, 0) }},
		{"buckets/zero window", "window", func() (numerus.Limiter, error) { return numerus.SlidingWindowBucketed(0, 1, 1) }},
		{"buckets/zero windows", "windows", func() (numerus.Limiter, error) { return numerus.SlidingWindowBucketed(time.Second, 0, 1) }},
		{"buckets/uneven windows", "windows", func() (numerus.Limiter, error) { return numerus.SlidingWindowBucketed(time.Second, 7, 1) }},
		{"buckets/zero n", "limit", func() (numerus.Limiter, error) { return numerus.SlidingWindowBucketed(time.Second, 2, 0) }},
		{"count/zero window", "window", func() (numerus.Limiter, error) { return numerus.SlidingWindowCount(0, 1, t0) }},
		{"count/zero n", "limit", func() (numerus.Limiter, error) { return numerus.SlidingWindowCount(time.Second, 0, t0) }},
		{"count/start in year 1", "start", func() (numerus.Limiter, error) { return numerus.SlidingWindowCount(time.Second, 1, year1) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := c.make()
			require.Nil(t, l)
			require.ErrorIs(t, err, numerus.ErrInvalidArgument)
			var pe *numerus.ParamError
			require.True(t, errors.As(err, &pe))
			require.Equal(t, c.param, pe.Param)
			require.Equal(t, "numerus: invalid "+pe.Param+": "+pe.Problem, err.Error())
			require.Panics(t, func() { numerus.Must(c.make()) })
		})
	}
}

// TestExactRange pins the exact range the package doc gives: a burst's time at the rate must be
// under about 292 years divided by the rate's count in lowest terms. It checks the doc's three
// examples at their last accepted burst and one above, and that a window's start is accepted one
// nanosecond inside either end of the range of instants but not at the end itself.
func TestExactRange(t *testing.T) {
	year := 365 * 24 * time.Hour
	cases := []struct {
		rate  numerus.Rate
		burst int64 // the largest accepted
		span  time.Duration
	}{
		{numerus.Every(time.Second), 9_223_372_036, 292 * year},
		{numerus.Per(7, 10*time.Second), 922_337_203, 41*year + 9*30*24*time.Hour}, // about 42 years
		{numerus.PerSecond(999_999_999), 9_223_372_035, 9 * time.Second},
	}
	for _, c := range cases {
		_, err := numerus.GCRA(c.rate, c.burst)
		require.NoError(t, err, "%v burst %d", c.rate, c.burst)
		_, err = numerus.GCRA(c.rate, c.burst+1)
		require.ErrorIs(t, err, numerus.ErrInvalidArgument, "%v burst %d", c.rate, c.burst+1)
		_, err = numerus.TokenBucket(c.burst+1, c.rate)
		require.ErrorIs(t, err, numerus.ErrInvalidArgument, "%v capacity %d", c.rate, c.burst+1)
		took := c.rate.Period() / time.Duration(c.rate.Tokens()) * time.Duration(c.burst)
		if c.rate.Tokens() > 1 {
			took = time.Duration(float64(c.burst) * float64(c.rate.Period()) / float64(c.rate.Tokens()))
		}
		require.GreaterOrEqual(t, took, c.span, "%v: the burst's time matches the doc", c.rate)
	}
	earliest, latest := time.Unix(0, math.MinInt64), time.Unix(0, math.MaxInt64-1) // MinInstant, MaxInstant
	for _, start := range []time.Time{earliest, latest} {
		_, err := numerus.FixedWindow(time.Hour, 1, start)
		require.ErrorIs(t, err, numerus.ErrInvalidArgument, "start %v", start)
	}
	for _, start := range []time.Time{earliest.Add(1), latest.Add(-1)} {
		_, err := numerus.FixedWindow(time.Hour, 1, start)
		require.NoError(t, err, "start %v", start)
		_, err = numerus.SlidingWindowCount(time.Hour, 1, start)
		require.NoError(t, err, "start %v", start)
	}
}
