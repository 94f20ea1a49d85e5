package keyed

import (
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/kernel"
	"github.com/numerus-closus/numerus/typed"
)

// Decision is the answer to a check of a subject's limit. It is a value: a refusal is a Decision
// with Allowed false, never an error.
//
// The zero Decision is a refusal that can never succeed, of a limit of zero: an answer nobody
// set can never be mistaken for an admission or for a wait.
type Decision struct {
	// Allowed reports whether the tokens were taken (for Peek: whether one token is available).
	Allowed bool
	// Remaining is the whole tokens left, rounded down: after the debit on an admission, and the
	// untouched balance on a refusal. For an And it is the least of its children's, for an Or the
	// most.
	Remaining int64
	// Limit is the most tokens the subject can hold: the policy's capacity (the least of an And,
	// the most of an Or).
	Limit int64
	// ResetAfter is how long until the subject is full again if no further tokens are taken,
	// rounded up: zero when it is full, Never when it never refills (a spent finite bucket).
	ResetAfter Wait
	// RetryAfter is how long until the same check would be admitted, rounded up: zero on an
	// admission, Never when it never will be (a finite bucket spent, with no other way through).
	// Waiting it out is never early: the same check, with no other traffic, is admitted then.
	RetryAfter Wait
}

// Wait is a duration until an event, or Never. Durations are rounded up to the resolution of the
// store that computed them (the nanosecond for the memory store), so waiting them out is never
// early.
//
// The zero Wait is Never, so that a wait nobody set can never be mistaken for "now".
type Wait struct {
	d      time.Duration
	finite bool
}

// WaitFor returns the finite Wait d; a negative d counts as zero.
func WaitFor(d time.Duration) Wait { return Wait{d: max(d, 0), finite: true} }

// Never returns the Wait that never ends.
func Never() Wait { return Wait{} }

// Duration returns the duration, and false for Never.
func (w Wait) Duration() (time.Duration, bool) { return w.d, w.finite }

// IsNever reports whether w is Never.
func (w Wait) IsNever() bool { return !w.finite }

// Seconds returns the wait in whole seconds, rounded up (as HTTP's delay-seconds want it), and
// false for Never.
func (w Wait) Seconds() (int64, bool) {
	if !w.finite {
		return 0, false
	}
	s := int64(w.d / time.Second)
	if w.d%time.Second != 0 {
		s++
	}
	return s, true
}

// String returns "never" or the duration, as in "1.5s".
func (w Wait) String() string {
	if !w.finite {
		return "never"
	}
	return w.d.String()
}

// waitUntil returns the Wait from at (in kernel nanoseconds) until n: Never for Never, zero if n
// is not after at. Answers of package typed lie within the kernel's range, so their UnixNano is
// exact.
func waitUntil(n numerus.NextDebitable, at int64) Wait {
	t, ok := n.Time()
	if !ok {
		return Never()
	}
	return WaitFor(time.Duration(t.UnixNano() - at))
}

// Debit takes cost tokens at at from a subject in state s under p, all or nothing, and returns
// the state to keep and the Decision: it is what a store that keeps typed States runs for
// [Store.Acquire]. Refused, it returns s itself, so a store that writes only admissions changes
// nothing on a refusal. A cost below 1 panics, as in package typed: stores check it first.
func Debit(p typed.Policy, s typed.State, at time.Time, cost int64) (typed.State, Decision) {
	next, from, ok := p.DebitN(s, at, cost)
	return next, decide(ok, from, p.Status(next, at), at)
}

// DebitIn is Debit on a state kept in place: admitted, *s becomes the next state; refused, *s is
// left as it was. It saves a store the copies of a State.
func DebitIn(p typed.Policy, s *typed.State, at time.Time, cost int64) Decision {
	next, from, ok := p.DebitN(*s, at, cost)
	if ok {
		*s = next
	}
	return decide(ok, from, p.Status(*s, at), at)
}

// Inspect returns what [Store.Peek] answers for a subject in state s under p at at: Allowed if
// one token could be taken, otherwise the wait until one can; the balance and the reset as Debit
// reports them. It takes nothing.
func Inspect(p typed.Policy, s typed.State, at time.Time) Decision {
	_, from, ok := p.DebitN(s, at, 1)
	return decide(ok, from, p.Status(s, at), at)
}

func decide(ok bool, from numerus.NextDebitable, st numerus.Status, at time.Time) Decision {
	ns := kernel.FromTime(at)
	d := Decision{Allowed: ok, Remaining: max(st.Remaining, 0), Limit: st.Limit, ResetAfter: waitUntil(st.Full, ns)}
	if ok {
		d.RetryAfter = WaitFor(0)
	} else {
		d.RetryAfter = waitUntil(from, ns)
	}
	return d
}
