package schedule

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/clock"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// Wake-ups that come late: the gate charges each waiter at its turn, not at the late instant, and
// nothing else that happens while a wake-up is late (a waiter leaving, a pause already over) may
// undo that. testing/synctest's timers are never late, so these tests use lateClock.

// TestGateCancelOfLateHeadKeepsTurns: the head leaves while its wake-up is late. Everyone behind
// it moves up a turn, counted from the head's turn as the late wake-up would have: the waiters
// whose new turns have passed go at once, and the forecast moves earlier by a turn. (Its cancel
// served the queue from now, charging the next waiter at now and moving every turn behind it
// later by the lateness.)
func TestGateCancelOfLateHeadKeepsTurns(t *testing.T) {
	f := clock.NewFake(t0)
	g, ws := lateQueue(t, lateClock{f, 250 * time.Millisecond}, 4) // turns at 100, 200, 300, 400ms
	f.Set(t0.Add(340 * time.Millisecond))                          // the head's wake-up, due at 350ms, is late
	before, _ := g.TryTake(1)
	require.True(t, before.Equal(numerus.DebitableFrom(t0.Add(500*time.Millisecond))), "forecast %v", before)
	require.NoError(t, g.cancel(ws[0], nil))
	for i, w := range ws[1:] {
		require.True(t, isDone(w), "waiter %d, whose turn is now %dms", i+1, 100*(i+1))
	}
	after, _ := g.TryTake(1)
	require.True(t, after.Equal(numerus.DebitableFrom(t0.Add(400*time.Millisecond))), "forecast %v", after)
}

// TestGatePauseThatIsOverChangesNothing: a pause that ends now or earlier (Retry-After: 0, a
// negative duration, a date already past) holds nobody, so it changes no turn, even while a
// wake-up is late. (It replayed the queue from now, charging the late head at now.)
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
			before, _ := g.TryTake(1)
			f.Set(t0.Add(110 * time.Millisecond)) // the head's turn has passed; its wake-up (130ms) is late
			pause(g, f.Now())
			after, _ := g.TryTake(1)
			require.True(t, after.Equal(before), "forecast before %v, after the pause %v", before, after)
			f.Set(t0.Add(330 * time.Millisecond)) // the last turn's wake-up
			require.True(t, isDone(ws[2]), "the last waiter goes at its turn's wake-up")
			require.NoError(t, ws[2].err)
		})
	}
}

