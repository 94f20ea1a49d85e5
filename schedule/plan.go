package schedule

import (
	"iter"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/limits"
)

// Admissions applies the pure planner, numerus.Admissions, to the gate as it is now: the instants at
// which back-to-back takes of cost would be admitted, behind the current waiters and after the
// pause, if nothing else took from the gate and every wake-up came on time; each with the limiter
// that would follow. It is a snapshot: the gate is not changed, and later takes do not change the
// sequence.
func (g *Gate) Admissions(cost int64) iter.Seq2[time.Time, numerus.Limiter] {
	checkCost(cost)
	now := g.lock()
	defer g.mu.Unlock()
	l, at, ok := g.afterQueue(now)
	if !ok {
		return func(func(time.Time, numerus.Limiter) bool) {}
	}
	return numerus.Admissions(l, at, cost)
}

// forecast returns when a take of cost would be admitted behind the waiters.
func (g *Gate) forecast(now time.Time, cost int64) numerus.NextDebitable {
	if _, at, ok := g.behind(now, cost); ok {
		return numerus.DebitableFrom(at)
	}
	return numerus.Never()
}

// behind returns the limiter after a take of cost behind the waiters, and that take's turn;
// false if it is never admitted.
func (g *Gate) behind(now time.Time, cost int64) (numerus.Limiter, time.Time, bool) {
	l, at, ok := g.afterQueue(now)
	if ok {
		l, at, ok = first(l, at, cost)
	}
	return l, at, ok
}

// afterQueue plays the queue through the planner from start(now): the limiter once every waiter
// is served, and the instant the last one is; false if one never is. It answers from the plan
// while the plan stands, and otherwise plays the queue again and keeps that as the plan.
func (g *Gate) afterQueue(now time.Time) (numerus.Limiter, time.Time, bool) {
	start := g.start(now)
	if len(g.queue) == 0 {
		return g.l, start, true
	}
	if g.plan.standsAt(start, g.queue[0]) && (g.plan.exact || len(g.queue) > maxExactPlay) {
		return g.plan.l, g.plan.at, g.plan.ok
	}
	l, at, ok := g.l, start, true
	for _, w := range g.queue {
		if ok {
			l, at, ok = first(l, at, w.cost)
		}
		w.turn = at
	}
	g.plan = plan{valid: true, exact: true, l: l, at: at, ok: ok}
	return l, at, ok
}

// maxExactPlay is the longest queue whose play the gate keeps exact after a waiter was charged
// later than its turn: playing it again costs about two debits a waiter. A longer queue keeps
// the play it has, whose turns are then no later than the true ones (see plan).
const maxExactPlay = 256

// start returns the instant the queue's play starts from: now, or the end of the pause. A head
// whose turn has passed, woken but not yet run, would go now.
func (g *Gate) start(now time.Time) time.Time { return latest(now, g.paused) }

// extend queues w, whose turn behind the waiters leaves the limiter l, and makes the plan
// include it: the caller found that turn by behind, whose play of the queue is the plan.
func (g *Gate) extend(w *waiter, l numerus.Limiter) {
	g.queue = append(g.queue, w)
	g.plan = plan{valid: true, exact: g.plan.exact, l: l, at: w.turn, ok: true}
}

// latest returns the later of a and b.
func latest(a, b time.Time) time.Time {
	if a.Before(b) {
		return b
	}
	return a
}

// first returns the limiter after the first admission of cost from at, and its instant: the first
// element of numerus.Admissions(l, at, cost), without the iterator.
func first(l numerus.Limiter, at time.Time, cost int64) (numerus.Limiter, time.Time, bool) {
	for range limits.Search {
		next, from, ok := l.DebitN(at, cost)
		if ok {
			return next, at, true
		}
		t, finite := from.Time()
		if !finite {
			break
		}
		at = t
	}
	return l, at, false
}

// plan is the queue played through the planner (numerus.Admissions, one take per waiter): the
// limiter once every waiter is served and the instant the last one is (ok false if one never
// is), and each waiter's turn in its turn field.
//
// A take that must wait needs it, to fail at once if its turn would come too late, so the gate
// keeps it rather than playing a queue of n waiters again for each new one. A new waiter extends
// it by its own take. A head charged at its turn leaves the rest of it as it was: the limiter is
// a pure value, and the same debit at the same instant leaves the same limiter. It answers a play
// from any instant up to the head's turn, as from the instant it was played from: a lawful limiter
// that refuses a take at an instant and admits it first at a later one refuses it at every
// instant between. A head charged later than its turn (a late wake-up, which moves every turn
// behind it later, never earlier: a debit charged later leaves a lawful limiter no more
// permissive at any later instant) leaves a play whose turns are lower bounds of the true ones:
// the plan keeps it as inexact, and the next take that must wait plays a queue of at most
// maxExactPlay waiters again; a longer queue keeps the bounds, which still fail at once, soundly,
// a take whose turn would come too late, and forecast no later than the truth. Anything else
// drops it: a waiter that leaves (which moves turns earlier), a pause, a head refused at its
// wake-up.
type plan struct {
	valid, exact bool
	l            numerus.Limiter
	at           time.Time
	ok           bool
}

// standsAt reports whether the plan answers a play from start, head being the queue's head: an
// exact plan while start is not after the head's turn (nor is it before the instant the plan was
// played from, or the instant the latest waiter was charged at: the gate's clock and its pause
// never step back); an inexact one from any start, as the lower bound it is.
func (p *plan) standsAt(start time.Time, head *waiter) bool {
	return p.valid && (!p.exact || !start.After(head.turn))
}

// served keeps the rest of the plan after w, the head, was charged at at: exact if at is w's
// turn, as lower bounds if it is later.
func (p *plan) served(w *waiter, at time.Time) {
	p.exact = p.exact && at.Equal(w.turn)
}
