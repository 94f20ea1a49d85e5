package schedule

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/numerus-closus/numerus"
)

// ErrNever is matched (with errors.Is) by the error of a wait for a debit that the limiter will
// never admit, such as a cost above its capacity. Such a wait returns at once.
var ErrNever = errors.New("schedule: never admitted")

// DeadlineError reports that a debit would be admitted only at or after the context's deadline,
// so the caller was not made to wait for nothing: it returns at once and consumes nothing. It
// matches context.DeadlineExceeded. At tells a caller what to advise, as in a Retry-After.
type DeadlineError struct {
	At       time.Time // when the debit would be admitted
	Deadline time.Time // the context's deadline
}

// Error returns "schedule: admission at <at> is not before the deadline <deadline>".
func (e *DeadlineError) Error() string {
	return "schedule: admission at " + e.At.Format(time.RFC3339Nano) +
		" is not before the deadline " + e.Deadline.Format(time.RFC3339Nano)
}

// Unwrap returns context.DeadlineExceeded.
func (e *DeadlineError) Unwrap() error { return context.DeadlineExceeded }

func never(l numerus.Limiter, cost int64) error {
	return fmt.Errorf("%w: cost %d under %v", ErrNever, cost, l)
}

// tooLate returns the error for an admission at at, or nil when ctx has no deadline or at is
// before it.
func tooLate(ctx context.Context, at time.Time) error {
	if dl, ok := ctx.Deadline(); ok && !at.Before(dl) {
		return &DeadlineError{At: at, Deadline: dl}
	}
	return nil
}

func checkCost(cost int64) {
	if cost < 1 {
		panic(fmt.Sprintf("schedule: cost %d is below 1", cost))
	}
}
