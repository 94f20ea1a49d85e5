package schedule

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/clock"
)

// A Gate holds a numerus.Limiter that many goroutines take from, first in, first out: no take
// passes a waiter, so a large one is never starved by small ones. A take is charged when the gate
// lets its caller go; a waiter whose context ends takes nothing.
//
// The zero Gate admits nothing: every take fails with ErrNever. A Gate must not be copied after
// first use.
type Gate struct {
	mu     sync.Mutex
	l      numerus.Limiter
	clk    clock.Clock
	paused time.Time   // nothing is admitted before it
	queue  []*waiter   // the head is queue[0]
	plan   plan        // the queue played through the planner, while it stands
	timer  clock.Timer // armed for the head's turn, or nil
	gen    uint64      // bumped at each disarm, so a timer that fired late does nothing
}

type waiter struct {
	cost     int64
	turn     time.Time     // the instant the plan admits it at
	deadline time.Time     // its context's, or zero for none
	wake     chan struct{} // holds a token once it is the head and may go, or has failed
	err      error         // why the gate failed it and took it out of the queue, or nil
}

// NewGate returns a gate holding l. Its clock is the wall time at NewGate plus the monotonic
// time elapsed since, so its instants never step back and a wall clock set back does not stall
// it. A nil l admits nothing.
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
// them; it never waits. If it takes, from is now, the instant charged. If not, from is when this
// take would be admitted behind the current waiters if nothing else happened, or Never. A cost
// below 1 is a programmer error: TryTake panics.
func (g *Gate) TryTake(cost int64) (from numerus.NextDebitable, ok bool) {
	checkCost(cost)
	now := g.lock()
	defer g.mu.Unlock()
	if g.admit(now, cost) {
		return numerus.DebitableFrom(now), true
	}
	return g.forecast(now, cost), false
}

// Take waits its turn, takes cost tokens and returns the instant they were charged: the gate's
// clock read after its last wake-up.
//
// It returns, taking nothing, ctx.Err() when ctx ends, an error matching ErrNever when the gate
// will never admit cost, and a *DeadlineError when its turn would come at or after ctx's deadline,
// also when a Pause later moves it there. A cost below 1 panics.
func (g *Gate) Take(ctx context.Context, cost int64) (time.Time, error) {
	checkCost(cost)
	if err := ctx.Err(); err != nil {
		return time.Time{}, err
	}
	deadline, _ := ctx.Deadline()
	at, w, err := g.enqueue(cost, deadline)
	if w == nil {
		return at, err
	}
	for {
		select {
		case <-w.wake:
		case <-ctx.Done():
		}
		if err := ctx.Err(); err != nil {
			return time.Time{}, g.cancel(w, err)
		}
		if at, ok, err := g.claim(w); ok || err != nil {
			return at, err
		}
	}
}

// enqueue takes cost at once (now, nil, nil), fails (zero, nil, err), or queues a waiter for it. A
// zero deadline is none.
func (g *Gate) enqueue(cost int64, deadline time.Time) (time.Time, *waiter, error) {
	now := g.lock()
	defer g.mu.Unlock()
	if g.admit(now, cost) {
		return now, nil, nil
	}
	l, at, ok := g.behind(now, cost)
	if !ok {
		return time.Time{}, nil, never(g.l, cost)
	}
	if !deadline.IsZero() && !at.Before(deadline) {
		return time.Time{}, nil, &DeadlineError{At: at, Deadline: deadline}
	}
	w := &waiter{cost: cost, turn: at, deadline: deadline, wake: make(chan struct{}, 1)}
	g.extend(w, l)
	if len(g.queue) == 1 {
		g.handOn(now)
	}
	return time.Time{}, w, nil
}

// claim is the step of w's own goroutine once woken. If the gate failed w, it returns w's error.
// Otherwise w is the head: claim debits its cost at now, takes it out of the queue, hands on to
// the next head and returns now and true; or, if the gate is paused or the limiter refuses at
// now, it leaves w in its place with the timer armed for its turn, and returns false. A refusal
// that waiting cannot cure fails w with ErrNever instead, and hands on.
func (g *Gate) claim(w *waiter) (time.Time, bool, error) {
	now := g.lock()
	defer g.mu.Unlock()
	if w.err != nil {
		return time.Time{}, false, w.err
	}
	if now.Before(g.paused) {
		g.handOn(now)
		return time.Time{}, false, nil
	}
	next, from, ok := g.l.DebitN(now, w.cost)
	if !ok {
		g.plan.valid = false
		g.disarm()
		if turn, ok := later(now, from); !g.goOn(now, turn, ok) {
			g.handOn(now)
		}
		return time.Time{}, false, w.err
	}
	g.l = next
	g.plan.served(w, now)
	g.pop()
	g.handOn(now)
	return now, true, nil
}

