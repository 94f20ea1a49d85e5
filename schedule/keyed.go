package schedule

import (
	"context"
	"errors"
	"fmt"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/clock"
	"github.com/numerus-closus/numerus/keyed"
)

// Acquire takes cost tokens for subject from l, sleeping through refusals, and returns the
// admitted Decision. l must decide on a clock that moves with the system clock; waiters on one
// subject are not served in order. It returns early, with the latest Decision, ctx's or l's
// error, ErrNever when the check can never be admitted, or a *DeadlineError when it would be only
// at or after ctx's deadline.
func Acquire[S any](ctx context.Context, l keyed.Limiter[S], subject S, cost int64) (keyed.Decision, error) {
	return acquire(ctx, clock.Real{}, l, subject, cost)
}

func acquire[S any](ctx context.Context, clk clock.Clock, l keyed.Limiter[S], subject S, cost int64) (keyed.Decision, error) {
	var d keyed.Decision
	for {
		if err := ctx.Err(); err != nil {
			return d, err
		}
		var err error
		if d, err = l.TryAcquire(ctx, subject, cost); err != nil || d.Allowed {
			return d, aboveCapacity(err, cost)
		}
		wait, finite := d.RetryAfter.Duration()
		if !finite || wait <= 0 { // Never, or a refusal no lawful store answers
			return d, fmt.Errorf("%w: cost %d for %v under %v", ErrNever, cost, subject, l.Policy())
		}
		if err := tooLate(ctx, clk.Now().Add(wait)); err != nil {
			return d, err
		}
		sleep(ctx, clk, wait)
	}
}

// aboveCapacity returns err, matching ErrNever too when it is a keyed limiter's refusal of a cost
// above its capacity, which Wait and Gate.Take report as ErrNever.
func aboveCapacity(err error, cost int64) error {
	var pe *numerus.ParamError
	if cost >= 1 && errors.As(err, &pe) && pe.Param == "cost" {
		return fmt.Errorf("%w: %w", ErrNever, err)
	}
	return err
}
