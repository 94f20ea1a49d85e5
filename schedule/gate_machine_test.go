package schedule

import (
	"errors"
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/clock"
	"pgregory.net/rapid"
)

// gateMachine drives a Gate on the fake clock through its non-blocking core (enqueue, cancel,
// TryTake, Pause, time passing) and checks it against a model: the initial limiter replayed with
// every admission in order, the model's pause, and the queue in order.
type gateMachine struct {
	f       *clock.Fake
	g       *Gate
	burst   int64
	replay  numerus.Limiter // the initial limiter debited with every admission, in order
	paused  time.Time
	pending []*pendingTake
}

type pendingTake struct {
	w        *waiter
	cost     int64
	deadline time.Time // zero for none
	forecast time.Time // when the gate said it would go
	paused   bool      // a pause came after it was queued: it may go later
	overtook bool      // a waiter ahead of it left: it may go earlier
}

var errLeft = errors.New("left the queue")

func newGateMachine(t *rapid.T) *gateMachine {
	burst := rapid.Int64Range(1, 4).Draw(t, "burst")
	l := numerus.Must(numerus.GCRA(numerus.PerSecond(rapid.Int64Range(1, 20).Draw(t, "rate")), burst))
	if rapid.Bool().Draw(t, "and a window") {
		n := rapid.Int64Range(burst, 8).Draw(t, "window n")
		l = numerus.And(l, numerus.Must(numerus.SlidingWindow(time.Duration(rapid.IntRange(1, 3).Draw(t, "window s"))*time.Second, n)))
	}
	f := clock.NewFake(t0)
	return &gateMachine{f: f, g: newGate(l, f), burst: burst, replay: l}
}

func (m *gateMachine) now() time.Time { return m.f.Now() }

// next returns the gate's own forecast for a take of cost, and false for never.
func (m *gateMachine) next(cost int64) (time.Time, bool) {
	for at := range m.g.Schedule(cost) {
		return at, true
	}
	return time.Time{}, false
}

func (m *gateMachine) Take(t *rapid.T) {
	cost := rapid.Int64Range(1, m.burst+1).Draw(t, "cost")
	var deadline time.Time
	if rapid.Bool().Draw(t, "with a deadline") {
		deadline = m.now().Add(time.Duration(rapid.Int64Range(1, 3e9).Draw(t, "deadline in")))
	}
	forecast, finite := m.next(cost)
	w, err := m.g.enqueue(cost, deadline)
	var de *DeadlineError
	switch {
	case errors.Is(err, ErrNever):
		if finite {
			t.Fatalf("never, but the gate's forecast was %v", forecast)
		}
	case errors.As(err, &de):
		if !finite || !de.At.Equal(forecast) || forecast.Before(deadline) {
			t.Fatalf("deadline error %v with forecast %v", err, forecast)
		}
	case err != nil:
		t.Fatalf("unexpected error %v", err)
	case w == nil:
		if !forecast.Equal(m.now()) {
			t.Fatalf("taken at once, but the forecast was %v", forecast)
		}
		m.admit(t, cost)
	default:
		m.pending = append(m.pending, &pendingTake{w: w, cost: cost, deadline: deadline, forecast: forecast})
	}
}

func (m *gateMachine) TryTake(t *rapid.T) {
	cost := rapid.Int64Range(1, m.burst+1).Draw(t, "cost")
	forecast, finite := m.next(cost)
	from, ok := m.g.TryTake(cost)
	at, ofinite := from.Time()
	if ok {
		if len(m.pending) > 0 || m.now().Before(m.paused) {
			t.Fatalf("TryTake passed %d waiters or the pause %v", len(m.pending), m.paused)
		}
		m.admit(t, cost)
		return
	}
	if ofinite != finite || (finite && !at.Equal(forecast)) {
		t.Fatalf("refused with %v, forecast %v", from, forecast)
	}
}

func (m *gateMachine) Cancel(t *rapid.T) {
	m.pending = cancelDrawn(t, m.g, m.pending)
	m.collect(t) // the waiters behind a head that left may go at once
}

// cancelDrawn cancels a waiter drawn from pending, marks those behind it as overtaking, and
// returns pending without it.
func cancelDrawn(t *rapid.T, g *Gate, pending []*pendingTake) []*pendingTake {
	if len(pending) == 0 {
		t.Skip("no waiter")
	}
	i := rapid.IntRange(0, len(pending)-1).Draw(t, "waiter")
	if err := g.cancel(pending[i].w, errLeft); err != errLeft {
		t.Fatalf("cancel returned %v", err)
	}
	for _, p := range pending[i+1:] {
		p.overtook = true
	}
	return append(pending[:i], pending[i+1:]...)
}

func (m *gateMachine) Pause(t *rapid.T) {
	until := m.now().Add(time.Duration(rapid.Int64Range(0, 3e9).Draw(t, "pause for")))
	m.g.Pause(until)
	if until.After(m.paused) {
		m.paused = until
		for _, p := range m.pending {
			p.paused = true
		}
		m.dropLate(t)
	}
}

