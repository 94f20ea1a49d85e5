package typed

import (
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/kernel"
)

// And is the typed limiter that admits a debit only if both A and B admit it, and then charges
// both, with numerus.And's semantics: if either refuses, neither is charged and the answer is the
// latest of theirs. Its status is the least limit and remaining and the latest Full. Nest Ands for
// more limiters: NewAnd(a, NewAnd(b, c)).
//
// The zero And holds zero children and so denies every debit.
type And[A Limiter[A], B Limiter[B]] struct {
	a A
	b B
}

// NewAnd returns the And of a and b.
func NewAnd[A Limiter[A], B Limiter[B]](a A, b B) And[A, B] {
	return And[A, B]{a: a, b: b}
}

// Debit takes one token at at. It is DebitN(at, 1).
func (l And[A, B]) Debit(at time.Time) (And[A, B], numerus.NextDebitable, bool) {
	n, ok := l.take(at, 1)
	return l, n, ok
}

// DebitN takes cost tokens from both children at at, or from neither. A cost below 1 panics.
func (l And[A, B]) DebitN(at time.Time, cost int64) (And[A, B], numerus.NextDebitable, bool) {
	n, ok := l.take(at, cost)
	return l, n, ok
}

// take is DebitN on the receiver's copy, in place: Debit and DebitN are small enough to be
// inlined, so that the value is copied once into the call and once out of it, and an And of
// several limiters is too large for registers.
func (l *And[A, B]) take(at time.Time, cost int64) (numerus.NextDebitable, bool) {
	if ns, ok := kernel.Instant(at); ok {
		switch from, v := fastAnd(l, ns, cost); v {
		case kernel.Admitted:
			return numerus.DebitableFrom(at), true
		case kernel.Refused:
			return numerus.DebitableAfter(at, time.Duration(from-ns)), false
		}
	}
	ns := kernel.FromTime(at)
	next, from, ok := l.debit(max(ns, l.latest()), cost) // the time rule, for the tree as a whole
	if ok {
		*l = next
		return numerus.DebitableFrom(at), true
	}
	return refusal(from, ns, at), false
}

func (l And[A, B]) debit(at, cost int64) (And[A, B], int64, bool) {
	na, fa, oka := l.a.debit(at, cost)
	if !oka && fa == kernel.Never {
		return l, fa, false
	}
	nb, fb, okb := l.b.debit(at, cost)
	// Unlike numerus.And, no search confirms the latest answer: a typed limiter's answer is exact
	// and one that admits a debit at an instant admits it at every later one, so both admit the
	// latest answer (a property test checks it against numerus.And).
	if from, ok := kernel.Fold(true, at, fa, oka, fb, okb); !ok {
		return l, from, false
	}
	return And[A, B]{na, nb}, at, true
}

// Status reports the least limit and remaining of the children and the latest instant at which
// both are full. It is pure.
func (l And[A, B]) Status(at time.Time) numerus.Status {
	return toStatus(l.status(max(kernel.FromTime(at), l.latest())), at)
}

func (l And[A, B]) status(at int64) kernel.Status {
	s := kernel.Combine(true, l.a.status(at), l.b.status(at))
	s.Full = max(s.Full, at)
	return s
}

func (l And[A, B]) latest() int64 { return max(l.a.latest(), l.b.latest()) }

func (l And[A, B]) advance(at int64) And[A, B] {
	return And[A, B]{l.a.advance(at), l.b.advance(at)}
}

// String names the policy in the notation, as in "gcra 10/s burst 5 & window 1000/h".
func (l And[A, B]) String() string {
	return join(true, l.a.String(), l.a.spec().Algo, l.b.String(), l.b.spec().Algo)
}

func (l And[A, B]) spec() Spec {
	return Spec{Algo: AlgoAnd, Of: []Spec{l.a.spec(), l.b.spec()}}
}

func (l And[A, B]) state(dst [][]int64) [][]int64 { return l.b.state(l.a.state(dst)) }

func (And[A, B]) restore(sp Spec, st *states) (And[A, B], error) {
	a, b, err := restorePair[A, B](sp, kindAnd, st)
	return NewAnd(a, b), err
}

// restorePair restores the two children of an And or Or.
func restorePair[A Limiter[A], B Limiter[B]](sp Spec, k kind, st *states) (A, B, error) {
	var a A
	var b B
	if sp.Algo.kind() != k || len(sp.Of) != 2 {
		return a, b, mismatch(sp.Algo, k.algo())
	}
	a, err := a.restore(sp.Of[0], st)
	if err != nil {
		return a, b, err
	}
	b, err = b.restore(sp.Of[1], st)
	return a, b, err
}

// AppendBinary appends the snapshot of l: its whole tree of policies and states.
func (l And[A, B]) AppendBinary(dst []byte) ([]byte, error) { return appendSnapshot(dst, l) }

// MarshalBinary returns the snapshot of l.
func (l And[A, B]) MarshalBinary() ([]byte, error) { return appendSnapshot(nil, l) }

// UnmarshalBinary sets *l to the And a snapshot saved, validated like every typed limiter's.
func (l *And[A, B]) UnmarshalBinary(data []byte) error { return readSnapshot(l, data) }

