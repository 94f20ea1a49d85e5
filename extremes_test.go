package numerus_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/numerustest"
)

// tight checks the answer of a refused DebitN(at, cost) on l: Never, or an instant after at at
// which the debit is admitted while it is refused 1ns before.
func tight(t *testing.T, l numerus.Limiter, at time.Time, cost int64, from numerus.NextDebitable) {
	t.Helper()
	f, ok := from.Time()
	if !ok {
		return
	}
	require.True(t, f.After(at), "%s: DebitN(%v, %d) answered %v, not after it", l, at, cost, from)
	_, _, ok = l.DebitN(f, cost)
	require.True(t, ok, "%s: DebitN(%v, %d) answered %v, refused there", l, at, cost, from)
	_, _, ok = l.DebitN(f.Add(-1), cost)
	require.False(t, ok, "%s: DebitN(%v, %d) answered %v, admitted 1ns before", l, at, cost, from)
}

// TestExtremeRates checks rates at the ends of what the exact arithmetic holds (PITFALLS 4): one
// per 200 years, one a day, 10^9/s (1ns apart) and 2·10^9/s (half a nanosecond apart, exact).
func TestExtremeRates(t *testing.T) {
	for _, c := range []struct {
		rate  numerus.Rate
		burst int64
		full  time.Duration // after the burst, until full again
		wait  time.Duration // after the burst, until the next token
	}{
		{numerus.Every(200 * year), 1, 200 * year, 200 * year},
		{numerus.Per(1, 24*time.Hour), 5, 5 * 24 * time.Hour, 24 * time.Hour},
		{numerus.PerSecond(1_000_000_000), 1, 1, 1},
		{numerus.PerSecond(2_000_000_000), 2, 1, 1}, // 2 tokens every nanosecond
		{numerus.PerSecond(2_000_000_000), 3, 2, 1}, // full after 1.5ns, one token after 0.5ns
	} {
		for _, l := range bucketsOf(c.rate, c.burst) {
			t.Run(l.String(), func(t *testing.T) {
				l = runSteps(t, l, []step{{at: 0, cost: c.burst, ok: true, left: 0, full: c.full}})
				_, from, ok := l.Debit(t0)
				require.False(t, ok)
				require.Equal(t, c.wait, offset(from))
				tight(t, l, t0, 1, from)
			})
		}
	}
}

func bucketsOf(rate numerus.Rate, burst int64) []numerus.Limiter {
	return []numerus.Limiter{numerus.Must(numerus.GCRA(rate, burst)),
		numerus.Must(numerus.TokenBucket(burst, rate)), numerus.Must(numerus.LeakyBucket(burst, rate))}
}

// TestTwoPerNanosecond checks that 2·10^9/s with a burst of 2 admits exactly 2000 debits in a
// microsecond: the half-nanosecond interval is neither truncated to 0 nor rounded to 1.
func TestTwoPerNanosecond(t *testing.T) {
	for _, l := range bucketsOf(numerus.PerSecond(2_000_000_000), 2) {
		n := 0
		for at := range numerus.Admissions(l, t0, 1) {
			if !at.Before(t0.Add(time.Microsecond)) {
				break
			}
			n++
		}
		require.Equal(t, 2000, n, l.String())
	}
}

// TestHugeSizes checks sizes up to math.MaxInt64 where a policy allows them: the whole size at
// once, then nothing more, with no overflow into admitting more; answers past 2262 are Never.
func TestHugeSizes(t *testing.T) {
	const big = math.MaxInt64
	const huge = math.MaxInt64 - 2 // the most a burst of 1/ns can hold exactly
	for _, c := range []struct {
		l    numerus.Limiter
		size int64
	}{
		{numerus.Must(numerus.FiniteBucket(big)), big},
		{numerus.Must(numerus.FixedWindow(time.Hour, big, t0)), big},
		{numerus.Must(numerus.SlidingWindow(time.Hour, big)), big},
		{numerus.Must(numerus.SlidingWindowBucketed(time.Hour, 4, big)), big},
		{numerus.Must(numerus.SlidingWindowCount(time.Hour, big, t0)), big},
		{numerus.Must(numerus.GCRA(numerus.Every(1), huge)), huge},
		{numerus.Must(numerus.TokenBucket(huge, numerus.Every(1))), huge},
		{numerus.Must(numerus.LeakyBucket(huge, numerus.Every(1))), huge},
	} {
		t.Run(c.l.String(), func(t *testing.T) {
			l := c.l
			for _, cost := range []int64{c.size - 1, 1} {
				next, _, ok := l.DebitN(t0, cost)
				require.True(t, ok)
				l = next
			}
			require.Equal(t, int64(0), l.Status(t0).Remaining)
			for _, cost := range []int64{1, 2, c.size - 1, c.size} {
				_, from, ok := l.DebitN(t0, cost)
				require.False(t, ok, "cost %d after the whole size", cost)
				tight(t, l, t0, cost, from)
			}
		})
	}
}

