package schedule

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/clock"
	"github.com/numerus-closus/numerus/internal/limits"
)

// counting is a limiter that counts the debits made of it and of every limiter it leaves.
type counting struct {
	numerus.Limiter
	n *int
}

func (c counting) Debit(at time.Time) (numerus.Limiter, numerus.NextDebitable, bool) {
	return c.DebitN(at, 1)
}

func (c counting) DebitN(at time.Time, cost int64) (numerus.Limiter, numerus.NextDebitable, bool) {
	*c.n++
	next, from, ok := c.Limiter.DebitN(at, cost)
	return counting{next, c.n}, from, ok
}

// replayQueue is afterQueue without the plan: the queue played through the planner from now.
// The caller holds g.mu.
func replayQueue(g *Gate, now time.Time) (numerus.Limiter, time.Time, bool) {
	l, at := g.l, g.start(now)
	for _, w := range g.queue {
		var ok bool
		if l, at, ok = first(l, at, w.cost); !ok {
			return l, at, false
		}
	}
	return l, at, true
}

// requirePlanIsReplay checks that the plan the gate keeps, if it stands at now, is the queue
// played afresh: the same instant, and a limiter in the same state then; or, for a plan kept
// inexact (after a head was charged late), a lower bound: a last turn no later. It changes
// nothing (it does not play the queue into the plan as afterQueue would).
func requirePlanIsReplay(t require.TestingT, g *Gate, now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.queue) == 0 || !g.plan.standsAt(g.start(now), g.queue[0]) {
		return
	}
	want, wantAt, wantOK := replayQueue(g, now)
	got, gotAt, gotOK := g.plan.l, g.plan.at, g.plan.ok
	require.Equal(t, wantOK, gotOK, "plan admits every waiter")
	if !wantOK {
		return
	}
	if !g.plan.exact {
		require.False(t, gotAt.After(wantAt), "the last turn: inexact plan %v after the replay's %v", gotAt, wantAt)
		return
	}
	require.True(t, gotAt.Equal(wantAt), "the last turn: plan %v, replay %v", gotAt, wantAt)
	gs, ws := got.Status(gotAt), want.Status(wantAt)
	require.Equal(t, ws.Remaining, gs.Remaining, "tokens left after the queue")
	require.True(t, gs.Full.Equal(ws.Full), "full again: plan %v, replay %v", gs.Full, ws.Full)
}

// TestGateQueueCostsEachWaiterAFewDebits: a take that must wait behind n waiters finds its turn
// with a few debits of the limiter, not 2n, while waiters are only added and run at their turns;
// and what the gate answers from its plan is the queue played afresh.
func TestGateQueueCostsEachWaiterAFewDebits(t *testing.T) {
	f := clock.NewFake(t0)
	debits := 0
	g := newGate(counting{drained(t, gcra(t, numerus.PerSecond(10), 1), t0), &debits}, f)
	enqueue := func(i int) *waiter {
		t.Helper()
		before := debits
		_, w, err := g.enqueue(1, time.Time{})
		require.NoError(t, err)
		require.NotNil(t, w, "waiter %d went at once", i)
		require.LessOrEqual(t, debits-before, 4, "debits to queue waiter %d behind %d", i, queued(g)-1)
		requirePlanIsReplay(t, g, f.Now())
		return w
	}
	var ws []*waiter
	for i := range 1000 {
		ws = append(ws, enqueue(i))
		require.True(t, ws[i].turn.Equal(t0.Add(time.Duration(i+1)*100*time.Millisecond)), "turn of waiter %d: %v", i, ws[i].turn)
	}
	// Run half of them at their turns, queueing one more behind at each.
	for i := range 500 {
		before := debits
		f.Advance(100 * time.Millisecond)
		runTaken(t, g, ws[i], f.Now())
		require.LessOrEqual(t, debits-before, 2, "debits to charge waiter %d and hand on", i)
		ws = append(ws, enqueue(1000+i))
		require.False(t, isWoken(ws[i+1]), "waiter %d waits", i+1)
	}
	require.Equal(t, 1000, queued(g))
}

