package schedule

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/clock"
	"github.com/numerus-closus/numerus/internal/limits"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Wake-ups that come late, and woken waiters whose goroutines run late: the gate charges each
// waiter at the instant its own goroutine runs, and counts those behind it from there. The
// bubble's timers are never late, so these tests make them late with lateReal, or play a
// waiter's goroutine themselves (enqueue, run) to hold it between its wake-up and its run.

// lateQueue returns a gate of 10/s, burst 1, drained at t0 and reading clk, and n waiters queued
// for one token each, whose turns are 100ms apart from t0+100ms.
func lateQueue(t *testing.T, clk clock.Clock, n int) (*Gate, []*waiter) {
	g := newGate(drained(t, gcra(t, numerus.PerSecond(10), 1), t0), clk)
	ws := make([]*waiter, n)
	for i := range ws {
		var err error
		_, ws[i], err = g.enqueue(1, time.Time{})
		require.NoError(t, err)
	}
	return g, ws
}

// armed reports whether the gate's timer is armed.
func armed(g *Gate) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.timer != nil
}

// TestGateLateWakeUpChargesTheLateInstant: five waiters on 10/s, burst 1, whose every wake-up
// comes late by late. Each is charged at its late wake-up, and the next is counted from there, so
// no two callers go closer together than the policy's 100ms: lateness costs throughput, never
// quota. They go in order, and the forecast made before is the one for wake-ups on time.
func TestGateLateWakeUpChargesTheLateInstant(t *testing.T) {
	for _, late := range []time.Duration{0, 1, 10 * time.Millisecond, 250 * time.Millisecond} {
		t.Run("late="+late.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				policy := gcra(t, numerus.PerSecond(10), 1)
				g := newGate(drained(t, policy, time.Now()), lateReal{late: late})
				var r recorder
				dones := queueTakers(t.Context(), g, &r, 5)
				from, _ := g.TryTake(1)
				require.True(t, from.Equal(numerus.DebitableFrom(bubbleStart.Add(600*time.Millisecond))), "forecast %v", from)
				for _, d := range dones {
					require.NoError(t, <-d)
				}
				var want []admission
				for who := range 5 {
					want = append(want, admission{who, time.Duration(who+1) * (100*time.Millisecond + late)})
				}
				require.Equal(t, want, r.all())
				l := drained(t, policy, bubbleStart)
				for _, a := range r.all() {
					var ok bool
					l, _, ok = l.Debit(bubbleStart.Add(a.at))
					require.True(t, ok, "the policy admits %v", a)
				}
			})
		})
	}
}

// TestGateHeadThatLeavesWhileWokenHandsOnFromNow: A's timer wakes it at its turn (100ms), but its
// goroutine does not run; nobody passes it, and no timer is armed. When it leaves at 140ms, taking
// nothing, B goes at once, charged at 140ms, and C a turn after that: those behind count from the
// instant A left, and the forecast moves up by A's turn.
func TestGateHeadThatLeavesWhileWokenHandsOnFromNow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := NewGate(drained(t, gcra(t, numerus.PerSecond(10), 1), time.Now()))
		_, a, err := g.enqueue(1, time.Time{}) // A's goroutine is the test's, which holds it
		require.NoError(t, err)
		var r recorder
		b := takeIn(t.Context(), g, &r, 1, 1)
		c := takeIn(t.Context(), g, &r, 2, 1)
		time.Sleep(140 * time.Millisecond)
		require.True(t, isWoken(a), "woken at its turn")
		require.False(t, armed(g), "no timer while the head is woken")
		require.Empty(t, r.all(), "nobody passed A")
		from, _ := g.TryTake(1)
		require.True(t, from.Equal(numerus.DebitableFrom(bubbleStart.Add(440*time.Millisecond))), "A, B, C from now: %v", from)

		require.ErrorIs(t, g.cancel(a, context.Canceled), context.Canceled)
		from, _ = g.TryTake(1)
		require.True(t, from.Equal(numerus.DebitableFrom(bubbleStart.Add(340*time.Millisecond))), "B, C from now: %v", from)
		require.NoError(t, <-b)
		require.NoError(t, <-c)
		assert.Equal(t, []admission{{1, 140 * time.Millisecond}, {2, 240 * time.Millisecond}}, r.all())
	})
}

