package numerus

import (
	"time"

	"github.com/numerus-closus/numerus/internal/kernel"
)

// A Limiter is an immutable rate-limiter value. Debit and DebitN never change the receiver: they
// return the limiter that follows an admitted debit, or say when the same debit could succeed. An
// old value stays valid, so a caller may branch, retry, or peek by discarding the result.
//
// Implementations must be safe for concurrent use and pass the laws of package numerustest.
type Limiter interface {
	// Debit takes one token at the instant at. It is DebitN(at, 1).
	Debit(at time.Time) (next Limiter, from NextDebitable, ok bool)
	// DebitN takes cost tokens at once, all or nothing. If the limiter admits them, ok is true,
	// next is the limiter that follows and from is DebitableFrom(at). Otherwise ok is false, next
	// is the receiver, unchanged, and from is the earliest instant at which the same debit would be
	// admitted, or Never. A cost below 1 is a programmer error: DebitN panics.
	DebitN(at time.Time, cost int64) (next Limiter, from NextDebitable, ok bool)
	// Status reports, at the instant at, the limit, the tokens remaining and when the limiter is
	// back to full. It is pure: it takes nothing.
	Status(at time.Time) Status
	// String names the policy, as in "gcra 10/s burst 5".
	String() string
}

// Status is what a limiter reports at an instant, as needed for decisions and response headers.
// The zero Status describes a limiter of no capacity that is never full.
type Status struct {
	// Limit is the most tokens the limiter can hold; math.MaxInt64 means unlimited.
	Limit int64
	// Remaining is the whole tokens a debit could take now, rounded down.
	Remaining int64
	// Full is when the limiter is back to full with no further debits: the instant itself when it
	// is full already, Never when it never refills.
	Full NextDebitable
}

// instant converts t to nanoseconds since the Unix epoch, clamped to the range int64 can hold
// (the years 1677 to 2262): an earlier instant counts as the earliest, a later one as the latest.
func instant(t time.Time) int64 { return kernel.FromTime(t) }

// refusal converts a kernel's refusal answer from, of a debit at ns = instant(at), to a
// NextDebitable in the location of at: without time arithmetic when it can (see DebitableAfter).
func refusal(from, ns int64, at time.Time) NextDebitable {
	switch d, after, t, finite := kernel.Answer(from, ns, at); {
	case after:
		return DebitableAfter(at, d)
	case finite:
		return DebitableFrom(t)
	}
	return Never()
}

// status converts a kernel's status at at (see kernel.Status.Report).
func status(s kernel.Status, at time.Time) Status {
	limit, remaining, t, finite := s.Report(at)
	full := Never()
	if finite {
		full = DebitableFrom(t)
	}
	return Status{Limit: limit, Remaining: remaining, Full: full}
}
