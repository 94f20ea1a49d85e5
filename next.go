package numerus

import "time"

// NextDebitable says when a refused debit can succeed: from an instant on (DebitableFrom), or
// Never, which is ordered after every instant.
//
// The zero NextDebitable is Never. Like time.Time, one answer has several representations
// (DebitableFrom(at.Add(d)) and DebitableAfter(at, d) are the same): compare answers with Equal or
// Compare, not ==.
type NextDebitable struct {
	at    time.Time
	after int64 // 0 for Never; otherwise 1 + the nanoseconds from at to the instant, wrapping
}

// DebitableFrom returns the answer "the debit succeeds at t and after".
func DebitableFrom(t time.Time) NextDebitable { return NextDebitable{at: t, after: 1} }

// DebitableAfter returns the answer "the debit succeeds d after at, and after": the same answer as
// DebitableFrom(at.Add(d)), whose instant it computes only when asked, so that a refusal costs no
// time arithmetic. A negative d counts as zero.
func DebitableAfter(at time.Time, d time.Duration) NextDebitable {
	// after wraps to MinInt64 for d = MaxInt64, and Time's after − 1 wraps back.
	return NextDebitable{at: at, after: int64(max(d, 0)) + 1}
}

// Never returns the answer "the debit can never succeed", after every instant.
func Never() NextDebitable { return NextDebitable{} }

// Time returns the instant, and false for Never.
func (n NextDebitable) Time() (time.Time, bool) {
	switch n.after {
	case 0:
		return time.Time{}, false
	case 1:
		return n.at, true
	}
	return n.at.Add(time.Duration(n.after - 1)), true
}

// IsNever reports whether n is Never.
func (n NextDebitable) IsNever() bool { return n.after == 0 }

// Wait returns how long after at the debit succeeds (zero if it already can), and false for
// Never. A wait longer than a time.Duration holds is the longest Duration.
func (n NextDebitable) Wait(at time.Time) (time.Duration, bool) {
	t, ok := n.Time()
	if !ok {
		return 0, false
	}
	return max(t.Sub(at), 0), true
}

// Compare returns -1, 0 or +1 as n is before, equal to or after m. Never equals Never.
func (n NextDebitable) Compare(m NextDebitable) int {
	nt, nok := n.Time()
	mt, mok := m.Time()
	switch {
	case nok && mok:
		return nt.Compare(mt)
	case nok:
		return -1
	case mok:
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
	t, ok := n.Time()
	if !ok {
		return "never"
	}
	return "from " + t.Format(time.RFC3339Nano)
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