// TestGatePauseBeforeALateWakeUp: A's turn (100ms) has passed and its timer, 30ms late, has not
// fired when a pause of 200ms lands at 110ms. A goes at the pause's end as its timer wakes it
// (310ms, and 30ms late), B a turn after A's charge, as late.
func TestGatePauseBeforeALateWakeUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate(drained(t, gcra(t, numerus.PerSecond(10), 1), time.Now()), lateReal{late: 30 * time.Millisecond})
		var r recorder
		a := takeIn(t.Context(), g, &r, 0, 1)
		b := takeIn(t.Context(), g, &r, 1, 1)
		time.Sleep(110 * time.Millisecond)
		g.RetryAfter(200 * time.Millisecond)
		require.NoError(t, <-a)
		require.NoError(t, <-b)
		assert.Equal(t, []admission{{0, 340 * time.Millisecond}, {1, 470 * time.Millisecond}}, r.all())
	})
}

// TestGatePauseAfterAWakeUpBeforeItsRun: A is woken at 130ms (its timer 30ms late), and a pause
// until 190ms lands before its goroutine runs at 150ms. A is refused then, keeps its place (B,
// behind it, does not pass), and waits again: its timer wakes it at 220ms (the pause's end, 30ms
// late), when it is charged; B goes a turn and a late wake-up after.
func TestGatePauseAfterAWakeUpBeforeItsRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGate(drained(t, gcra(t, numerus.PerSecond(10), 1), time.Now()), lateReal{late: 30 * time.Millisecond})
		_, a, err := g.enqueue(1, time.Time{})
		require.NoError(t, err)
		var r recorder
		b := takeIn(t.Context(), g, &r, 1, 1)
		time.Sleep(140 * time.Millisecond)
		require.True(t, isWoken(a))
		g.RetryAfter(50 * time.Millisecond)
		time.Sleep(10 * time.Millisecond)
		got := run(g, a)
		require.Equal(t, claimed{woken: true}, got, "refused during the pause, and waiting again")
		require.Equal(t, 2, queued(g), "in its place")
		time.Sleep(70 * time.Millisecond)
		synctest.Wait() // the timer that fires at this instant too
		runTaken(t, g, a, time.Now())
		require.Equal(t, 220*time.Millisecond, elapsed())
		require.NoError(t, <-b)
		assert.Equal(t, []admission{{1, 350 * time.Millisecond}}, r.all())
	})
}

// TestGateHeadRefusedAtItsWakeUpKeepsItsPlace: a limiter not tight at its answers admits A and B
// at 100ms when they queue, then refuses there, answering 150ms. A, woken at 100ms, is refused,
// and the timer is armed again for it: B does not pass it, and both go at 150ms.
func TestGateHeadRefusedAtItsWakeUpKeepsItsPlace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newShifty(bubbleStart.Add(100 * time.Millisecond))
		g := NewGate(l)
		var r recorder
		a := takeIn(t.Context(), g, &r, 0, 1)
		b := takeIn(t.Context(), g, &r, 1, 1)
		g.mu.Lock()
		*l.open = bubbleStart.Add(150 * time.Millisecond)
		g.mu.Unlock()
		time.Sleep(120 * time.Millisecond)
		require.Empty(t, r.all(), "A was refused at its wake-up, and B is behind it")
		require.Equal(t, 2, queued(g))
		require.True(t, armed(g), "the timer is armed again, for A")
		require.NoError(t, <-a)
		require.NoError(t, <-b)
		assert.ElementsMatch(t, []admission{{0, 150 * time.Millisecond}, {1, 150 * time.Millisecond}}, r.all())
	})
}

