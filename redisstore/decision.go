package redisstore

import (
	"time"

	"github.com/numerus-closus/numerus/keyed"
)

// FailOpen returns d when err is nil, and otherwise an admission with zero counts and waits:
// the caller chose to let traffic through when the store cannot be reached. It hides err, so
// log err first. An invalid argument is a bug, not an outage: don't let it reach FailOpen.
func FailOpen(d keyed.Decision, err error) keyed.Decision {
	if err == nil {
		return d
	}
	return keyed.Decision{Allowed: true, RetryAfter: keyed.WaitFor(0), ResetAfter: keyed.WaitFor(0), RefillAfter: keyed.WaitFor(0)}
}

// FailClosed returns d when err is nil, and otherwise a refusal to retry after the given delay:
// when the store cannot be reached, the caller chose to turn traffic away. It hides err, so log
// it first. The refusal reports a zero Limit and Remaining; ResetAfter and RefillAfter equal
// RetryAfter.
func FailClosed(d keyed.Decision, err error, retry time.Duration) keyed.Decision {
	if err == nil {
		return d
	}
	w := keyed.WaitFor(retry)
	return keyed.Decision{RetryAfter: w, ResetAfter: w, RefillAfter: w}
}
