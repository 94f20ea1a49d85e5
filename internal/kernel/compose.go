package kernel

import (
	"strings"
	"time"
)

// This file holds the rules of And and Or, once for every layer: the root's AllOf and AnyOf, the
// typed And and Or, and a typed Policy's tree all combine their children with these functions.
//
//   - Admission: an And admits when every child admits, and then charges each; an Or admits when
//     any child admits, and charges each that does.
//   - Answer of a refusal: an And's is the latest of its children's (Never absorbs), an Or's the
//     earliest.
//   - Status: an And has the least limit and remaining, an Or the most; either is full when every
//     child is, so Full is the latest.
//   - Binding child: in an And the one with the fewest tokens left (ties: the one whose next token
//     comes last), in an Or the one with the most (ties: the next token first); on a refusal, the
//     child whose answer the composite gave.
//   - Time: an instant earlier than the latest one the composite admitted at counts as that one
//     for every child (see Effective).

// Fold adds a child's verdict, its answer f and whether it admitted, to the verdict so far of an
// And (and) or an Or debited at at: from and ok. An And starts from (at, true), an Or from
// (Never, false); after the last child, from is at when ok, else the refusal's answer.
func Fold(and bool, at, from int64, ok bool, f int64, admitted bool) (int64, bool) {
	if and {
		if admitted {
			return from, ok
		}
		return max(from, f), false
	}
	if admitted {
		return at, true
	}
	return min(from, f), ok
}

// Start is the verdict of an And (and) or an Or at at before any child has answered (see Fold).
func Start(and bool, at int64) (int64, bool) {
	if and {
		return at, true
	}
	return Never, false
}

// Counts combines the limit and remaining of two children of an And (and) or an Or.
func Counts(and bool, limit, remaining, olimit, oremaining int64) (int64, int64) {
	if and {
		return min(limit, olimit), min(remaining, oremaining)
	}
	return max(limit, olimit), max(remaining, oremaining)
}

// Combine returns the status of an And (and) or an Or of two children whose statuses are s and o.
func Combine(and bool, s, o Status) Status {
	limit, remaining := Counts(and, s.Limit, s.Remaining, o.Limit, o.Remaining)
	return Status{Limit: limit, Remaining: remaining, Full: max(s.Full, o.Full)}
}

// Binds reports whether a child with remaining tokens left, the next of which comes at next,
// binds an And (and) or an Or rather than the one bound so far, which has brem left and its next
// at bnext.
func Binds(and bool, remaining, next, brem, bnext int64) bool {
	if and {
		return remaining < brem || remaining == brem && next > bnext
	}
	return remaining > brem || remaining == brem && next < bnext
}

// Effective returns at, or last, the latest instant a composite admitted at, if at is earlier:
// the time rule for the tree as a whole.
func Effective(at, last int64) int64 { return max(at, last) }

// Operand is a child of an And or an Or as the notation writes it: its text, and whether it is an
// And or an Or itself. Grouped is a child written in parentheses wherever it stands.
type Operand struct {
	Text             string
	And, Or, Grouped bool
}

// Join writes the children of an And (and) or an Or in the notation, joined with " & " or " | ",
// each in parentheses where Parse needs them to read back the same tree (an Or, or an And within
// an And) and wherever the caller grouped it.
func Join(and bool, ops ...Operand) string {
	sep := " | "
	if and {
		sep = " & "
	}
	var b strings.Builder
	for i, o := range ops {
		if i > 0 {
			b.WriteString(sep)
		}
		if o.Or || o.Grouped || o.And && and {
			b.WriteString("(" + o.Text + ")")
		} else {
			b.WriteString(o.Text)
		}
	}
	return b.String()
}

// Report converts a Status taken at FromTime(at) to the public Status's terms: Remaining never
// below 0, and Full as a time in at's location (see FullTime), finite false for Never.
func (s Status) Report(at time.Time) (limit, remaining int64, full time.Time, finite bool) {
	full, finite = FullTime(s.Full, at)
	return s.Limit, max(s.Remaining, 0), full, finite
}

// Answer converts the answer from of a debit refused at ns = FromTime(at): a wait d after at when
// it is one (see After), else the instant t in at's location, finite false for Never.
func Answer(from, ns int64, at time.Time) (d time.Duration, after bool, t time.Time, finite bool) {
	if d, ok := After(from, ns); ok {
		return d, true, time.Time{}, true
	}
	t, finite = ToTime(from, at.Location())
	return 0, false, t, finite
}
