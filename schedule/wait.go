package schedule

import (
	"context"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/clock"
)

// Wait sleeps until l admits a debit of cost, debits it, and returns the limiter that follows
// and the instant it was charged, read after the last sleep. It returns early, with l, ctx's
// error, ErrNever when l can never admit the debit, or a *DeadlineError when it would only at or
// after ctx's deadline. A cost below 1 panics. Share a limiter through a [Gate].
func Wait(ctx context.Context, l numerus.Limiter, cost int64) (numerus.Limiter, time.Time, error) {
	return wait(ctx, clock.Real{}, l, cost)
}

func wait(ctx context.Context, clk clock.Clock, l numerus.Limiter, cost int64) (numerus.Limiter, time.Time, error) {
	checkCost(cost)
	for {
		if err := ctx.Err(); err != nil {
			return l, time.Time{}, err
		}
		now := clk.Now()
		next, from, ok := l.DebitN(now, cost)
		if ok {
			return next, now, nil
		}
		at, ok := later(now, from)
		if !ok { // Never, or a refusal no lawful limiter answers
			return l, time.Time{}, never(l, cost)
		}
		if err := tooLate(ctx, at); err != nil {
			return l, time.Time{}, err
		}
		sleep(ctx, clk, at.Sub(now))
	}
}

// later returns the instant of a refusal's answer at at, if it is after at; false for Never, or
// for an answer no lawful limiter gives.
func later(at time.Time, from numerus.NextDebitable) (time.Time, bool) {
	t, finite := from.Time()
	return t, finite && t.After(at)
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
