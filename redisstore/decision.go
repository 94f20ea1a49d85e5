package redisstore

import "time"

// Decision is the store's answer to a check. A refusal is a Decision, never an error.
//
// The zero Decision is a refusal that can never succeed, of a limit of zero.
type Decision struct {
	// Allowed reports whether the check was admitted (for Peek: whether one token is available).
	Allowed bool
	// Remaining is the whole tokens left after the check (rounded down): on a refusal, the
	// untouched balance.
	Remaining int64
	// Limit is the policy's capacity: the least of an And, the most of an Or.
	Limit int64
	// RetryAfter is how long until the same check would be admitted: zero when it was, Never
	// when it never will be (a cost above the capacity, a finite bucket spent).
	RetryAfter Wait
	// ResetAfter is how long until the subject is full again with no further checks: Never
	// when a finite bucket was spent.
	ResetAfter Wait
}

// Wait is a duration until an event, or Never. Durations come from the script in whole
// microseconds, rounded up, so waiting them out is never early.
//
// The zero Wait is Never, so that an answer nobody set can never be mistaken for a wait.
type Wait struct {
	d      time.Duration
	finite bool
}

// WaitFor returns the finite Wait d (negative durations count as zero).
func WaitFor(d time.Duration) Wait { return Wait{d: max(d, 0), finite: true} }

// Never returns the Wait that never ends.
func Never() Wait { return Wait{} }

// Duration returns the duration, and false for Never.
func (w Wait) Duration() (time.Duration, bool) { return w.d, w.finite }

// IsNever reports whether w is Never.
func (w Wait) IsNever() bool { return !w.finite }

// String returns "never" or the duration.
func (w Wait) String() string {
	if !w.finite {
		return "never"
	}
	return w.d.String()
}

// FailOpen returns d when err is nil, and otherwise an admission: when the store cannot be
// reached, the caller chose to let traffic through. It hides err, so log it first:
//
//	d, err := store.Acquire(ctx, policy, subject, 1)
//	if err != nil {
//		log.Print(err)
//	}
//	d = redisstore.FailOpen(d, err)
//
// The admission reports a zero Limit and Remaining, and zero waits.
func FailOpen(d Decision, err error) Decision {
	if err == nil {
		return d
	}
	return Decision{Allowed: true, RetryAfter: WaitFor(0), ResetAfter: WaitFor(0)}
}

// FailClosed returns d when err is nil, and otherwise a refusal to retry after the given delay:
// when the store cannot be reached, the caller chose to turn traffic away. It hides err, so log
// it first. The refusal reports a zero Limit and Remaining; ResetAfter equals RetryAfter.
func FailClosed(d Decision, err error, retry time.Duration) Decision {
	if err == nil {
		return d
	}
	return Decision{RetryAfter: WaitFor(retry), ResetAfter: WaitFor(retry)}
}
