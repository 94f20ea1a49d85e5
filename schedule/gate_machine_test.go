package schedule

import (
	"errors"
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/clock"
	"pgregory.net/rapid"
)

// gateMachine drives a Gate on the fake clock through its non-blocking core: enqueue, cancel,
// TryTake, Pause, time passing with wake-ups on time or late by late, and the runs of the woken
// head's goroutine, at once or later. It checks the gate against a model of its own: the initial
// limiter debited with every charge at its instant, the pause, the queue in order, and the
// instant the head must be woken at, found afresh at each hand-on.
type gateMachine struct {
	f       *clock.Fake
	g       *Gate
	late    time.Duration
	burst   int64
	replay  numerus.Limiter // the initial limiter debited with every charge, in order
	paused  time.Time
	pending []*pendingTake
	due     time.Time // when the head must be woken: its turn from its hand-on, plus the lateness
}

type pendingTake struct {
	w        *waiter
	cost     int64
	deadline time.Time // zero for none
	woken    bool      // seen woken since it last ran
}

var errLeft = errors.New("left the queue")

// lates are the wake-up latenesses the machine runs with.
var lates = []time.Duration{0, 1, 7 * time.Millisecond, 30 * time.Millisecond, 250 * time.Millisecond}

func newGateMachine(t *rapid.T, late time.Duration) *gateMachine {
	var l numerus.Limiter
	burst := int64(3) // the largest capacity of twinLimiters
	if rapid.Bool().Draw(t, "a twin policy") {
		l = twinLimiters[rapid.IntRange(0, len(twinLimiters)-1).Draw(t, "policy")]()
	} else {
		burst = rapid.Int64Range(1, 4).Draw(t, "burst")
		l = numerus.Must(numerus.GCRA(numerus.PerSecond(rapid.Int64Range(1, 20).Draw(t, "rate")), burst))
		if rapid.Bool().Draw(t, "and a window") {
			n := rapid.Int64Range(burst, 8).Draw(t, "window n")
			l = numerus.And(l, numerus.Must(numerus.SlidingWindow(time.Duration(rapid.IntRange(1, 3).Draw(t, "window s"))*time.Second, n)))
		}
	}
	f := clock.NewFake(t0)
	return &gateMachine{f: f, g: newGate(l, lateClock{f, late}), late: late, burst: burst, replay: l}
}

func (m *gateMachine) now() time.Time { return m.f.Now() }

// behind plays the model's queue from now, or the end of the pause, and a take of cost behind
// it: the limiter after all, and that take's turn, as a gate whose wake-ups are on time would
// serve them; false if one is never admitted.
func (m *gateMachine) behind(cost int64) (numerus.Limiter, time.Time, bool) {
	l, at, ok := m.replay, latest(m.now(), m.paused), true
	for _, p := range append(m.pending, &pendingTake{cost: cost}) {
		if l, at, ok = first(l, at, p.cost); !ok {
			break
		}
	}
	return l, at, ok
}

// handOn finds when the new head must be woken: at once if its turn from now has come, at its
// turn plus the lateness if not.
func (m *gateMachine) handOn(t *rapid.T) {
	if len(m.pending) == 0 {
		return
	}
	_, turn, ok := first(m.replay, latest(m.now(), m.paused), m.pending[0].cost)
	if !ok {
		t.Fatalf("the head is never admitted under %v", m.replay)
	}
	m.due = turn.Add(m.late)
	if !m.now().Before(turn) {
		m.due = m.now()
	}
}

func (m *gateMachine) Take(t *rapid.T) {
	cost := rapid.Int64Range(1, m.burst+1).Draw(t, "cost")
	var deadline time.Time
	if rapid.Bool().Draw(t, "with a deadline") {
		deadline = m.now().Add(time.Duration(rapid.Int64Range(1, 3e9).Draw(t, "deadline in")))
	}
	_, turn, finite := m.behind(cost)
	if forecast, ok := firstTurn(m.g, cost); ok != finite || (ok && !forecast.Equal(turn)) {
		t.Fatalf("the gate forecasts %v (%v), the model %v (%v)", forecast, ok, turn, finite)
	}
	at, w, err := m.g.enqueue(cost, deadline)
	var de *DeadlineError
	switch {
	case !finite:
		if !errors.Is(err, ErrNever) {
			t.Fatalf("never admitted, but the gate answered %v, %v", w, err)
		}
	case !deadline.IsZero() && !turn.Before(deadline):
		if !errors.As(err, &de) || !de.At.Equal(turn) || !de.Deadline.Equal(deadline) {
			t.Fatalf("turn %v at or after the deadline %v, but the gate answered %v", turn, deadline, err)
		}
	case err != nil:
		t.Fatalf("unexpected error %v", err)
	case w == nil:
		if len(m.pending) > 0 || !turn.Equal(m.now()) || !at.Equal(m.now()) {
			t.Fatalf("taken at once, charged at %v, but the model's turn is %v", at, turn)
		}
		m.admit(t, cost)
	default:
		if !turn.After(m.now()) && len(m.pending) == 0 {
			t.Fatalf("queued, but it may go now")
		}
		m.pending = append(m.pending, &pendingTake{w: w, cost: cost, deadline: deadline})
		if len(m.pending) == 1 {
			m.handOn(t)
		}
	}
	m.observe(t)
}