// TestCenturies checks windows and intervals of centuries: answers past 2262 are Never, not an
// instant at which the debit is refused again.
func TestCenturies(t *testing.T) {
	for _, l := range []numerus.Limiter{
		numerus.Must(numerus.FixedWindow(200*year, 1, t0)),
		numerus.Must(numerus.FixedWindow(290*year, 1, t0)),
		numerus.Must(numerus.SlidingWindow(200*year, 1)),
		numerus.Must(numerus.SlidingWindow(290*year, 1)),
		numerus.Must(numerus.SlidingWindowBucketed(290*year, 2, 1)),
		numerus.Must(numerus.SlidingWindowCount(200*year, 1, t0)),
		numerus.Must(numerus.SlidingWindowCount(100*year, 1, t0)),
		numerus.Must(numerus.GCRA(numerus.Every(200*year), 1)),
		numerus.Must(numerus.GCRA(numerus.Every(290*year), 1)),
		numerus.Must(numerus.TokenBucket(1, numerus.Every(290*year))),
		numerus.Must(numerus.LeakyBucket(1, numerus.Every(290*year))),
	} {
		t.Run(l.String(), func(t *testing.T) {
			for _, at := range []time.Time{t0, t0.Add(100 * year), t0.Add(200 * year)} {
				next, _, ok := l.Debit(at)
				if !ok {
					continue
				}
				_, from, ok := next.Debit(at)
				require.False(t, ok)
				tight(t, next, at, 1, from)
				s := next.Status(at)
				require.True(t, s.Remaining >= 0 && s.Remaining <= s.Limit)
			}
		})
	}
}

// edges are instants where time.Time and int64 nanoseconds part: year 1 (before the earliest
// instant, 1677-09-21), just after the earliest, the Unix epoch (where signs change), just before
// the latest (2262-04-11) and year 3000, after it.
var edges = []time.Time{
	time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
	time.Unix(0, math.MinInt64).Add(time.Hour),
	time.Unix(0, 0).UTC(),
	time.Unix(0, math.MaxInt64).Add(-time.Hour),
	time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC),
}

// TestEdgesOfTime runs the conformance kit on every built-in limiter with timelines that start an
// hour before each edge and step by hours: the limiters clamp instants to 1677–2262 and then
// answer Never rather than an instant they cannot reach; nothing wraps or panics.
func TestEdgesOfTime(t *testing.T) {
	for _, k := range builtins() {
		for _, edge := range edges {
			t.Run(k.name+"/"+edge.Format("2006-01-02T15"), func(t *testing.T) {
				t.Parallel()
				opts := append(k.opts[:len(k.opts):len(k.opts)], numerustest.WithStart(edge.Add(-time.Hour)),
					numerustest.WithSpan(time.Hour))
				numerustest.Run(t, k.new, opts...)
			})
		}
	}
}

// TestEdgeBound checks that at the clamped ends of time, where every instant is the same one, no
// limiter admits more than its capacity: a debit that would need a later instant is Never.
func TestEdgeBound(t *testing.T) {
	for _, edge := range edges {
		for _, k := range builtins() {
			l, n := k.new(), int64(0)
			limit := l.Status(edge).Limit
			for range 20 {
				next, from, ok := l.Debit(edge)
				if !ok {
					tight(t, l, edge, 1, from)
					continue
				}
				l, n = next, n+1
			}
			require.LessOrEqual(t, n, min(limit, 20), "%s at %v", l, edge)
		}
	}
}

// TestCostBelowOne checks that every limiter panics on a cost below 1, a programmer error.
func TestCostBelowOne(t *testing.T) {
	for _, k := range append(builtins(), combined()...) {
		l := k.new()
		for _, cost := range []int64{0, -1, math.MinInt64} {
			require.Panics(t, func() { l.DebitN(t0, cost) }, "%s: cost %d", l, cost)
		}
	}
}

// TestAncientInstant checks an instant so early that its Unix seconds wrap around int64 (about
// 292 billion years BC, as time.Unix(math.MinInt64, 0) less a nanosecond):
// it is the earliest instant, never the latest. Read as the latest, it refilled an exhausted
// limiter, admitted more than its policy, and left it Never for every later instant.
func TestAncientInstant(t *testing.T) {
	ancient := []time.Time{time.Unix(math.MinInt64, 0).Add(-1), time.Unix(math.MinInt64, 0).Add(-time.Hour)}
	for _, k := range builtins() {
		l := k.new()
		for range 8 {
			if next, _, ok := l.Debit(t0); ok {
				l = next
			}
		}
		for _, at := range ancient {
			_, want, wantOK := l.Debit(t0)
			_, from, ok := l.Debit(at)
			require.Equal(t, wantOK, ok, "%s at %v", l, at)
			require.True(t, from.Equal(want) || ok, "%s at %v: answered %v, at t0 %v", l, at, from, want)
			require.Equal(t, l.Status(t0).Remaining, l.Status(at).Remaining, "%s at %v", l, at)
		}
	}
}