// MarshalJSON returns the snapshot of l as JSON.
func (l And[A, B]) MarshalJSON() ([]byte, error) { return snapshotJSON(l) }

// UnmarshalJSON sets *l to the And a JSON snapshot saved, validated.
func (l *And[A, B]) UnmarshalJSON(data []byte) error { return readSnapshotJSON(l, data) }

// Or is the typed limiter that admits a debit if A or B admits it, and charges each of them that
// does, with numerus.Or's semantics. It refuses only if both refuse, with the earliest of their
// answers. Its status is the most limit and remaining and the latest Full.
//
// The zero Or holds zero children and so denies every debit.
type Or[A Limiter[A], B Limiter[B]] struct {
	a A
	b B
}

// NewOr returns the Or of a and b.
func NewOr[A Limiter[A], B Limiter[B]](a A, b B) Or[A, B] { return Or[A, B]{a, b} }

// Debit takes one token at at. It is DebitN(at, 1).
func (l Or[A, B]) Debit(at time.Time) (Or[A, B], numerus.NextDebitable, bool) {
	return l.DebitN(at, 1)
}

// DebitN takes cost tokens from every child that admits them at at. A cost below 1 panics.
func (l Or[A, B]) DebitN(at time.Time, cost int64) (Or[A, B], numerus.NextDebitable, bool) {
	ns := kernel.FromTime(at)
	next, from, ok := l.debit(max(ns, l.latest()), cost) // the time rule, for the tree as a whole
	if ok {
		return next, numerus.DebitableFrom(at), true
	}
	return l, refusal(from, ns, at), false
}

// debit charges each child that admits and, when one does, brings the other to at, so that it
// counts every earlier instant as at too.
func (l Or[A, B]) debit(at, cost int64) (Or[A, B], int64, bool) {
	na, fa, oka := l.a.debit(at, cost)
	nb, fb, okb := l.b.debit(at, cost)
	switch {
	case oka && okb:
		return Or[A, B]{na, nb}, at, true
	case oka:
		return Or[A, B]{na, l.b.advance(at)}, at, true
	case okb:
		return Or[A, B]{l.a.advance(at), nb}, at, true
	}
	from, _ := kernel.Fold(false, at, fa, oka, fb, okb)
	return l, from, false
}

// Status reports the most limit and remaining of the children and the latest instant at which
// both are full. It is pure.
func (l Or[A, B]) Status(at time.Time) numerus.Status {
	return toStatus(l.status(max(kernel.FromTime(at), l.latest())), at)
}

func (l Or[A, B]) status(at int64) kernel.Status {
	s := kernel.Combine(false, l.a.status(at), l.b.status(at))
	s.Full = max(s.Full, at)
	return s
}

func (l Or[A, B]) latest() int64 { return max(l.a.latest(), l.b.latest()) }

func (l Or[A, B]) advance(at int64) Or[A, B] { return Or[A, B]{l.a.advance(at), l.b.advance(at)} }

// String names the policy in the notation, as in "gcra 5/s burst 5 | gcra 100/m burst 100".
func (l Or[A, B]) String() string {
	return join(false, l.a.String(), l.a.spec().Algo, l.b.String(), l.b.spec().Algo)
}

func (l Or[A, B]) spec() Spec { return Spec{Algo: AlgoOr, Of: []Spec{l.a.spec(), l.b.spec()}} }

func (l Or[A, B]) state(dst [][]int64) [][]int64 { return l.b.state(l.a.state(dst)) }

func (Or[A, B]) restore(sp Spec, st *states) (Or[A, B], error) {
	a, b, err := restorePair[A, B](sp, kindOr, st)
	return Or[A, B]{a, b}, err
}

// AppendBinary appends the snapshot of l: its whole tree of policies and states.
func (l Or[A, B]) AppendBinary(dst []byte) ([]byte, error) { return appendSnapshot(dst, l) }

// MarshalBinary returns the snapshot of l.
func (l Or[A, B]) MarshalBinary() ([]byte, error) { return appendSnapshot(nil, l) }

// UnmarshalBinary sets *l to the Or a snapshot saved, validated like every typed limiter's.
func (l *Or[A, B]) UnmarshalBinary(data []byte) error { return readSnapshot(l, data) }

// MarshalJSON returns the snapshot of l as JSON.
func (l Or[A, B]) MarshalJSON() ([]byte, error) { return snapshotJSON(l) }

// UnmarshalJSON sets *l to the Or a JSON snapshot saved, validated.
func (l *Or[A, B]) UnmarshalJSON(data []byte) error { return readSnapshotJSON(l, data) }

// join writes two children of an And (and) or an Or in the notation (see kernel.Join).
func join(and bool, a string, ka Algo, b string, kb Algo) string {
	return kernel.Join(and, operand(a, ka), operand(b, kb))
}

// operand is a child written s, of algorithm k, as kernel.Join takes it.
func operand(s string, k Algo) kernel.Operand {
	return kernel.Operand{Text: s, And: k == AlgoAnd, Or: k == AlgoOr}
}
