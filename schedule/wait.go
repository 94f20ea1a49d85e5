package schedule

import (
	"context"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/clock"
)

// Wait sleeps until l admits a debit of cost and returns the limiter that follows it. The caller
// owns l: Wait is for one goroutine's own limiter value; share a limiter through a Gate.
//
// It returns at once, with l and an error, when:
//   - ctx is already done (ctx.Err());
//   - l will never admit the debit (an error matching ErrNever), which is also the answer for a
//     faulty l that refuses it with an instant not after the one asked;
//   - the debit would be admitted only at or after ctx's deadline (a *DeadlineError, matching
//     context.DeadlineExceeded).
//
// If ctx is done while it sleeps, Wait returns l and ctx.Err(): a cancelled wait consumes nothing.
//
// Wait debits at the instant it slept for, not at the later one its timer wakes it at, so that
// the runtime's timer latency is not taken from the rate: consecutive Waits on a limiter admit at
// the policy's intervals on the limiter's timeline, as a Gate does, and the calls they let go may
// come closer together than that by at most one wake-up's lateness.
// A cost below 1 is a programmer error: Wait panics.
func Wait(ctx context.Context, l numerus.Limiter, cost int64) (numerus.Limiter, error) {
	return wait(ctx, clock.Real{}, l, cost)
}

func wait(ctx context.Context, clk clock.Clock, l numerus.Limiter, cost int64) (numerus.Limiter, error) {
	checkCost(cost)
	var due time.Time // the instant the last sleep was for, or zero
	for {
		if err := ctx.Err(); err != nil {
			return l, err
		}
		now := clk.Now()
		t := now
		if !due.IsZero() && due.Before(now) { // a late wake-up debits at its turn: see Wait
			t = due
		}
		next, from, ok := l.DebitN(t, cost)
		if ok {
			return next, nil
		}
		at, finite := from.Time()
		if !finite || !at.After(t) { // Never, or a refusal no lawful limiter answers
			return l, never(l, cost)
		}
		if !at.After(now) { // turned down at its turn by a limiter not tight at its answers
			due = time.Time{}
			continue
		}
		if err := tooLate(ctx, at); err != nil {
			return l, err
		}
		sleep(ctx, clk, at.Sub(now))
		due = at
	}
}

// sleep returns after d, or as soon as ctx is done.
func sleep(ctx context.Context, clk clock.Clock, d time.Duration) {
	t := clk.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C():
	case <-ctx.Done():
	}
}