func (m *gateMachine) TryTake(t *rapid.T) {
	cost := rapid.Int64Range(1, m.burst+1).Draw(t, "cost")
	_, turn, finite := m.behind(cost)
	from, ok := m.g.TryTake(cost)
	at, ofinite := from.Time()
	if ok {
		if len(m.pending) > 0 || !turn.Equal(m.now()) || !at.Equal(m.now()) {
			t.Fatalf("TryTake passed %d waiters or the pause %v, or charged at %v", len(m.pending), m.paused, at)
		}
		m.admit(t, cost)
		return
	}
	if ofinite != finite || (finite && !at.Equal(turn)) {
		t.Fatalf("refused with %v, the model's turn %v (%v)", from, turn, finite)
	}
}

// Cancel makes a drawn waiter leave; if it was the head, woken or not, the next is handed on to.
func (m *gateMachine) Cancel(t *rapid.T) {
	if len(m.pending) == 0 {
		t.Skip("no waiter")
	}
	i := rapid.IntRange(0, len(m.pending)-1).Draw(t, "waiter")
	if err := m.g.cancel(m.pending[i].w, errLeft); err != errLeft {
		t.Fatalf("cancel returned %v", err)
	}
	m.pending = append(m.pending[:i], m.pending[i+1:]...)
	if i == 0 {
		m.handOn(t)
	}
	m.observe(t)
}

func (m *gateMachine) Pause(t *rapid.T) {
	until := m.now().Add(time.Duration(rapid.Int64Range(-1e9, 3e9).Draw(t, "pause for")))
	m.g.Pause(until)
	if until.After(m.paused) && until.After(m.now()) {
		m.paused = until
		m.dropLate(t)
		m.handOn(t)
	}
	m.observe(t)
}

// dropLate plays the queue through the planner from the end of the pause and checks that every
// waiter whose turn comes at or after its deadline has failed at once, naming that turn, and
// that the others still wait.
func (m *gateMachine) dropLate(t *rapid.T) {
	l, at := m.replay, latest(m.paused, m.now())
	kept := m.pending[:0]
	for i, p := range m.pending {
		next, turn, ok := first(l, at, p.cost)
		if !ok { // never admitted: it and those behind it stay, for the gate to fail in turn
			kept = append(kept, m.pending[i:]...)
			break
		}
		if p.deadline.IsZero() || turn.Before(p.deadline) {
			if p.w.err != nil {
				t.Fatalf("a waiter on time (turn %v, deadline %v) failed during a pause: %v", turn, p.deadline, p.w.err)
			}
			l, at = next, turn
			kept = append(kept, p)
			continue
		}
		var de *DeadlineError
		if !errors.As(p.w.err, &de) || !de.At.Equal(turn) || !de.Deadline.Equal(p.deadline) {
			t.Fatalf("a waiter late after the pause (turn %v, deadline %v) was not failed at once: %v", turn, p.deadline, p.w.err)
		}
	}
	m.pending = kept
}

// Run plays the part of the woken head's goroutine, as late after its wake-up as time has moved.
func (m *gateMachine) Run(t *rapid.T) {
	if len(m.pending) == 0 || !isWoken(m.pending[0].w) {
		t.Skip("nobody woken")
	}
	m.runHead(t)
}

// Advance moves time on, one timer at a time, and may stop inside the next timer's lateness; at
// each wake-up the woken waiter's goroutine may run at once.
func (m *gateMachine) Advance(t *rapid.T) {
	target := m.now().Add(time.Duration(rapid.Int64Range(0, 2e9).Draw(t, "advance")))
	if next, ok := m.f.Next(); ok && m.late > 0 && rapid.Bool().Draw(t, "into the lateness") {
		target = latest(m.now(), next.Add(-time.Duration(rapid.Int64Range(1, int64(m.late)).Draw(t, "before the wake-up"))))
	}
	stepTo(m.f, target, func() {
		m.observe(t)
		for len(m.pending) > 0 && isWoken(m.pending[0].w) && rapid.Bool().Draw(t, "runs at once") {
			m.runHead(t)
		}
	})
}

