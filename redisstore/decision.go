package redisstore

import (
	"time"

	"github.com/numerus-closus/numerus/keyed"
)

// FailOpen returns d when err is nil, and otherwise an admission: when the store cannot be
// reached, the caller chose to let traffic through. It hides err, so log it first:
//
//	d, err := limiter.TryAcquire(ctx, subject, 1)
//	if err != nil {
//		log.Print(err)
//	}
//	d = redisstore.FailOpen(d, err)
//
// The admission reports a zero Limit and Remaining, and zero waits (RefillAfter too). An error for an invalid
// argument (numerus.ErrInvalidArgument) is a bug of the caller, not an outage: check for it
// before, if it can happen.
func FailOpen(d keyed.Decision, err error) keyed.Decision {
	if err == nil {
		return d
	}
	return keyed.Decision{Allowed: true, RetryAfter: keyed.DurationOf(0), FullAfter: keyed.DurationOf(0), RefillAfter: keyed.DurationOf(0)}
}

// FailClosed returns d when err is nil, and otherwise a refusal to retry after the given delay:
// when the store cannot be reached, the caller chose to turn traffic away. It hides err, so log
// it first. The refusal reports a zero Limit and Remaining; FullAfter and RefillAfter equal
// RetryAfter.
func FailClosed(d keyed.Decision, err error, retry time.Duration) keyed.Decision {
	if err == nil {
		return d
	}
	w := keyed.DurationOf(retry)
	return keyed.Decision{RetryAfter: w, FullAfter: w, RefillAfter: w}
}