// TestGateCancelOfServedWaiter: a waiter served before its cancel got the gate's lock has taken
// its tokens, so Take must report that (nil), not the context's error.
func TestGateCancelOfServedWaiter(t *testing.T) {
	f := clock.NewFake(t0)
	g := newGate(drained(t, gcra(t, numerus.PerSecond(10), 1), t0), f)
	w, err := g.enqueue(1, time.Time{})
	require.NoError(t, err)
	f.Advance(100 * time.Millisecond)
	require.True(t, isDone(w))
	require.NoError(t, g.cancel(w, context.Canceled))
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
// admits nobody and leaves the timer armed for the head as it is.
func TestGateStaleWakeUpDoesNothing(t *testing.T) {
	c := &manualClock{now: t0}
	g := newGate(drained(t, gcra(t, numerus.PerSecond(10), 1), t0), c)
	a, err := g.enqueue(1, time.Time{})
	require.NoError(t, err)
	c.now = t0.Add(50 * time.Millisecond)
	require.NoError(t, g.cancel(a, nil)) // disarms a's timer
	b, err := g.enqueue(1, time.Time{})  // arms one for b, at 100ms
	require.NoError(t, err)
	require.Equal(t, 1, c.live())
	c.timers[0].f() // a's wake-up, started before the disarm, runs now
	require.False(t, isDone(b), "served at 50ms, before its turn")
	require.Equal(t, 1, c.live(), "timers armed, with one waiter")
}

// lateMachine drives a Gate whose wake-ups all come late by late through takes, cancels, pauses
// and time passing, stopping time inside late windows too. Each waiter is served in order, no
// earlier than the gate forecast (unless a waiter ahead left) and no later than the forecast plus
// the lateness (unless a pause came after it was queued).
type lateMachine struct {
	f       *clock.Fake
	g       *Gate
	late    time.Duration
	burst   int64
	pending []*pendingTake
}

func (m *lateMachine) now() time.Time { return m.f.Now() }

func (m *lateMachine) Take(t *rapid.T) {
	cost := rapid.Int64Range(1, m.burst+1).Draw(t, "cost")
	forecast, finite := firstTurn(m.g, cost)
	w, err := m.g.enqueue(cost, time.Time{})
	switch {
	case errors.Is(err, ErrNever):
		if finite {
			t.Fatalf("never, but the gate's forecast was %v", forecast)
		}
	case err != nil:
		t.Fatalf("unexpected error %v", err)
	case w == nil:
		if !finite || forecast.After(m.now()) {
			t.Fatalf("taken at once at %v, but the forecast was %v", m.now(), forecast)
		}
	case !finite:
		t.Fatal("queued, but the gate's forecast was never")
	default:
		m.pending = append(m.pending, &pendingTake{w: w, cost: cost, forecast: forecast})
	}
}

func (m *lateMachine) Cancel(t *rapid.T) {
	m.pending = cancelDrawn(t, m.g, m.pending)
	m.collect(t)
}

func (m *lateMachine) Pause(t *rapid.T) {
	d := time.Duration(rapid.Int64Range(-1e9, 1e9).Draw(t, "retry after"))
	m.g.RetryAfter(d)
	if d > 0 {
		for _, p := range m.pending {
			p.paused = true
		}
	}
	m.collect(t)
}

// Advance moves time on, one timer at a time, and may stop inside the next timer's lateness.
func (m *lateMachine) Advance(t *rapid.T) {
	target := m.now().Add(time.Duration(rapid.Int64Range(0, 1e9).Draw(t, "advance")))
	if next, ok := m.f.Next(); ok && m.late > 0 && rapid.Bool().Draw(t, "into the lateness") {
		target = latest(m.now(), next.Add(-time.Duration(rapid.Int64Range(1, int64(m.late)).Draw(t, "before the wake-up"))))
	}
	stepTo(m.f, target, func() { m.collect(t) })
}

// collect checks the waiters served since the last call (see collectServed).
func (m *lateMachine) collect(t *rapid.T) {
	m.pending = collectServed(t, m.pending, m.now(), m.late, func(*pendingTake) {})
}

// Check: the gate's plan is its queue played afresh, and one timer is armed while anyone waits.
func (m *lateMachine) Check(t *rapid.T) {
	requirePlanIsReplay(t, m.g, m.now())
	if n, want := m.f.Timers(), min(len(m.pending), 1); n != want {
		t.Fatalf("%d timers armed with %d waiters", n, len(m.pending))
	}
}

// firstTurn returns the gate's forecast for a take of cost, and false for never.
func firstTurn(g *Gate, cost int64) (time.Time, bool) {
	for at := range g.Schedule(cost) {
		return at, true
	}
	return time.Time{}, false
}

func TestGateLateWakeUps(t *testing.T) {
	for _, late := range []time.Duration{0, 1, 7 * time.Millisecond, 30 * time.Millisecond, 250 * time.Millisecond} {
		t.Run("late="+late.String(), rapid.MakeCheck(func(t *rapid.T) {
			l := twinLimiters[rapid.IntRange(0, len(twinLimiters)-1).Draw(t, "policy")]()
			f := clock.NewFake(t0)
			m := &lateMachine{f: f, g: newGate(l, lateClock{f, late}), late: late, burst: 3}
			t.Repeat(rapid.StateMachineActions(m))
		}))
	}
}