// cancel takes w out of the queue and returns err, unless the gate failed w meanwhile: then w's
// error stands. A head that leaves, woken or not, hands on to the next from now.
func (g *Gate) cancel(w *waiter, err error) error {
	now := g.lock()
	defer g.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	i := slices.Index(g.queue, w)
	g.queue = slices.Delete(g.queue, i, i+1)
	g.plan.valid = false
	if i == 0 {
		g.handOn(now)
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

// handOn lets the head of the queue go on from now: it wakes the head if its turn has come, or
// arms the timer for its turn; a head that has none fails with ErrNever, and the next is handed
// on to. It debits nothing: the head's own goroutine does, at the instant it runs (see claim).
func (g *Gate) handOn(now time.Time) {
	g.disarm()
	for len(g.queue) > 0 {
		turn, ok := g.headTurn(g.start(now))
		if g.goOn(now, turn, ok) {
			return
		}
	}
}

// headTurn returns the head's turn from at: the plan's if it stands, else the limiter's answer
// at at (a debit whose result is dropped); false if the head has none.
func (g *Gate) headTurn(at time.Time) (time.Time, bool) {
	w := g.queue[0]
	if g.plan.ok && g.plan.exact && g.plan.standsAt(at, w) {
		return w.turn, true
	}
	_, from, ok := g.l.DebitN(at, w.cost)
	if ok {
		return at, true
	}
	return later(at, from)
}

// goOn wakes the head if turn has come by now, or arms the timer for turn, and returns true; if
// the head has no turn (ok false), it fails it with ErrNever and returns false. The timer is
// disarmed.
func (g *Gate) goOn(now, turn time.Time, ok bool) bool {
	switch {
	case !ok:
		w := g.pop()
		w.err = never(g.l, w.cost)
		wake(w)
		g.plan.valid = false
		return false
	case now.Before(turn):
		g.arm(now, turn)
	default:
		wake(g.queue[0])
	}
	return true
}

// pop takes the head out of the queue and returns it.
func (g *Gate) pop() *waiter {
	w := g.queue[0]
	g.queue[0] = nil
	g.queue = g.queue[1:]
	return w
}

// wake gives w a token, unless it holds one.
func wake(w *waiter) {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (g *Gate) arm(now, at time.Time) {
	gen := g.gen
	g.timer = g.clk.AfterFunc(at.Sub(now), func() { g.fire(gen) })
}

func (g *Gate) disarm() {
	g.gen++
	if g.timer != nil {
		g.timer.Stop()
		g.timer = nil
	}
}

// fire wakes the head, for which the timer of generation gen was armed, unless the timer was
// disarmed since.
func (g *Gate) fire(gen uint64) {
	g.lock()
	defer g.mu.Unlock()
	if gen == g.gen {
		g.timer = nil
		wake(g.queue[0])
	}
}

// Pause makes the gate admit nothing before until, as an upstream asks with a Retry-After.
// Waiters keep their places; those whose turn now comes at or after their deadline fail at once
// with a *DeadlineError. A pause never shortens an earlier one. An instant with a monotonic
// reading counts by it, one without (a parsed date) by its wall time.
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
		g.handOn(now)
	}
}

// Update replaces the limiter with f of it, atomically: f is called once, with the gate locked,
// on the limiter the gate holds and the gate's instant now, and its result decides every take
// from then on. Waiters keep their places; those whose turn now comes at or after their deadline
// fail at once, as after a Pause. A nil result admits nothing. f must not call the gate's
// methods.
func (g *Gate) Update(f func(l numerus.Limiter, now time.Time) numerus.Limiter) {
	now := g.lock()
	defer g.mu.Unlock()
	g.l = f(g.l, now)
	if g.l == nil {
		g.l = numerus.AlwaysDeny()
	}
	g.plan.valid = false
	if len(g.queue) > 0 {
		g.dropLate(now)
		g.handOn(now)
	}
}

// dropLate plays the queue through the planner from now and fails, with a *DeadlineError, each
// waiter whose turn comes at or after its deadline, without charging its cost to those behind it.
func (g *Gate) dropLate(now time.Time) {
	l, at := g.l, g.start(now)
	kept := g.queue[:0]
	for i, w := range g.queue {
		next, turn, ok := first(l, at, w.cost)
		if !ok { // never admitted: handOn tells it so, in its turn
			kept = append(kept, g.queue[i:]...)
			break
		}
		if !w.deadline.IsZero() && !turn.Before(w.deadline) {
			w.err = &DeadlineError{At: turn, Deadline: w.deadline}
			wake(w)
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
