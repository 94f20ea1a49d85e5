package numerus

import "time"

// NextDebitable says when a refused debit can succeed: from an instant on (DebitableFrom), or
// Never. Values are ordered, with Never after every instant, so combinators can take the latest or
// the earliest of several answers.
//
// The zero NextDebitable is Never: an answer nobody set can never be mistaken for a wait.
type NextDebitable struct {
	at time.Time
	ok bool
}

// DebitableFrom returns the answer "the debit succeeds at t and after".
func DebitableFrom(t time.Time) NextDebitable { return NextDebitable{at: t, ok: true} }

// Never returns the answer "the debit can never succeed", after every instant.
func Never() NextDebitable { return NextDebitable{} }

// Time returns the instant, and false for Never.
func (n NextDebitable) Time() (time.Time, bool) { return n.at, n.ok }

// IsNever reports whether n is Never.
func (n NextDebitable) IsNever() bool { return !n.ok }

// Wait returns how long after at the debit succeeds (zero if it already can), and false for Never.
func (n NextDebitable) Wait(at time.Time) (time.Duration, bool) {
	if !n.ok {
		return 0, false
	}
	return max(n.at.Sub(at), 0), true
}

// Compare returns -1, 0 or +1 as n is before, equal to or after m. Never equals Never.
func (n NextDebitable) Compare(m NextDebitable) int {
	switch {
	case n.ok && m.ok:
		return n.at.Compare(m.at)
	case n.ok:
		return -1
	case m.ok:
		return 1
	}
	return 0
}

// Before reports whether n comes before m.
func (n NextDebitable) Before(m NextDebitable) bool { return n.Compare(m) < 0 }

// After reports whether n comes after m.
func (n NextDebitable) After(m NextDebitable) bool { return n.Compare(m) > 0 }

// Equal reports whether n and m are the same instant (or both Never).
func (n NextDebitable) Equal(m NextDebitable) bool { return n.Compare(m) == 0 }

// String returns "never" or "from " and the instant in RFC 3339 with nanoseconds.
func (n NextDebitable) String() string {
	if !n.ok {
		return "never"
	}
	return "from " + n.at.Format(time.RFC3339Nano)
}

// Latest returns the later of a and b: the answer of an And.
func Latest(a, b NextDebitable) NextDebitable {
	if a.Before(b) {
		return b
	}
	return a
}

// Earliest returns the earlier of a and b: the answer of an Or.
func Earliest(a, b NextDebitable) NextDebitable {
	if b.Before(a) {
		return b
	}
	return a
}
