package typed

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// These tests hold the notation to what its text reads as (pitfall 32): "100/min" admits at most
// 100 in any minute. They count admissions with mostInAnySpan, a plain counter that shares
// nothing with the limiters it checks.

// mostInAnySpan returns the most instants of at that lie in one half-open span [t, t+span): the
// instants sorted, a second index runs ahead of the first to the first instant beyond its span.
func mostInAnySpan(at []time.Time, span time.Duration) int {
	ns := make([]int64, len(at))
	for i, t := range at {
		ns[i] = t.UnixNano()
	}
	slices.Sort(ns)
	most, j := 0, 0
	for i := range ns {
		for j < len(ns) && ns[j]-ns[i] < int64(span) {
			j++
		}
		most = max(most, j-i)
	}
	return most
}

func TestMostInAnySpan(t *testing.T) {
	at := func(ms ...int) []time.Time {
		ts := make([]time.Time, len(ms))
		for i, m := range ms {
			ts[i] = t0.Add(time.Duration(m) * time.Millisecond)
		}
		return ts
	}
	assert.Equal(t, 0, mostInAnySpan(nil, time.Second))
	assert.Equal(t, 1, mostInAnySpan(at(0, 1000, 2000), time.Second), "the span is half-open")
	assert.Equal(t, 2, mostInAnySpan(at(0, 999, 1999), time.Second))
	assert.Equal(t, 4, mostInAnySpan(at(5, 5, 1000, 5), time.Second), "unsorted, repeated")
	assert.Equal(t, 3, mostInAnySpan(at(5, 5, 1005, 5), time.Second))
}

// unitSpellings are the words the notation takes for each unit, in the notation's lower case and
// in capitals, with the unit's length.
var unitSpellings = map[string]time.Duration{
	"ns": time.Nanosecond, "us": time.Microsecond, "µs": time.Microsecond, "μs": time.Microsecond,
	"ms": time.Millisecond, "s": time.Second, "sec": time.Second, "second": time.Second,
	"seconds": time.Second, "m": time.Minute, "min": time.Minute, "minute": time.Minute,
	"minutes": time.Minute, "h": time.Hour, "hour": time.Hour, "hours": time.Hour,
	"d": 24 * time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour,
	"S": time.Second, "MIN": time.Minute, "Minute": time.Minute, "Hours": time.Hour, "Days": 24 * time.Hour,
}

// genRate draws a rate as the notation may spell it, "100/min", "100/60s" or "100 / 1 Minute",
// and returns its text, count and period.
func genRate(t *rapid.T) (string, int64, time.Duration) {
	n := rapid.Int64Range(1, 40).Draw(t, "n")
	unit := rapid.SampledFrom(slices.Sorted(mapKeys(unitSpellings))).Draw(t, "unit")
	period, mult := unitSpellings[unit], ""
	if rapid.Bool().Draw(t, "multiplied") {
		m := rapid.Int64Range(1, 100).Draw(t, "multiplier")
		period, mult = time.Duration(m)*period, fmt.Sprint(m)
	}
	sep := rapid.SampledFrom([]string{"/", " / ", "/ "}).Draw(t, "slash")
	return fmt.Sprintf("%d%s%s%s", n, sep, mult, unit), n, period
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// genInstants draws sorted instants from t0 whose gaps are around the rate's interval: none, one
// nanosecond, a little less or more than period/n, or anything up to the period.
func genInstants(t *rapid.T, n int64, period time.Duration) []time.Time {
	interval := period / time.Duration(n)
	gaps := rapid.SliceOfN(rapid.OneOf(
		rapid.Just(time.Duration(0)), rapid.Just(time.Nanosecond),
		rapid.Just(max(interval-1, 0)), rapid.Just(interval), rapid.Just(interval+1),
		rapid.Custom(func(t *rapid.T) time.Duration {
			return time.Duration(rapid.Int64Range(0, int64(period)).Draw(t, "gap"))
		}),
	), 1, int(4*n)+20).Draw(t, "gaps")
	at, ts := t0, make([]time.Time, len(gaps))
	for i, g := range gaps {
		at = at.Add(g)
		ts[i] = at
	}
	return ts
}

// admitted debits a fresh state of p one token at each instant and returns those it admitted at.
func admitted(p Policy, at []time.Time) []time.Time {
	var got []time.Time
	s := p.Fresh()
	for _, t := range at {
		var ok bool
		if s, _, ok = p.DebitN(s, t, 1); ok {
			got = append(got, t)
		}
	}
	return got
}

// TestBareRateAdmitsAtMostItsCount: a bare rate "N/period", however it is spelt, admits at most N
// in any span of its period, on any timeline.
func TestBareRateAdmitsAtMostItsCount(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text, n, period := genRate(t)
		p := MustCompile(text)
		got := admitted(p, genInstants(t, n, period))
		require.LessOrEqual(t, mostInAnySpan(got, period), int(n), "%s (%s)", text, p)
	})
}

