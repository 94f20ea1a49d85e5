package schedule

import (
	"context"
	"iter"
	"slices"
	"sync"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/clock"
)

// A Gate holds a numerus.Limiter that many goroutines take from. It is the one mutable thing in
// numerus: a mutex around an immutable limiter value, and a queue of waiters.
//
//   - TryTake takes at once or not at all; Take waits, as long as its context allows.
//   - Waiters are served first in, first out: a waiter that asks for much blocks those behind it
//     until it is served, so it is never starved by a stream of small takes. TryTake does not pass
//     waiters either.
//   - One timer, armed for the waiter at the head of the queue, wakes only the waiters it admits,
//     each once: no thundering herd, and no goroutine of the gate's own between wake-ups.
//   - A waiter whose context is done leaves the queue and consumes nothing.
//   - Pause and RetryAfter hold the gate closed until an instant the upstream names (a 429 with
//     Retry-After, an SMTP 421): pull-fashion quotas on top of the limiter's own push-fashion one.
//     A waiter whose turn the pause moves to or past its context's deadline fails at once, as
//     Take would have failed had it been called then.
//
// The zero Gate holds no limiter and admits nothing: every take fails with ErrNever. A Gate must
// not be copied after first use.
type Gate struct {
	mu     sync.Mutex
	l      numerus.Limiter
	clk    clock.Clock
	paused time.Time   // nothing is admitted before it
	queue  []*waiter   // the head is queue[0]
	plan   plan        // the queue played through the planner, while it stands
	timer  clock.Timer // armed for the head, or nil
	due    time.Time   // the instant the timer is armed for
	gen    uint64      // bumped at each disarm, so a timer that fired late does nothing
}

type waiter struct {
	cost     int64
	turn     time.Time     // the instant the plan admits it at
	deadline time.Time     // its context's, or zero for none
	done     chan struct{} // closed when served: admitted, or failed with err
	err      error
}

// NewGate returns a gate holding l, reading the system clock steadily: the wall time at NewGate
// plus the monotonic time elapsed since, so that the gate's instants never step back and a later
// setting of the wall clock does not stall it (a limiter counts an instant earlier than its last
// as the last, so a clock set back an hour would hold every take for an hour). Over a long life
// the gate's instants drift from the wall clock by the system's slewing and suspensions. A nil l
// admits nothing.
func NewGate(l numerus.Limiter) *Gate { return newGate(l, clock.NewSteady()) }

func newGate(l numerus.Limiter, clk clock.Clock) *Gate { return &Gate{l: l, clk: clk} }

// lock takes the mutex, fills in the zero Gate's defaults and reads the clock.
func (g *Gate) lock() time.Time {
	g.mu.Lock()
	if g.l == nil {
		g.l = numerus.AlwaysDeny()
	}
	if g.clk == nil {
		g.clk = clock.NewSteady()
	}
	return g.clk.Now()
}

// TryTake takes cost tokens now if nobody waits, the gate is not paused and the limiter admits
// them; it never waits. If it takes, from is now. If not, from is when this take would be
// admitted behind the current waiters if nothing else happened, or Never. A cost below 1 is a
// programmer error: TryTake panics.
func (g *Gate) TryTake(cost int64) (from numerus.NextDebitable, ok bool) {
	checkCost(cost)
	now := g.lock()
	defer g.mu.Unlock()
	if g.admit(now, cost) {
		return numerus.DebitableFrom(now), true
	}
	return g.forecast(now, cost), false
}

// Take waits its turn and takes cost tokens. It returns nil once they are taken. It returns at
// once with an error, taking nothing, when ctx is already done, when the gate will never admit
// cost (an error matching ErrNever), or when its turn would come only at or after ctx's deadline
// (a *DeadlineError, matching context.DeadlineExceeded). If ctx is done while it waits, it leaves
// the queue, takes nothing and returns ctx.Err(); if a Pause moves its turn to or past ctx's
// deadline, it leaves at once with a *DeadlineError. A cost below 1 is a programmer error: Take
// panics.
func (g *Gate) Take(ctx context.Context, cost int64) error {
	checkCost(cost)
	if err := ctx.Err(); err != nil {
		return err
	}
	deadline, _ := ctx.Deadline()
	w, err := g.enqueue(cost, deadline)
	if w == nil {
		return err
	}
	select {
	case <-w.done:
		return w.err
	case <-ctx.Done():
		return g.cancel(w, ctx.Err())
	}
}

