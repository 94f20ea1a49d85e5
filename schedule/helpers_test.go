package schedule

import (
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/clock"
	"github.com/stretchr/testify/require"
)

// t0 is the fixed instant of tests that run on the fake clock.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// bubbleStart is the instant every testing/synctest bubble starts at.
var bubbleStart = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

func gcra(t testing.TB, rate numerus.Rate, burst int64) numerus.Limiter {
	t.Helper()
	l, err := numerus.GCRA(rate, burst)
	require.NoError(t, err)
	return l
}

// drained returns l after taking everything it admits at at.
func drained(t testing.TB, l numerus.Limiter, at time.Time) numerus.Limiter {
	t.Helper()
	for range 1_000_000 {
		next, _, ok := l.Debit(at)
		if !ok {
			return l
		}
		l = next
	}
	t.Fatal("the limiter did not run dry")
	return nil
}

// elapsed returns the virtual time since the bubble started.
func elapsed() time.Duration { return time.Since(bubbleStart) }

// queued returns how many waiters the gate holds.
func queued(g *Gate) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.queue)
}

// lateClock is a fake clock whose timers all fire late by late, as the runtime's do.
type lateClock struct {
	*clock.Fake
	late time.Duration
}

func (c lateClock) NewTimer(d time.Duration) clock.Timer { return c.Fake.NewTimer(d + c.late) }

func (c lateClock) AfterFunc(d time.Duration, f func()) clock.Timer {
	return c.Fake.AfterFunc(d+c.late, f)
}

// lateReal is the system clock whose timers all fire late by late: inside a testing/synctest
// bubble, where timers are never late and a woken goroutine runs before time moves on, a
// deterministic model of the runtime's timer latency.
type lateReal struct {
	clock.Real
	late time.Duration
}

func (c lateReal) NewTimer(d time.Duration) clock.Timer { return c.Real.NewTimer(d + c.late) }

func (c lateReal) AfterFunc(d time.Duration, f func()) clock.Timer {
	return c.Real.AfterFunc(d+c.late, f)
}

// isWoken reports whether w holds a wake-up token that its goroutine has not taken yet.
func isWoken(w *waiter) bool { return len(w.wake) > 0 }

// claimed is what running a waiter's goroutine once did (see run).
type claimed struct {
	woken bool      // it held a token; otherwise it stays blocked and nothing happened
	taken bool      // claim charged it, at at
	at    time.Time //
	err   error     // the gate failed it
}

// run plays the part of w's goroutine in Take, at the clock's current instant: if w holds a
// token, it takes it and claims; otherwise it stays blocked.
func run(g *Gate, w *waiter) claimed {
	select {
	case <-w.wake:
	default:
		return claimed{}
	}
	at, ok, err := g.claim(w)
	return claimed{woken: true, taken: ok, at: at, err: err}
}

// runTaken runs w, which must be woken, and requires it to be charged at now.
func runTaken(t testing.TB, g *Gate, w *waiter, now time.Time) {
	t.Helper()
	r := run(g, w)
	require.True(t, r.woken, "woken by %v", now)
	require.NoError(t, r.err)
	require.True(t, r.taken, "charged at its wake-up")
	require.True(t, r.at.Equal(now), "charged at %v, run at %v", r.at, now)
}

// shifty is a faulty limiter, steered by the test through its pointers: it admits every debit at
// or after *open and refuses those before, answering *open (tight) while *lag is negative, and
// at + *lag once it is set: the instant asked for 0 (stuck), a nanosecond later for 1ns (not
// tight at its answers). It counts its debits in *calls, records the instant of its last
// admission in *admitted, and admits anything from its 1000th debit on, so that a caller that
// spins on it ends.
type shifty struct {
	open     *time.Time
	lag      *time.Duration
	calls    *int
	admitted *time.Time
}

func newShifty(open time.Time) shifty {
	lag := time.Duration(-1)
	return shifty{&open, &lag, new(int), new(time.Time)}
}

func (s shifty) Debit(at time.Time) (numerus.Limiter, numerus.NextDebitable, bool) {
	return s.DebitN(at, 1)
}

func (s shifty) DebitN(at time.Time, _ int64) (numerus.Limiter, numerus.NextDebitable, bool) {
	if *s.calls++; !at.Before(*s.open) || *s.calls >= 1000 {
		*s.admitted = at
		return s, numerus.DebitableFrom(at), true
	}
	if *s.lag < 0 {
		return s, numerus.DebitableFrom(*s.open), false
	}
	return s, numerus.DebitableFrom(at.Add(*s.lag)), false
}

func (shifty) Status(time.Time) numerus.Status { return numerus.Status{Limit: 1} }

func (shifty) String() string { return "shifty" }