// TestGatePauseThatIsOverChangesNothing: a pause that ends now or earlier (Retry-After: 0, a
// negative duration, a date already past) holds nobody, so it changes no turn, even while a
// wake-up is late: the forecast stands and the waiters go at their late wake-ups as without it.
func TestGatePauseThatIsOverChangesNothing(t *testing.T) {
	for name, pause := range map[string]func(g *Gate, now time.Time){
		"RetryAfter(0)":   func(g *Gate, _ time.Time) { g.RetryAfter(0) },
		"RetryAfter(-1s)": func(g *Gate, _ time.Time) { g.RetryAfter(-time.Second) },
		"Pause(now)":      func(g *Gate, now time.Time) { g.Pause(now) },
		"Pause(past)":     func(g *Gate, now time.Time) { g.Pause(now.Add(-time.Minute)) },
	} {
		t.Run(name, func(t *testing.T) {
			f := clock.NewFake(t0)
			g, ws := lateQueue(t, lateClock{f, 30 * time.Millisecond}, 3) // turns at 100, 200, 300ms
			f.Set(t0.Add(110 * time.Millisecond))                         // the head's turn has passed; its wake-up (130ms) is late
			before, _ := g.TryTake(1)
			pause(g, f.Now())
			after, _ := g.TryTake(1)
			require.True(t, after.Equal(before), "forecast before %v, after the pause %v", before, after)
			for i, at := range []time.Duration{130, 260, 390} { // each 30ms late, counted from the last
				f.Set(t0.Add(at * time.Millisecond))
				runTaken(t, g, ws[i], f.Now())
			}
		})
	}
}

// TestGateCancelOfFailedWaiter: a waiter the gate failed (a pause moved its turn past its
// deadline) before its cancel got the gate's lock reports the gate's error, not the context's.
func TestGateCancelOfFailedWaiter(t *testing.T) {
	f := clock.NewFake(t0)
	g := newGate(drained(t, gcra(t, numerus.PerSecond(10), 1), t0), f)
	_, w, err := g.enqueue(1, t0.Add(time.Second))
	require.NoError(t, err)
	g.RetryAfter(time.Second)
	var de *DeadlineError
	require.ErrorAs(t, g.cancel(w, context.Canceled), &de)
	require.Equal(t, 0, queued(g))
}

// manualClock's timers fire only when the test calls their functions, which it may do after Stop:
// the runtime does so when a timer's function had started before Stop.
type manualClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*manualTimer
}

type manualTimer struct {
	c       *manualClock
	f       func()
	stopped bool
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) NewTimer(time.Duration) clock.Timer { panic("the gate arms no channel timer") }

func (c *manualClock) AfterFunc(_ time.Duration, f func()) clock.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &manualTimer{c: c, f: f}
	c.timers = append(c.timers, t)
	return t
}

// live returns how many timers are armed and not stopped.
func (c *manualClock) live() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, t := range c.timers {
		if !t.stopped {
			n++
		}
	}
	return n
}

func (t *manualTimer) C() <-chan time.Time { return nil }

// Stop reports false, as for a timer whose function has started.
func (t *manualTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	t.stopped = true
	return false
}

// TestGateStaleWakeUpDoesNothing: a wake-up whose timer was disarmed after its function started
// wakes nobody and leaves the timer armed for the head as it is.
func TestGateStaleWakeUpDoesNothing(t *testing.T) {
	c := &manualClock{now: t0}
	g := newGate(drained(t, gcra(t, numerus.PerSecond(10), 1), t0), c)
	_, a, err := g.enqueue(1, time.Time{})
	require.NoError(t, err)
	c.now = t0.Add(50 * time.Millisecond)
	require.NoError(t, g.cancel(a, nil))   // disarms a's timer
	_, b, err := g.enqueue(1, time.Time{}) // arms one for b, at 100ms
	require.NoError(t, err)
	require.Equal(t, 1, c.live())
	c.timers[0].f() // a's wake-up, started before the disarm, runs now
	require.False(t, isWoken(b), "woken at 50ms, before its turn")
	require.Equal(t, 1, c.live(), "timers armed, with one waiter")
}

