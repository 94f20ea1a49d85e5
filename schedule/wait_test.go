package schedule

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/clock"
)

func TestWaitSleepsExactlyUntilAdmitted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := gcra(t, numerus.PerSecond(4), 2)
		want := []time.Duration{0, 0, 250 * time.Millisecond, 500 * time.Millisecond, 750 * time.Millisecond}
		for i, w := range want {
			next, at, err := Wait(t.Context(), l, 1)
			require.NoError(t, err, "wait %d", i)
			assert.Equal(t, w, elapsed(), "wait %d", i)
			assert.True(t, at.Equal(time.Now()), "wait %d charged at %v", i, at)
			l = next
		}
		assert.Equal(t, int64(0), l.Status(time.Now()).Remaining)
	})
}

func TestWaitNeverReturnsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := gcra(t, numerus.PerSecond(4), 2)
		got, at, err := Wait(t.Context(), l, 3)
		require.ErrorIs(t, err, ErrNever)
		assert.True(t, at.IsZero())
		assert.EqualError(t, err, "schedule: never admitted: cost 3 under gcra 4/s burst 2")
		assert.True(t, got == l, "the limiter is returned unchanged")
		assert.Zero(t, elapsed())

		_, _, err = Wait(t.Context(), numerus.AlwaysDeny(), 1)
		require.ErrorIs(t, err, ErrNever)
	})
}

// stuckLimiter is a faulty limiter: it refuses everything and answers the instant asked.
type stuckLimiter struct{ calls *int }

func (s stuckLimiter) Debit(at time.Time) (numerus.Limiter, numerus.NextDebitable, bool) {
	return s.DebitN(at, 1)
}

func (s stuckLimiter) DebitN(at time.Time, _ int64) (numerus.Limiter, numerus.NextDebitable, bool) {
	*s.calls++
	return s, numerus.DebitableFrom(at), false
}

func (stuckLimiter) Status(time.Time) numerus.Status { return numerus.Status{Limit: 1} }

func (stuckLimiter) String() string { return "stuck" }

// TestWaitFaultyLimiterFailsAtOnce checks that Wait does not spin on a limiter that refuses with
// the instant asked: it answers ErrNever at its first refusal, as Gate.Take does after its search.
func TestWaitFaultyLimiterFailsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		calls := 0
		_, _, err := Wait(t.Context(), stuckLimiter{&calls}, 1)
		require.ErrorIs(t, err, ErrNever)
		require.Equal(t, 1, calls)
		require.Zero(t, elapsed())
	})
}

func TestWaitFailsFastWhenAdmittedOnlyPastTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := drained(t, gcra(t, numerus.PerSecond(1), 1), time.Now())
		admit := bubbleStart.Add(time.Second)
		for _, deadline := range []time.Duration{500 * time.Millisecond, time.Second} {
			ctx, cancel := context.WithTimeout(t.Context(), deadline)
			got, _, err := Wait(ctx, l, 1)
			cancel()
			require.ErrorIs(t, err, context.DeadlineExceeded, "deadline %v", deadline)
			var de *DeadlineError
			require.ErrorAs(t, err, &de)
			assert.True(t, de.At.Equal(admit), "at %v", de.At)
			assert.True(t, de.Deadline.Equal(bubbleStart.Add(deadline)), "deadline %v", de.Deadline)
			assert.True(t, got == l)
			assert.Zero(t, elapsed(), "it did not sleep")
		}

		ctx, cancel := context.WithTimeout(t.Context(), time.Second+time.Nanosecond)
		defer cancel()
		_, _, err := Wait(ctx, l, 1)
		require.NoError(t, err, "admitted 1ns before the deadline")
		assert.Equal(t, time.Second, elapsed())
	})
}

func TestWaitCancelledConsumesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := drained(t, gcra(t, numerus.PerSecond(1), 1), time.Now())
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(300*time.Millisecond, cancel)
		got, _, err := Wait(ctx, l, 1)
		require.ErrorIs(t, err, context.Canceled)
		assert.True(t, got == l, "the limiter is returned unchanged")
		assert.Equal(t, 300*time.Millisecond, elapsed())

		// Already done: nothing is taken even though the limiter would admit at once.
		fresh := gcra(t, numerus.PerSecond(1), 1)
		got, _, err = Wait(ctx, fresh, 1)
		require.ErrorIs(t, err, context.Canceled)
		assert.True(t, got == fresh)
	})
}