// TestGatePlanAfterChanges: after a waiter leaves, a pause, or a head charged at another instant
// than its turn, the next take plays the queue again, and after that new waiters cost a few
// debits again; a head charged at its turn keeps the plan.
func TestGatePlanAfterChanges(t *testing.T) {
	f := clock.NewFake(t0)
	debits := 0
	l := counting{drained(t, gcra(t, numerus.PerSecond(10), 2), t0), &debits}
	g := newGate(l, f)
	var ws []*waiter
	add := func() int { // queues a waiter of cost 1 or 2 and returns the debits it took
		t.Helper()
		before := debits
		_, w, err := g.enqueue(1+int64(len(ws)%2), time.Time{})
		require.NoError(t, err)
		require.NotNil(t, w)
		n := debits - before
		ws = append(ws, w)
		requirePlanIsReplay(t, g, f.Now())
		return n
	}
	for range 50 {
		add()
	}
	require.LessOrEqual(t, add(), 4, "a waiter behind 50")

	require.NoError(t, g.cancel(ws[10], nil))
	require.Greater(t, add(), 50, "after a waiter left, the next take plays the queue again")
	require.LessOrEqual(t, add(), 4, "and the one after extends the play")

	g.RetryAfter(time.Second)
	require.Greater(t, add(), 50, "after a pause, the next take plays the queue again")
	require.LessOrEqual(t, add(), 4, "and the one after extends the play")

	// The head is woken at its turn, and its goroutine has not run 10ms later: a take then plays
	// the queue from now, at which the head would go; the head run then keeps that plan.
	head := ws[0]
	f.Set(head.turn)
	require.True(t, isWoken(head))
	f.Advance(10 * time.Millisecond)
	require.Greater(t, add(), 50, "a take while the woken head has not run plays the queue from now")
	require.LessOrEqual(t, add(), 4, "and the one after extends the play")
	runTaken(t, g, head, f.Now())
	require.LessOrEqual(t, add(), 4, "the head charged at its turn in the plan keeps it")

	// The next head runs 5ms after its wake-up: charged then, it moves every turn behind it.
	f.Set(ws[1].turn)
	f.Advance(5 * time.Millisecond)
	runTaken(t, g, ws[1], f.Now())
	require.Greater(t, add(), 50, "after a head charged late, the next take plays the queue again")
	require.LessOrEqual(t, add(), 4, "and the one after extends the play")

	// Every waiter runs at its wake-up from now on: the limiter the gate holds once the queue is
	// empty is the plan's.
	g.mu.Lock()
	want, wantAt := g.plan.l, g.plan.at
	g.mu.Unlock()
	for _, w := range ws[2:] {
		if w == ws[10] {
			continue
		}
		if !isWoken(w) {
			next, ok := f.Next()
			require.True(t, ok, "a timer is armed for the head")
			f.Set(next)
		}
		runTaken(t, g, w, f.Now())
		requirePlanIsReplay(t, g, f.Now())
	}
	require.Equal(t, 0, queued(g))
	got, ws2 := g.Limiter().Status(wantAt), want.Status(wantAt)
	require.Equal(t, ws2.Remaining, got.Remaining)
	require.True(t, got.Full.Equal(ws2.Full), "full again at %v, planned %v", got.Full, ws2.Full)
}

