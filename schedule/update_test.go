package schedule

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGateUpdateComposesWithTheHeldState queues three waiters on a drained 1/s GCRA, then
// composes the limiter the gate holds with a budget of two: f is given the drained limiter, not
// a fresh one, so the first two go at 1s and 2s as before, and the third, which the budget never
// admits, fails with ErrNever in its turn, at 2s.
func TestGateUpdateComposesWithTheHeldState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := NewGate(drained(t, gcra(t, numerus.PerSecond(1), 1), time.Now()))
		var r recorder
		dones := queueTakers(t.Context(), g, &r, 3)
		held := g.Limiter()
		calls := 0
		g.Update(func(l numerus.Limiter, now time.Time) numerus.Limiter {
			calls++
			assert.True(t, now.Equal(time.Now()), "now is the gate's instant: %v", now)
			assert.Same(t, held, l, "f is given the limiter the gate holds")
			return numerus.And(l, numerus.Must(numerus.FiniteBucket(2)))
		})
		require.Equal(t, 1, calls)
		require.NoError(t, <-dones[0])
		require.NoError(t, <-dones[1])
		require.ErrorIs(t, <-dones[2], ErrNever)
		assert.Equal(t, 2*time.Second, elapsed(), "told in its turn")
		assert.Equal(t, []admission{{0, time.Second}, {1, 2 * time.Second}}, r.all())
	})
}

// TestGateUpdateFailsLateWaitersAtOnce: an update whose limiter moves a waiter's turn to or past
// its deadline fails it at once with a *DeadlineError naming the new turn; the waiter behind it,
// whose deadline is further, moves up and goes at the new limiter's pace.
func TestGateUpdateFailsLateWaitersAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := NewGate(drained(t, gcra(t, numerus.PerSecond(1), 1), time.Now()))
		short, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		var r recorder
		a := takeIn(short, g, &r, 0, 1)
		b := takeIn(t.Context(), g, &r, 1, 1)
		slow := drained(t, gcra(t, numerus.Every(10*time.Second), 1), time.Now())
		g.Update(func(l numerus.Limiter, _ time.Time) numerus.Limiter { return numerus.And(l, slow) })
		var de *DeadlineError
		require.ErrorAs(t, <-a, &de)
		assert.True(t, de.At.Equal(bubbleStart.Add(10*time.Second)), "at %v", de.At)
		assert.Zero(t, elapsed(), "at once")
		require.NoError(t, <-b)
		assert.Equal(t, []admission{{1, 10 * time.Second}}, r.all(), "the next one takes its place")
	})
}

// TestGateUpdateWakesWhomItAdmits: an update that admits the head now wakes it at once, and a
// nil limiter admits nothing: the next waiter fails with ErrNever.
func TestGateUpdateWakesWhomItAdmits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := NewGate(drained(t, gcra(t, numerus.Every(time.Hour), 1), time.Now()))
		var r recorder
		a := takeIn(t.Context(), g, &r, 0, 1)
		time.Sleep(time.Second)
		g.Update(func(numerus.Limiter, time.Time) numerus.Limiter { return numerus.AlwaysAllow() })
		require.NoError(t, <-a)
		assert.Equal(t, []admission{{0, time.Second}}, r.all(), "woken by the update, not by the hour")

		g.Update(func(numerus.Limiter, time.Time) numerus.Limiter {
			return drained(t, gcra(t, numerus.Every(time.Hour), 1), time.Now())
		})
		b := takeIn(t.Context(), g, &r, 1, 1)
		g.Update(func(numerus.Limiter, time.Time) numerus.Limiter { return nil })
		require.ErrorIs(t, <-b, ErrNever)
		assert.Equal(t, "deny", g.Limiter().String())
	})
}