// TestGateFaultyRefusalAtTheTurnIsNever: a limiter that, at the instant its head runs, refuses
// with that very instant is not spun on: the waiter fails with ErrNever, after one debit.
func TestGateFaultyRefusalAtTheTurnIsNever(t *testing.T) {
	f := clock.NewFake(t0)
	l := newShifty(t0.Add(100 * time.Millisecond))
	g := newGate(l, f)
	_, w, err := g.enqueue(1, time.Time{})
	require.NoError(t, err)
	*l.open, *l.lag, *l.calls = t0.Add(time.Hour), 0, 0 // stuck from now on
	f.Set(t0.Add(100 * time.Millisecond))
	got := run(g, w)
	require.True(t, got.woken)
	require.ErrorIs(t, got.err, ErrNever)
	assert.Equal(t, 1, *l.calls, "one debit, at the run")
	assert.Equal(t, 0, queued(g))
	assert.Equal(t, 0, f.Timers())
}

// TestGateLateWakeUpAsksTheLimiterAtNow: a head woken 100ms after its turn, on a limiter that
// answers a nanosecond after each refused instant, is not walked forward from its turn: it is
// asked once, at the instant it runs, and charged there.
func TestGateLateWakeUpAsksTheLimiterAtNow(t *testing.T) {
	f := clock.NewFake(t0)
	l := newShifty(t0.Add(100 * time.Millisecond))
	g := newGate(l, lateClock{f, 100 * time.Millisecond})
	_, w, err := g.enqueue(1, time.Time{})
	require.NoError(t, err)
	*l.open, *l.lag, *l.calls = t0.Add(100*time.Millisecond+time.Microsecond), time.Nanosecond, 0
	f.Set(t0.Add(200 * time.Millisecond)) // the timer for 100ms, 100ms late
	runTaken(t, g, w, f.Now())
	assert.Equal(t, 1, *l.calls, "debits")
	assert.True(t, l.admitted.Equal(t0.Add(200*time.Millisecond)), "admitted at now: %v", *l.admitted)
}

// TestGateHandsOnAlongABurst: more than limits.Search waiters queued during a pause may all go at its
// end, with the burst the limiter holds. The timer wakes the head only; each, once charged at the
// instant it runs, wakes the next, one at a time (no thundering herd); and the last, beyond the
// burst, gets the timer, armed for its turn counted from the charges before it.
func TestGateHandsOnAlongABurst(t *testing.T) {
	n := limits.Search + 3
	policy := gcra(t, numerus.PerSecond(10), int64(n))
	f := clock.NewFake(t0)
	g := newGate(policy, f)
	g.RetryAfter(time.Second)
	ws := make([]*waiter, n+1)
	for i := range ws {
		var err error
		_, ws[i], err = g.enqueue(1, time.Time{})
		require.NoError(t, err)
	}
	f.Set(t0.Add(time.Second))
	model := policy
	for i, w := range ws[:n] {
		for j, x := range ws[i:] {
			require.Equal(t, j == 0, isWoken(x), "waiter %d, after %d went", i+j, i)
		}
		runTaken(t, g, w, f.Now())
		var ok bool
		model, _, ok = model.Debit(f.Now())
		require.True(t, ok)
		f.Advance(time.Millisecond) // the next goroutine runs a little later
	}
	last := ws[n]
	require.False(t, isWoken(last))
	require.Equal(t, 1, f.Timers())
	_, turn, ok := first(model, f.Now(), 1)
	require.True(t, ok)
	at, _ := f.Next()
	require.True(t, at.Equal(turn), "armed for %v, its turn after the burst %v", at, turn)
}