// enqueue takes cost at once (nil, nil), fails (nil, err), or queues a waiter for it. A zero
// deadline is none.
func (g *Gate) enqueue(cost int64, deadline time.Time) (*waiter, error) {
	now := g.lock()
	defer g.mu.Unlock()
	if g.admit(now, cost) {
		return nil, nil
	}
	l, at, ok := g.behind(now, cost)
	if !ok {
		return nil, never(g.l, cost)
	}
	if !deadline.IsZero() && !at.Before(deadline) {
		return nil, &DeadlineError{At: at, Deadline: deadline}
	}
	w := &waiter{cost: cost, turn: at, deadline: deadline, done: make(chan struct{})}
	g.extend(w, l)
	if len(g.queue) == 1 {
		g.serve(now, now)
	}
	return w, nil
}

// cancel takes w out of the queue and returns err, unless w was served meanwhile: then what it
// was served stands.
func (g *Gate) cancel(w *waiter, err error) error {
	now := g.lock()
	defer g.mu.Unlock()
	select {
	case <-w.done:
		return w.err
	default:
	}
	i := slices.Index(g.queue, w)
	g.queue = slices.Delete(g.queue, i, i+1)
	g.plan.valid = false
	if i == 0 { // from the turn of a late wake-up, if one is due: see start
		g.serve(g.start(now), now)
	}
	return err
}

// admit debits cost at now if nobody waits, the gate is open and the limiter admits it.
func (g *Gate) admit(now time.Time, cost int64) bool {
	if len(g.queue) > 0 || now.Before(g.paused) {
		return false
	}
	next, _, ok := g.l.DebitN(now, cost)
	if ok {
		g.l = next
	}
	return ok
}

// serve admits, in order, the waiters at the head of the queue whose turns have come by now, each
// at its turn, and arms the timer for the first whose turn has not. Turns are counted from at: now,
// or the instant a timer that fired late was armed for, so that a timer's lateness is not taken
// from the rate (each admission is the policy's interval after the last on the limiter's
// timeline, and the forecasts stay exact) and the waiters whose turns passed meanwhile go at once.
func (g *Gate) serve(at, now time.Time) {
	g.disarm()
	for steps := 0; len(g.queue) > 0; {
		w := g.queue[0]
		if at = latest(at, g.paused); now.Before(at) {
			g.arm(now, at)
			return
		}
		next, from, ok := g.l.DebitN(at, w.cost)
		if !ok {
			if t, finite := from.Time(); finite && t.After(at) { // its turn, by now or later
				if steps++; steps > numerus.MaxSearch { // a limiter not tight at its answers
					t = latest(t, now)
				}
				at = t
				continue
			}
			w.err = never(g.l, w.cost) // Never, or a refusal no lawful limiter answers
		} else {
			g.l = next
		}
		g.plan.served(w, at, ok)
		steps = 0
		g.queue[0] = nil
		g.queue = g.queue[1:]
		close(w.done)
	}
}

func (g *Gate) arm(now, at time.Time) {
	gen := g.gen
	g.due = at
	g.timer = g.clk.AfterFunc(at.Sub(now), func() { g.fire(gen) })
}

func (g *Gate) disarm() {
	g.gen++
	if g.timer != nil {
		g.timer.Stop()
		g.timer = nil
	}
}

func (g *Gate) fire(gen uint64) {
	now := g.lock()
	defer g.mu.Unlock()
	if gen == g.gen {
		g.timer = nil
		g.serve(earliest(g.due, now), now)
	}
}

// Pause makes the gate admit nothing before until, as an upstream asks with a Retry-After: waiters
// stay queued in order and TryTake refuses. A waiter whose turn now comes at or after its
// context's deadline leaves the queue at once, its Take failing with a *DeadlineError (matching
// context.DeadlineExceeded) whose At is that turn; those behind it move up. The limiter's state
// is kept as it is; it goes on refilling with time. A pause never shortens an earlier one: of
// several, the latest instant holds. A pause that ends now or earlier (a Retry-After of 0, a
// date already past) changes nothing.
//
// The gate reads until on its own clock (see NewGate): an instant with a monotonic reading, such
// as time.Now().Add(d), as that long after now; one without, such as a date parsed from a header,
// by its wall time, which the gate's clock may have drifted from. RetryAfter takes the duration
// itself.
func (g *Gate) Pause(until time.Time) {
	now := g.lock()
	defer g.mu.Unlock()
	g.pause(now, now.Add(until.Sub(now))) // on the gate's timeline, which the limiter reads
}

// RetryAfter is Pause(now + d), with now read from the gate's clock.
func (g *Gate) RetryAfter(d time.Duration) {
	now := g.lock()
	defer g.mu.Unlock()
	g.pause(now, now.Add(d))
}

func (g *Gate) pause(now, until time.Time) {
	if !until.After(g.paused) || !until.After(now) { // an earlier pause holds, or this one is over
		return
	}
	g.paused = until
	g.plan.valid = false
	if len(g.queue) > 0 {
		g.dropLate(now)
		g.serve(now, now)
	}
}