// TestGateLongQueueKeepsLowerBounds: behind more than maxExactPlay waiters, a head charged late
// does not make the next take play the whole queue again (at about two debits a waiter, a queue
// of 10,000 would cost each admission milliseconds under the gate's lock): the gate keeps its
// play as lower bounds. The forecast is then no later than a fresh play's, a take whose lower
// bound is at or past its deadline still fails at once, and a take behind the queue costs a few
// debits. A queue of maxExactPlay waiters or fewer is played again, exactly.
func TestGateLongQueueKeepsLowerBounds(t *testing.T) {
	for _, n := range []int{maxExactPlay, maxExactPlay + 1, 1000} {
		f := clock.NewFake(t0)
		debits := 0
		g := newGate(counting{drained(t, gcra(t, numerus.PerSecond(10), 1), t0), &debits}, f)
		var ws []*waiter
		for range n {
			_, w, err := g.enqueue(1, time.Time{})
			require.NoError(t, err)
			ws = append(ws, w)
		}
		f.Set(ws[0].turn.Add(30 * time.Millisecond)) // the head runs 30ms late
		runTaken(t, g, ws[0], f.Now())
		before := debits
		_, w, err := g.enqueue(1, time.Time{})
		require.NoError(t, err)
		require.NotNil(t, w)
		if n-1 <= maxExactPlay {
			require.Greater(t, debits-before, n, "%d waiters: played again", n)
			requirePlanIsReplay(t, g, f.Now())
			continue
		}
		require.LessOrEqual(t, debits-before, 4, "%d waiters: the play kept", n)
		requirePlanIsReplay(t, g, f.Now()) // a lower bound
		g.mu.Lock()
		bound := w.turn
		_, exact, _ := replayQueue(g, f.Now())
		g.mu.Unlock()
		require.True(t, bound.Before(exact), "%d waiters: the bound %v, the exact turn %v", n, bound, exact)
		_, _, err = g.enqueue(1, bound) // due, by the bound itself, at its deadline
		var de *DeadlineError
		require.ErrorAs(t, err, &de, "%d waiters: a take whose bound is its deadline fails at once", n)
	}
}

// openingAt is a faulty limiter: it refuses before from, answering a nanosecond later each time,
// and admits from then on; so it needs from − at refusals before its first admission.
type openingAt struct{ from time.Time }

func (o openingAt) Debit(at time.Time) (numerus.Limiter, numerus.NextDebitable, bool) {
	return o.DebitN(at, 1)
}

func (o openingAt) DebitN(at time.Time, _ int64) (numerus.Limiter, numerus.NextDebitable, bool) {
	if at.Before(o.from) {
		return o, numerus.DebitableAfter(at, 1), false
	}
	return o, numerus.DebitableFrom(at), true
}

func (openingAt) Status(time.Time) numerus.Status { return numerus.Status{Limit: 1} }

func (openingAt) String() string { return "opening" }

// TestGateAndAdmissionsGiveUpAlike: the Gate's forecast and numerus.Admissions give up after the same
// number of refusals in a row (limits.Search), so they agree on a limiter that needs one fewer and on
// one that needs that many.
func TestGateAndAdmissionsGiveUpAlike(t *testing.T) {
	for _, refusals := range []int{limits.Search - 1, limits.Search} {
		l := openingAt{from: t0.Add(time.Duration(refusals))}
		g := newGate(l, clock.NewFake(t0))
		from, _ := g.TryTake(1)
		planned := false
		for range numerus.Admissions(l, t0, 1) {
			planned = true
			break
		}
		require.Equal(t, refusals < limits.Search, planned, "%d refusals: Admissions", refusals)
		require.Equal(t, planned, !from.IsNever(), "%d refusals: the gate's forecast %v", refusals, from)
	}
}

func TestGateAdmissionsIsThePlannerOnTheGateState(t *testing.T) {
	f := clock.NewFake(t0)
	l := gcra(t, numerus.PerSecond(2), 2)
	g := newGate(l, f)
	var want []time.Time
	for at := range numerus.Admissions(l, t0, 1) {
		if want = append(want, at); len(want) == 6 {
			break
		}
	}
	assert.Equal(t, want, firstN(g.Admissions(1), 6))

	g.Pause(t0.Add(time.Minute))
	got := firstN(g.Admissions(1), 3)
	p := t0.Add(time.Minute)
	assert.Equal(t, []time.Time{p, p, p.Add(500 * time.Millisecond)}, got, "after the pause, full again")
	assert.Empty(t, firstN(g.Admissions(3), 1), "never: nothing")
}

func firstN(seq func(func(time.Time, numerus.Limiter) bool), n int) []time.Time {
	var ts []time.Time
	for at := range seq {
		if ts = append(ts, at); len(ts) == n {
			break
		}
	}
	return ts
}