// runHead runs the woken head's goroutine: it must be charged now, or be refused because a pause
// came after its wake-up, and wait again.
func (m *gateMachine) runHead(t *rapid.T) {
	p := m.pending[0]
	r := run(m.g, p.w)
	switch {
	case !r.woken || r.err != nil:
		t.Fatalf("the head's run: %+v", r)
	case !r.taken:
		if !m.now().Before(m.paused) {
			t.Fatalf("the head was refused at %v with no pause", m.now())
		}
		p.woken = false
		m.handOn(t)
	default:
		if !r.at.Equal(m.now()) {
			t.Fatalf("charged at %v, run at %v", r.at, m.now())
		}
		m.admit(t, p.cost)
		m.pending = m.pending[1:]
		m.handOn(t)
	}
	m.observe(t)
}

// observe checks the queue as it stands: nobody failed, nobody but the head is woken, and the
// head is woken exactly when the model says, when the policy and the pause let it go.
func (m *gateMachine) observe(t *rapid.T) {
	now := m.now()
	for i, p := range m.pending {
		if p.w.err != nil || (i > 0 && isWoken(p.w)) {
			t.Fatalf("waiter %d of %d: woken %v, failed %v", i, len(m.pending), isWoken(p.w), p.w.err)
		}
	}
	if len(m.pending) == 0 {
		return
	}
	p := m.pending[0]
	switch woken := isWoken(p.w); {
	case !woken && !now.Before(m.due):
		t.Fatalf("the head is not woken at %v, due at %v", now, m.due)
	case woken && !p.woken:
		p.woken = true
		if !now.Equal(m.due) {
			t.Fatalf("the head woken at %v, due at %v", now, m.due)
		}
		if _, _, ok := m.replay.DebitN(now, p.cost); !ok || now.Before(m.paused) {
			t.Fatalf("woken at %v, when the policy or the pause (%v) refuses it", now, m.paused)
		}
	}
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

// firstTurn returns the gate's forecast for a take of cost, and false for never.
func firstTurn(g *Gate, cost int64) (time.Time, bool) {
	for at := range g.Admissions(cost) {
		return at, true
	}
	return time.Time{}, false
}

// admit checks a charge of cost now against the model and records it.
func (m *gateMachine) admit(t *rapid.T, cost int64) {
	now := m.now()
	next, _, ok := m.replay.DebitN(now, cost)
	if !ok || now.Before(m.paused) {
		t.Fatalf("charged %d at %v beyond the policy %v or the pause %v", cost, now, m.replay, m.paused)
	}
	m.replay = next
}

// Check holds after every step: what the gate answers for its queue, from its plan or not, is the
// queue played afresh; the gate's limiter is the model's; one timer is armed, for the instant the
// head is due, while someone waits and the head is not woken, and none once nobody waits.
func (m *gateMachine) Check(t *rapid.T) {
	now := m.now()
	requirePlanIsReplay(t, m.g, now)
	got, want := m.g.Limiter().Status(now), m.replay.Status(now)
	if got.Remaining != want.Remaining || !got.Full.Equal(want.Full) {
		t.Fatalf("gate status %+v, model %+v", got, want)
	}
	timers := m.f.Timers()
	if len(m.pending) == 0 {
		if timers != 0 {
			t.Fatalf("%d timers armed with nobody waiting", timers)
		}
		return
	}
	head := m.pending[0]
	if timers > 1 || (!isWoken(head.w) && timers != 1) {
		t.Fatalf("%d timers armed with %d waiters, the head woken %v", timers, len(m.pending), isWoken(head.w))
	}
	if next, ok := m.f.Next(); !isWoken(head.w) && (!ok || !next.Equal(m.due)) {
		t.Fatalf("the timer is armed for %v, the head due at %v", next, m.due)
	}
}

// TestGateStateMachine: whatever the interleaving of takes, tries, cancellations, pauses, time,
// late wake-ups and late runs of the woken, the gate forecasts what its model plays; charges only
// what the policy admits, in queue order, each at the instant its waiter runs; wakes only the
// head, exactly at its turn counted from the last charge, cancellation or pause (plus the
// timer's lateness); and keeps one timer armed while anyone waits unwoken.
func TestGateStateMachine(t *testing.T) {
	for _, late := range lates {
		t.Run("late="+late.String(), rapid.MakeCheck(func(t *rapid.T) {
			t.Repeat(rapid.StateMachineActions(newGateMachine(t, late)))
		}))
	}
}