// dropLate plays the queue through the planner from the end of the pause and checks that every
// waiter whose turn comes at or after its deadline has failed at once, naming that turn, and
// that the others still wait.
func (m *gateMachine) dropLate(t *rapid.T) {
	l, at := m.replay, m.paused
	if at.Before(m.now()) {
		at = m.now()
	}
	kept := m.pending[:0]
	for i, p := range m.pending {
		var turn time.Time
		var next numerus.Limiter
		for a, n := range numerus.Schedule(l, at, p.cost) {
			turn, next = a, n
			break
		}
		if next == nil { // never admitted: it and those behind it stay, for the gate to serve
			kept = append(kept, m.pending[i:]...)
			break
		}
		if p.deadline.IsZero() || turn.Before(p.deadline) {
			if isDone(p.w) {
				t.Fatalf("a waiter on time (turn %v, deadline %v) was served during a pause", turn, p.deadline)
			}
			l, at = next, turn
			kept = append(kept, p)
			continue
		}
		var de *DeadlineError
		if !isDone(p.w) || !errors.As(p.w.err, &de) || !de.At.Equal(turn) || !de.Deadline.Equal(p.deadline) {
			t.Fatalf("a waiter late after the pause (turn %v, deadline %v) was not failed at once: %v", turn, p.deadline, p.w.err)
		}
		for _, q := range m.pending {
			q.overtook = true // a waiter ahead may have left: the others may go earlier
		}
	}
	m.pending = kept
}

// Advance moves time on, one timer at a time, checking who each firing admits.
func (m *gateMachine) Advance(t *rapid.T) {
	target := m.now().Add(time.Duration(rapid.Int64Range(0, 2e9).Draw(t, "advance")))
	stepTo(m.f, target, func() { m.collect(t) })
}

// stepTo sets f to each instant a timer fires at up to target, then to target, calling after at
// each.
func stepTo(f *clock.Fake, target time.Time, after func()) {
	for {
		at, ok := f.Next()
		if !ok || at.After(target) {
			break
		}
		f.Set(at)
		after()
	}
	f.Set(target)
	after()
}

// requireNoneServed fails if any of the waiters is served: they wait behind one that is not.
func requireNoneServed(t *rapid.T, behind []*pendingTake) {
	for _, q := range behind {
		if isDone(q.w) {
			t.Fatalf("a waiter was served before the one ahead of it")
		}
	}
}

// collect checks that the waiters served are a prefix of the queue, each admitted by the model
// at now and when its forecast said.
func (m *gateMachine) collect(t *rapid.T) {
	m.pending = collectServed(t, m.pending, m.now(), 0, func(p *pendingTake) { m.admit(t, p.cost) })
}

// collectServed checks the waiters at the head of pending that are served by now, in order and
// admitted, each no earlier than its forecast (unless one ahead of it left) and no later than the
// forecast plus late (unless a pause came after it was queued), calls each with them, and returns
// the waiters left.
func collectServed(t *rapid.T, pending []*pendingTake, now time.Time, late time.Duration, each func(*pendingTake)) []*pendingTake {
	for ; len(pending) > 0; pending = pending[1:] {
		p := pending[0]
		if !isDone(p.w) {
			requireNoneServed(t, pending[1:])
			return pending
		}
		if p.w.err != nil {
			t.Fatalf("waiter failed: %v", p.w.err)
		}
		if (!p.paused && now.After(p.forecast.Add(late))) || (!p.overtook && now.Before(p.forecast)) {
			t.Fatalf("served at %v, forecast %v, late by up to %v (paused since %v, overtook %v)", now, p.forecast, late, p.paused, p.overtook)
		}
		each(p)
	}
	return pending
}

func isDone(w *waiter) bool {
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

// admit checks an admission of cost now against the model and records it.
func (m *gateMachine) admit(t *rapid.T, cost int64) {
	now := m.now()
	next, _, ok := m.replay.DebitN(now, cost)
	if !ok || now.Before(m.paused) {
		t.Fatalf("admitted %d at %v beyond the policy %v or the pause %v", cost, now, m.replay, m.paused)
	}
	m.replay = next
}

// Check holds after every step: what the gate answers for its queue, from its plan or not, is the
// queue played afresh; the gate's limiter is the model's; a waiter is left at the head only when
// it cannot go; one timer is armed exactly while someone waits.
func (m *gateMachine) Check(t *rapid.T) {
	now := m.now()
	requirePlanIsReplay(t, m.g, now)
	got, want := m.g.Limiter().Status(now), m.replay.Status(now)
	if got.Remaining != want.Remaining || !got.Full.Equal(want.Full) {
		t.Fatalf("gate status %+v, model %+v", got, want)
	}
	timers := 0
	if len(m.pending) > 0 {
		timers = 1
		if _, _, ok := m.replay.DebitN(now, m.pending[0].cost); ok && !now.Before(m.paused) {
			t.Fatalf("the head waiter could go at %v but waits", now)
		}
	}
	if n := m.f.Timers(); n != timers {
		t.Fatalf("%d timers armed with %d waiters", n, len(m.pending))
	}
}

// TestGateStateMachine: whatever the interleaving of takes, tries, cancellations, pauses and time,
// the gate admits only what the policy admits in queue order, when its own forecast said (unless a
// pause or a departure ahead moved it), never lets a waiter wait that could go, and keeps exactly
// one timer armed while anyone waits.
func TestGateStateMachine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		t.Repeat(rapid.StateMachineActions(newGateMachine(t)))
	})
}
