package schedule

import (
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/clock"
	"github.com/stretchr/testify/require"
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
// played afresh: the same instant, and a limiter in the same state then. It changes nothing (it
// does not play the queue into the plan as afterQueue would).
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
	require.True(t, gotAt.Equal(wantAt), "the last turn: plan %v, replay %v", gotAt, wantAt)
	gs, ws := got.Status(gotAt), want.Status(wantAt)
	require.Equal(t, ws.Remaining, gs.Remaining, "tokens left after the queue")
	require.True(t, gs.Full.Equal(ws.Full), "full again: plan %v, replay %v", gs.Full, ws.Full)
}

// TestGateQueueCostsEachWaiterAFewDebits: a take that must wait behind n waiters finds its turn
// with a few debits of the limiter, not 2n, while waiters are only added and served at their
// turns; and what the gate answers from its plan is the queue played afresh.
func TestGateQueueCostsEachWaiterAFewDebits(t *testing.T) {
	f := clock.NewFake(t0)
	debits := 0
	g := newGate(counting{drained(t, gcra(t, numerus.PerSecond(10), 1), t0), &debits}, f)
	enqueue := func(i int) *waiter {
		t.Helper()
		before := debits
		w, err := g.enqueue(1, time.Time{})
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
	// Serve half of them at their turns, queueing one more behind at each.
	for i := range 500 {
		before := debits
		f.Advance(100 * time.Millisecond)
		require.LessOrEqual(t, debits-before, 2, "debits to serve waiter %d", i)
		require.True(t, isDone(ws[i]) && ws[i].err == nil, "waiter %d served at its turn", i)
		ws = append(ws, enqueue(1000+i))
		require.False(t, isDone(ws[i+1]), "waiter %d waits", i+1)
	}
	require.Equal(t, 1000, queued(g))
}

// TestGatePlanAfterChanges: after a waiter leaves or a pause, the next take plays the queue again,
// and after that new waiters cost a few debits again; a take while the head's wake-up is late
// extends the plan, which every waiter then keeps to.
func TestGatePlanAfterChanges(t *testing.T) {
	f := clock.NewFake(t0)
	debits := 0
	l := counting{drained(t, gcra(t, numerus.PerSecond(10), 2), t0), &debits}
	g := newGate(l, lateClock{f, 30 * time.Millisecond})
	var ws []*waiter
	add := func() int { // queues a waiter of cost 1 or 2 and returns the debits it took
		t.Helper()
		before := debits
		w, err := g.enqueue(1+int64(len(ws)%2), time.Time{})
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

	// The head's turn passes, and its timer fires 30ms late: a take in between is planned behind
	// the head's turn, at which the wake-up admits the head, and the plan stands after it.
	head := ws[0].turn
	f.Set(head.Add(10 * time.Millisecond))
	require.False(t, isDone(ws[0]), "the head's wake-up is late")
	require.LessOrEqual(t, add(), 4, "a take while the head's wake-up is late")
	f.Set(head.Add(40 * time.Millisecond))
	require.True(t, isDone(ws[0]), "woken")
	require.LessOrEqual(t, add(), 4, "a take after it")

	// Every waiter goes at the turn planned for it, wake-ups late or not: the limiter the gate
	// holds once the queue is empty is the plan's.
	g.mu.Lock()
	want, wantAt := g.plan.l, g.plan.at
	g.mu.Unlock()
	for queued(g) > 0 {
		f.Advance(37 * time.Millisecond)
		requirePlanIsReplay(t, g, f.Now())
	}
	got, ws2 := g.Limiter().Status(wantAt), want.Status(wantAt)
	require.Equal(t, ws2.Remaining, got.Remaining)
	require.True(t, got.Full.Equal(ws2.Full), "full again at %v, planned %v", got.Full, ws2.Full)
}
