package keyed_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/memory"
	"github.com/numerus-closus/numerus/typed"
)

func TestPolicies(t *testing.T) {
	assert.Equal(t, "sliding 10/s", numerus.Must(typed.Parse("10/s")).String())
	assert.Equal(t, "sliding 60/m", numerus.Must(typed.Parse("60/m")).String())
	assert.Equal(t, "sliding 3600/h", numerus.Must(typed.Parse("3600/h")).String())
	assert.Equal(t, "gcra 100/s burst 200", numerus.Must(typed.Parse("gcra 100/s burst 200")).String())
	// 100/s sustained, bursting to 200: 200 at once after a quiet spell, then 100 a second.
	now := t0
	l, err := keyed.New(memory.New(), numerus.Must(typed.Parse("gcra 100/s burst 200")), keyed.StringKey{}, keyed.WithClock(func() time.Time { return now }))
	require.NoError(t, err)
	ctx := context.Background()
	count := func() (n int) {
		for {
			d, err := l.TryAcquire(ctx, "s", 1)
			require.NoError(t, err)
			if !d.Allowed {
				return n
			}
			n++
		}
	}
	assert.Equal(t, 200, count())
	now = now.Add(time.Second)
	assert.Equal(t, 100, count())
	now = now.Add(10 * time.Second)
	assert.Equal(t, 200, count())
}

// mostInAnySpan returns the most of the instants at (nanoseconds, sorted) that lie in one
// half-open span [t, t+span): a second index runs ahead of the first to the first instant
// beyond its span.
func mostInAnySpan(at []int64, span time.Duration) int {
	most, j := 0, 0
	for i := range at {
		for j < len(at) && at[j]-at[i] < int64(span) {
			j++
		}
		most = max(most, j-i)
	}
	return most
}

// TestPerPeriodAdmitsAtMostN: the notation's bare rates, n/s, n/m and n/h, admit at most n of a
// subject's checks in any span of their period (half-open), all n at once, on any timeline of
// one-token checks, and keep no subject from another's tokens.
func TestPerPeriodAdmitsAtMostN(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.Int64Range(1, 30).Draw(t, "n")
		per := rapid.SampledFrom([]time.Duration{time.Second, time.Minute, time.Hour}).Draw(t, "period")
		spec := typed.Spec{Algo: typed.AlgoSliding, Count: n, Period: per} // "n/s", "n/m", "n/h"
		now := t0
		l, err := keyed.New(memory.New(), spec, keyed.StringKey{}, keyed.WithClock(func() time.Time { return now }))
		require.NoError(t, err)
		interval := per / time.Duration(n)
		gaps := rapid.SliceOfN(rapid.OneOf(rapid.Just(time.Duration(0)), rapid.Just(time.Nanosecond),
			rapid.Just(interval-1), rapid.Just(interval), rapid.Just(interval+1),
			rapid.Custom(func(t *rapid.T) time.Duration {
				return time.Duration(rapid.Int64Range(0, int64(per)).Draw(t, "gap"))
			})), 1, int(3*n)+20).Draw(t, "gaps")
		admitted := map[string][]int64{}
		for i, g := range gaps {
			now = now.Add(g)
			subject := rapid.SampledFrom([]string{"a", "b"}).Draw(t, "subject"+strconv.Itoa(i))
			d, err := l.TryAcquire(context.Background(), subject, 1)
			require.NoError(t, err)
			if d.Allowed {
				admitted[subject] = append(admitted[subject], now.UnixNano())
			}
		}
		for subject, at := range admitted {
			require.LessOrEqual(t, mostInAnySpan(at, per), int(n), "%s, subject %s", spec, subject)
		}
		now = now.Add(per) // full again: all n at once
		for i := range n {
			d, err := l.TryAcquire(context.Background(), "a", 1)
			require.NoError(t, err)
			require.True(t, d.Allowed, "%s: check %d of %d at once", spec, i+1, n)
		}
	})
}
