package keyed

import (
	"time"

	"github.com/numerus-closus/numerus/internal/inplace"
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
	// FullAfter is how long until the subject is full again if no further tokens are taken,
	// rounded up: DurationOf(0) when it is full, never when it never refills (a spent finite
	// bucket). It is the wait until the instant that Status.Full of package numerus reports.
	// (The zero Duration is never, not a zero wait.)
	FullAfter Duration
	// RetryAfter is how long until the same check would be admitted, rounded up: DurationOf(0) on
	// an admission, never when it never will be (a finite bucket spent, with no other way
	// through). Waiting it out is never early: the same check, with no other traffic, is admitted
	// then.
	RetryAfter Duration
	// RefillAfter is how long until the subject holds one token more than Remaining if no
	// further tokens are taken, rounded up: DurationOf(0) when it is full, never when it never
	// refills. It is the time until additional quota that RateLimit's t reports.
	RefillAfter Duration
	// Binding is the index, among the limits of the policy in the order its notation writes
	// them, of the one whose tokens Remaining counts: for an And the limit with the fewest left,
	// for an Or the one with the most. It is 0 for a policy of one limit.
	Binding int
}

// Duration is how long until an event, or never: the waits of a [Decision]. Durations are
// rounded up to the resolution of the store that computed them (the nanosecond for the memory
// store), so waiting them out is never early.
//
// The zero Duration is never, so that a wait nobody set can never be mistaken for "now".
type Duration struct {
	d      time.Duration
	finite bool
}

// DurationOf returns the finite Duration d; a negative d counts as zero.
func DurationOf(d time.Duration) Duration { return Duration{d: max(d, 0), finite: true} }

// Duration returns the duration, and false for never.
func (w Duration) Duration() (time.Duration, bool) { return w.d, w.finite }

// IsNever reports whether w is never (the zero Duration).
func (w Duration) IsNever() bool { return !w.finite }

// Seconds returns the wait in whole seconds, rounded up (as HTTP's delay-seconds want it), and
// false for never.
func (w Duration) Seconds() (int64, bool) {
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
func (w Duration) String() string {
	if !w.finite {
		return "never"
	}
	return w.d.String()
}

// waitUntil returns the Duration from at until t (both in nanoseconds since the Unix epoch): never
// for never (math.MaxInt64), zero if t is not after at.
func waitUntil(t, at int64) Duration {
	if t == kernel.Never {
		return Duration{}
	}
	return Duration{d: time.Duration(max(t-at, 0)), finite: true}
}

// SetOutcome makes d the Decision of what an in-place debit or peek reported at at (nanoseconds
// since the Unix epoch), for this repository's stores. It is no part of keyed's API: its
// argument's type lies in an internal package, which no other module can name.
func (d *Decision) SetOutcome(o inplace.Outcome, ok bool, at int64) {
	// Field by field, into the caller's Decision: one built here and returned as a value would
	// be copied, which costs more than the decision itself.
	d.Allowed, d.Remaining, d.Limit = ok, max(o.Remaining, 0), o.Limit
	d.FullAfter, d.RetryAfter = waitUntil(o.Full, at), waitUntil(o.Retry, at)
	d.RefillAfter, d.Binding = waitUntil(o.Next, at), o.Binds
	if ok {
		d.RetryAfter = DurationOf(0) // at, even the last instant, which waitUntil would read as never
	}
}

// Debit takes cost tokens at at from a subject in state s under p, all or nothing, and returns
// the state to keep and the Decision: what a store that keeps typed States runs for
// [Store.Acquire]. Refused, it returns s itself. A cost below 1 panics: stores check it first.
func Debit(p typed.Policy, s typed.State, at time.Time, cost int64) (typed.State, Decision) {
	var d Decision
	ns := kernel.FromTime(at)
	o, ok := p.InPlace(inplace.Key{}).DebitIn(&s, ns, cost)
	d.SetOutcome(o, ok, ns)
	return s, d
}

// Inspect returns what [Store.Peek] answers for a subject in state s under p at at: Allowed if
// one token could be taken, otherwise the wait until one can; the balance and the reset as Debit
// reports them. It takes nothing.
func Inspect(p typed.Policy, s typed.State, at time.Time) (d Decision) {
	ns := kernel.FromTime(at)
	o, ok := p.InPlace(inplace.Key{}).PeekIn(&s, ns)
	d.SetOutcome(o, ok, ns)
	return d
}
