package schedule

import (
	"context"
	"errors"
	"fmt"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/clock"
	"github.com/numerus-closus/numerus/keyed"
)

// Acquire takes cost tokens for subject from l, sleeping out each refusal's RetryAfter until a
// check is admitted, and returns the admitted Decision: Wait for a per-subject limit, such as one
// that several processes share through a Redis store. Each refusal takes nothing, so a wait
// costs one check per refusal and nothing more.
//
// It returns at once, with the latest Decision and an error, when:
//   - ctx is already done (ctx.Err());
//   - l fails (an invalid cost, a store that cannot be reached): l's error, which for a cost above
//     the policy's capacity matches ErrNever as well as numerus.ErrInvalidArgument;
//   - the check will never be admitted (RetryAfter is Never): an error matching ErrNever, which
//     is also the answer for a faulty store that refuses with no wait;
//   - it would be admitted only at or after ctx's deadline (a *DeadlineError).
//
// Each check is charged at the instant the store makes it, on the store's clock (or the one given
// by keyed.WithClock): the admitted check at the instant Acquire lets its caller go, not at the
// instant a sleep was for. It sleeps on the system clock: l must decide on a clock that moves
// with it, the store's own (as by default) or the real time given by keyed.WithClock. Under a
// clock that stands still or replays the past, each wake-up meets the same refusal again, until
// ctx ends.
//
// If ctx is done while it sleeps, Acquire returns ctx.Err(). Waiters on one subject are not
// served in order, least of all across processes: each checks again when its own wait ends, and
// those the limit then admits go first; the rest wait again.
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