// dropLate plays the queue through the planner from now and fails, with a *DeadlineError, each
// waiter whose turn comes at or after its deadline, without charging its cost to those behind it.
func (g *Gate) dropLate(now time.Time) {
	l, at := g.l, latest(now, g.paused)
	kept := g.queue[:0]
	for i, w := range g.queue {
		next, turn, ok := first(l, at, w.cost)
		if !ok { // never admitted: serve tells it so, in its turn
			kept = append(kept, g.queue[i:]...)
			break
		}
		if !w.deadline.IsZero() && !turn.Before(w.deadline) {
			w.err = &DeadlineError{At: turn, Deadline: w.deadline}
			close(w.done)
			continue
		}
		l, at = next, turn
		kept = append(kept, w)
	}
	clear(g.queue[len(kept):])
	g.queue = kept
}

// Limiter returns the limiter the gate holds now: the policy with everything admitted so far.
func (g *Gate) Limiter() numerus.Limiter {
	g.lock()
	defer g.mu.Unlock()
	return g.l
}

// Schedule applies the pure planner, numerus.Schedule, to the gate as it is now: the instants at
// which back-to-back takes of cost would be admitted, behind the current waiters and after the
// pause, if nothing else took from the gate; each with the limiter that would follow. It is a
// snapshot: the gate is not changed, and later takes do not change the sequence.
func (g *Gate) Schedule(cost int64) iter.Seq2[time.Time, numerus.Limiter] {
	checkCost(cost)
	now := g.lock()
	defer g.mu.Unlock()
	l, at, ok := g.afterQueue(now)
	if !ok {
		return func(func(time.Time, numerus.Limiter) bool) {}
	}
	return numerus.Schedule(l, at, cost)
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
	if g.plan.standsAt(start, g.queue[0]) {
		return g.plan.l, g.plan.at, g.plan.ok
	}
	l, at, ok := g.l, start, true
	for _, w := range g.queue {
		if ok {
			l, at, ok = first(l, at, w.cost)
		}
		w.turn = at
	}
	g.plan = plan{valid: true, l: l, at: at, ok: ok}
	return l, at, ok
}

// start returns the instant the queue's play starts from: now, or the end of the pause, or the
// instant the head's timer was armed for if that has passed (its wake-up is late, and admits the
// head at that instant).
func (g *Gate) start(now time.Time) time.Time {
	at := latest(now, g.paused)
	if g.timer != nil && g.due.Before(at) {
		return g.due
	}
	return at
}

// extend queues w, whose turn behind the waiters leaves the limiter l, and makes the plan
// include it: the caller found that turn by behind, whose play of the queue is the plan.
func (g *Gate) extend(w *waiter, l numerus.Limiter) {
	g.queue = append(g.queue, w)
	g.plan = plan{valid: true, l: l, at: w.turn, ok: true}
}

// earliest returns the earlier of a and b.
func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// latest returns the later of a and b.
func latest(a, b time.Time) time.Time {
	if a.Before(b) {
		return b
	}
	return a
}

// first returns the limiter after the first admission of cost from at, and its instant: the first
// element of numerus.Schedule(l, at, cost), without the iterator.
func first(l numerus.Limiter, at time.Time, cost int64) (numerus.Limiter, time.Time, bool) {
	for range numerus.MaxSearch {
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

// plan is the queue played through the planner (numerus.Schedule, one take per waiter): the
// limiter once every waiter is served and the instant the last one is (ok false if one never
// is), and each waiter's turn in its turn field.
//
// A take that must wait needs it, to fail at once if its turn would come too late, so the gate
// keeps it rather than playing a queue of n waiters again for each new one. A new waiter extends
// it by its own take. An admission of the head at its turn leaves the rest of it as it was: the
// limiter is a pure value, and the same debit at the same instant leaves the same limiter. It
// answers a play from any instant up to the head's turn, as from the instant it was played from:
// a lawful limiter that refuses a take at an instant and admits it first at a later one refuses
// it at every instant between. Anything else drops it, and the next take that must wait plays
// the queue again: a waiter that leaves, a pause, or a head admitted at another instant than its
// turn or never (under a limiter not tight at its answers).
type plan struct {
	valid bool
	l     numerus.Limiter
	at    time.Time
	ok    bool
}

// standsAt reports whether the plan answers a play from start, head being the queue's head:
// whether start is not after the head's turn. (Nor is it before the instant the plan was played
// from, or the turn of the latest waiter served: the gate's clock and its pause never step back.)
func (p *plan) standsAt(start time.Time, head *waiter) bool {
	return p.valid && !start.After(head.turn)
}

// served keeps the rest of the plan after w, the head, was admitted at at (ok) or failed (!ok),
// if w was admitted at its turn; otherwise it drops it.
func (p *plan) served(w *waiter, at time.Time, ok bool) {
	p.valid = p.valid && ok && at.Equal(w.turn)
}