// TestBurstDefaultAdmitsAtMostTheCount: "gcra N/period", "token N/period" and "leaky N/period",
// with no burst, admit at most N in any span of their period, on any timeline.
func TestBurstDefaultAdmitsAtMostTheCount(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		algo := rapid.SampledFrom([]string{"gcra", "token", "leaky", "GCRA", "Token"}).Draw(t, "algo")
		rate, n, period := genRate(t)
		text := algo + " " + rate
		p := MustCompile(text)
		got := admitted(p, genInstants(t, n, period))
		require.LessOrEqual(t, mostInAnySpan(got, period), int(n), "%s (%s)", text, p)
	})
}

// TestBurstAdmitsBurstPlusCountLessOne: a rate of N per period with a burst b (bare, gcra, token
// or leaky) admits at most b+N-1 in any span of its period on any timeline, and exactly that many
// to a caller who debits whenever it is told it may: b at once, then one every period/N. (Exactly
// when period/N is a whole number of nanoseconds: instants are, so at another rate a caller waits
// a fraction of a nanosecond longer for some tokens, and may fit one token fewer in a span.)
func TestBurstAdmitsBurstPlusCountLessOne(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		algo := rapid.SampledFrom([]string{"", "gcra ", "token ", "leaky "}).Draw(t, "algo")
		rate, n, period := genRate(t)
		b := rapid.Int64Range(1, 40).Draw(t, "burst")
		text := fmt.Sprintf("%s%s burst %d", algo, rate, b)
		p := MustCompile(text)
		bound := int(b + n - 1)
		got := admitted(p, genInstants(t, n, period))
		require.LessOrEqual(t, mostInAnySpan(got, period), bound, "%s (%s)", text, p)

		greedy, s, at := []time.Time(nil), p.Fresh(), t0
		for len(greedy) < 3*bound {
			next, from, ok := p.DebitN(s, at, 1)
			if !ok {
				var finite bool
				at, finite = from.Time()
				require.True(t, finite, "%s refuses one token for ever", text)
				continue
			}
			s, greedy = next, append(greedy, at)
		}
		most := mostInAnySpan(greedy, period)
		if period%time.Duration(n) == 0 {
			require.Equal(t, bound, most, "%s (%s), debited when told", text, p)
		}
		require.LessOrEqual(t, most, bound, "%s (%s), debited when told", text, p)
	})
}

// TestIssueTexts: the texts of issue 27, debited every 10ms for one minute.
func TestIssueTexts(t *testing.T) {
	every10ms := make([]time.Time, 6000)
	for i := range every10ms {
		every10ms[i] = t0.Add(time.Duration(i) * 10 * time.Millisecond)
	}
	inFirst := func(got []time.Time, d time.Duration) int {
		return slices.IndexFunc(append(got, t0.Add(time.Hour)), func(at time.Time) bool { return !at.Before(t0.Add(d)) })
	}
	for _, c := range []struct {
		text                string
		second, minute, any int // in the first second, in the minute, and at most in any minute
	}{
		{"100/min", 100, 100, 100},
		{"100/minute", 100, 100, 100},
		{"100/1m", 100, 100, 100},
		{"100/60s", 100, 100, 100},
		{"5/s & 100/min", 5, 100, 100},
		{"5/second;100/minute", 5, 100, 100},
		{"10/second;100/minute", 10, 100, 100},
		{"gcra 100/min", 2, 100, 100},            // at 0 and 600ms
		{"gcra 5/s & gcra 100/min", 2, 100, 100}, // at 0 and 600ms: one every 600ms
	} {
		p := MustCompile(c.text)
		got := admitted(p, every10ms)
		assert.Equal(t, c.second, inFirst(got, time.Second), "%s: in the first second", c.text)
		assert.Equal(t, c.minute, len(got), "%s: in the minute", c.text)
		assert.LessOrEqual(t, mostInAnySpan(got, time.Minute), c.any, c.text)
	}
	assert.Equal(t, "sliding 5/s & sliding 100/m", MustCompile("5/s & 100/min").String())
	assert.True(t, strings.HasPrefix(MustCompile("10/s burst 20").String(), "gcra "), "a burst makes a GCRA")
}