func TestWaitPanicsOnCostBelowOne(t *testing.T) {
	assert.PanicsWithValue(t, "schedule: cost 0 is below 1", func() {
		_, _, _ = Wait(context.Background(), numerus.AlwaysAllow(), 0)
	})
}

// The clock seam: wait reads the clock it is given and sleeps on its timers.
func TestWaitOnTheFakeClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := clock.NewFake(t0)
		l := drained(t, gcra(t, numerus.PerSecond(10), 5), t0)
		type result struct {
			l   numerus.Limiter
			at  time.Time
			err error
		}
		done := make(chan result)
		go func() {
			next, at, err := wait(t.Context(), f, l, 2)
			done <- result{next, at, err}
		}()
		f.BlockUntil(1)
		at, _ := f.Next()
		assert.True(t, at.Equal(t0.Add(200*time.Millisecond)), "sleeps until %v", at)
		f.Advance(199 * time.Millisecond)
		synctest.Wait()
		select {
		case <-done:
			t.Fatal("admitted early")
		default:
		}
		f.Advance(time.Millisecond)
		r := <-done
		require.NoError(t, r.err)
		assert.True(t, r.at.Equal(t0.Add(200*time.Millisecond)), "charged at %v", r.at)
		_, _, ok := r.l.Debit(t0.Add(200 * time.Millisecond))
		assert.False(t, ok, "both tokens were taken")
		assert.Equal(t, 0, f.Timers(), "the timer is released")
	})
}

func TestDeadlineErrorMessage(t *testing.T) {
	err := error(&DeadlineError{At: t0.Add(time.Second), Deadline: t0})
	assert.EqualError(t, err, "schedule: admission at 2026-01-01T00:00:01Z is not before the deadline 2026-01-01T00:00:00Z")
	assert.True(t, errors.Is(err, context.DeadlineExceeded))
}

// TestWaitLateWakeUpChargesTheLateInstant: Waits whose timers fire 10ms late debit at the
// instant they wake, not at the one they slept for, so each admission is the policy's interval
// after the last charge: 110, 220, 330ms and on. Wait returns the instant it charged.
func TestWaitLateWakeUpChargesTheLateInstant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := clock.NewFake(t0)
		clk := lateClock{f, 10 * time.Millisecond}
		type charge struct{ at, now time.Time }
		done := make(chan charge, 5)
		go func() {
			l := drained(t, gcra(t, numerus.PerSecond(10), 1), t0)
			for range 5 {
				next, at, err := wait(t.Context(), clk, l, 1)
				if !assert.NoError(t, err) {
					return
				}
				l = next
				done <- charge{at, f.Now()}
			}
		}()
		for synctest.Wait(); len(done) < 5; synctest.Wait() {
			at, ok := f.Next()
			require.True(t, ok, "a wait is asleep")
			f.Set(at)
		}
		for i := range 5 {
			c := <-done
			want := t0.Add(time.Duration(i+1) * 110 * time.Millisecond)
			assert.True(t, c.at.Equal(want), "admission %d charged at %v, want %v", i, c.at.Sub(t0), want.Sub(t0))
			assert.True(t, c.at.Equal(c.now), "admission %d returned at %v", i, c.now.Sub(t0))
		}
	})
}

// TestWaitLooseLimiterAtItsWakeUp: a Wait woken late, on a limiter not tight at its answers,
// asks once, at the instant it wakes, and is admitted there, rather than failing or walking the
// past.
func TestWaitLooseLimiterAtItsWakeUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := clock.NewFake(t0)
		l := newShifty(t0.Add(100 * time.Millisecond))
		done := make(chan error, 1)
		go func() {
			_, _, err := wait(t.Context(), lateClock{f, 10 * time.Millisecond}, l, 1)
			done <- err
		}()
		synctest.Wait()
		at, ok := f.Next()
		require.True(t, ok, "asleep")
		require.True(t, at.Equal(t0.Add(110*time.Millisecond)), "its timer fires 10ms late: %v", at)
		*l.open, *l.lag, *l.calls = t0.Add(100*time.Millisecond+3*time.Nanosecond), time.Nanosecond, 0
		f.Set(at)
		synctest.Wait()
		select {
		case err := <-done:
			require.NoError(t, err)
		default:
			t.Fatal("not admitted at its wake-up")
		}
		assert.True(t, l.admitted.Equal(at), "admitted at now: %v", *l.admitted)
		assert.Equal(t, 1, *l.calls, "one debit after the wake-up")
	})
}
