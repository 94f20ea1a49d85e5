package numerus

import (
	"strings"
	"time"

	"github.com/numerus-closus/numerus/internal/kernel"
	"github.com/numerus-closus/numerus/internal/limits"
)

// AlwaysAllow returns the limiter that admits every debit. Its limit and remaining are
// math.MaxInt64 and it is always full. It is neutral for And.
func AlwaysAllow() Limiter { return allow{} }

// AlwaysDeny returns the limiter that admits nothing: every debit is Never. Its limit and
// remaining are 0 and it is always full (of nothing). It is neutral for Or and absorbing for And.
func AlwaysDeny() Limiter { return deny{} }

type allow struct{}

func (allow) Debit(at time.Time) (Limiter, NextDebitable, bool) {
	return allow{}, DebitableFrom(at), true
}

func (a allow) DebitN(at time.Time, cost int64) (Limiter, NextDebitable, bool) {
	kernel.CheckCost(cost)
	return a.Debit(at)
}

func (allow) Status(at time.Time) Status {
	return Status{Limit: kernel.Unlimited, Remaining: kernel.Unlimited, Full: DebitableFrom(at)}
}

func (allow) String() string { return "allow" }

type deny struct{}

func (d deny) Debit(at time.Time) (Limiter, NextDebitable, bool) { return d.DebitN(at, 1) }

func (deny) DebitN(_ time.Time, cost int64) (Limiter, NextDebitable, bool) {
	kernel.CheckCost(cost)
	return deny{}, Never(), false
}

func (deny) Status(at time.Time) Status { return Status{Full: DebitableFrom(at)} }

func (deny) String() string { return "deny" }

// And returns the limiter that admits a debit only if both a and b admit it, and then charges
// both. If either refuses, neither is charged and the answer is the latest of theirs: Never if
// either says Never. Its status is the least remaining and limit and the latest Full.
func And(a, b Limiter) Limiter { return AllOf(a, b) }

// Or returns the limiter that admits a debit if a or b admits it, charging each child that does,
// and refuses with the earlier answer. Its status is the most remaining and limit and the latest
// Full. Debits of different costs can take more in all than either limit: a child that refused a
// large debit keeps its tokens for a smaller one.
func Or(a, b Limiter) Limiter { return AnyOf(a, b) }

// AllOf is And over any number of limiters; it copies ls. AllOf() is AlwaysAllow and AllOf(l) is l.
//
// The answer of a refusal is searched: the latest of the children's answers, checked against
// every child at that instant, for at most 64 rounds, after which it is Never.
func AllOf(ls ...Limiter) Limiter {
	switch len(ls) {
	case 0:
		return AlwaysAllow()
	case 1:
		return ls[0]
	}
	return &allOf{group{children: append([]Limiter(nil), ls...), last: kernel.MinInstant}}
}

// AnyOf is Or over any number of limiters; it copies ls. AnyOf() is AlwaysDeny and AnyOf(l) is l.
func AnyOf(ls ...Limiter) Limiter {
	switch len(ls) {
	case 0:
		return AlwaysDeny()
	case 1:
		return ls[0]
	}
	return &anyOf{group{children: append([]Limiter(nil), ls...), last: kernel.MinInstant}}
}

// allOf and anyOf are the And and the Or of a group of children: one implementation, group's,
// by the rules of kernel's compose.go, told which it is by the type that holds it (a flag in the
// group would take the value that every admission allocates from 32 bytes to 48).
type (
	allOf struct{ group }
	anyOf struct{ group }
)

// group is the children of an And or an Or. It keeps the time rule as a whole: an instant
// earlier than the latest one the composite admitted at counts as that one for every child,
// including the children of an Or that took no part in that admission (which would otherwise
// free capacity early).
type group struct {
	children []Limiter
	last     int64 // the kernel instant of the latest admission, or kernel.MinInstant
}

func (l *allOf) Debit(at time.Time) (Limiter, NextDebitable, bool) { return l.DebitN(at, 1) }

func (l *allOf) DebitN(at time.Time, cost int64) (Limiter, NextDebitable, bool) {
	eff := effective(at, l.last)
	next, from, ok := l.debitAll(eff, cost)
	if !ok {
		return l, from, false
	}
	return &allOf{group{children: next, last: instant(eff)}}, DebitableFrom(at), true
}

func (l *allOf) check(at time.Time, cost int64) (NextDebitable, bool) {
	return l.checkAt(true, effective(at, l.last), cost)
}

func (l *allOf) Status(at time.Time) Status { return l.status(true, at) }

func (l *allOf) String() string { return l.string(true) }

func (l *anyOf) Debit(at time.Time) (Limiter, NextDebitable, bool) { return l.DebitN(at, 1) }

func (l *anyOf) DebitN(at time.Time, cost int64) (Limiter, NextDebitable, bool) {
	eff := effective(at, l.last)
	next, from, ok := l.debitAny(eff, cost)
	if !ok {
		return l, from, false
	}
	return &anyOf{group{children: next, last: instant(eff)}}, DebitableFrom(at), true
}

func (l *anyOf) check(at time.Time, cost int64) (NextDebitable, bool) {
	return l.checkAt(false, effective(at, l.last), cost)
}

func (l *anyOf) Status(at time.Time) Status { return l.status(false, at) }

func (l *anyOf) String() string { return l.string(false) }

// effective returns at, or the latest instant admitted at, last, if at is earlier, in at's location.
func effective(at time.Time, last int64) time.Time {
	if ns := instant(at); kernel.Effective(ns, last) == ns {
		return at
	}
	t, _ := kernel.ToTime(last, at.Location())
	return t
}

// checker is implemented by the built-in limiters: it answers like DebitN without building the
// limiter that follows, so that combinators can ask before they charge.
type checker interface {
	check(at time.Time, cost int64) (NextDebitable, bool)
}

// check answers like l.DebitN(at, cost), without allocating for the built-in limiters.
func check(l Limiter, at time.Time, cost int64) (NextDebitable, bool) {
	if c, ok := l.(checker); ok {
		return c.check(at, cost)
	}
	_, from, ok := l.DebitN(at, cost)
	return from, ok
}

// debitAll charges every child at at, or none: it asks them all first, and answers a refusal by
// search.
func (l *group) debitAll(at time.Time, cost int64) ([]Limiter, NextDebitable, bool) {
	if from, ok := l.checkAt(true, at, cost); !ok {
		return nil, l.search(from, cost), false
	}
	next := make([]Limiter, len(l.children))
	for i, c := range l.children {
		n, from, ok := c.DebitN(at, cost)
		if !ok { // a child that is not a pure value changed its mind
			return nil, l.search(from, cost), false
		}
		next[i] = n
	}
	return next, DebitableFrom(at), true
}

// debitAny charges each child that admits the debit at at; refused by all, it answers the
// earliest of their answers.
func (l *group) debitAny(at time.Time, cost int64) ([]Limiter, NextDebitable, bool) {
	var next []Limiter
	from := Never()
	for i, c := range l.children {
		n, f, ok := c.DebitN(at, cost)
		if ok && next == nil {
			next = append(make([]Limiter, 0, len(l.children)), l.children[:i]...)
		}
		if next != nil {
			next = append(next, n)
		}
		from = Earliest(from, f)
	}
	return next, from, next != nil
}

// checkAt asks every child whether it admits the debit at at, not before l.last, without keeping
// what they become, and answers like DebitN of an And (and) or an Or. An And answers the latest of the refusals' answers, Never as soon as one says
// Never; an Or the first admission's, or the earliest refusal's.
func (l *group) checkAt(and bool, at time.Time, cost int64) (NextDebitable, bool) {
	from, all := DebitableFrom(at), true
	if !and {
		from = Never()
	}
	for _, c := range l.children {
		f, ok := check(c, at, cost)
		switch {
		case ok && !and:
			return f, true
		case !ok && !and:
			from, all = Earliest(from, f), false
		case !ok:
			if from, all = Latest(from, f), false; from.IsNever() {
				return from, false
			}
		}
	}
	return from, all && and
}

// search moves the answer from of an And on until every child admits the debit there, for at most
// 64 rounds.
func (l *group) search(from NextDebitable, cost int64) NextDebitable {
	for range limits.Search {
		t, finite := from.Time()
		if !finite {
			return from
		}
		moved, ok := l.checkAt(true, t, cost)
		if ok || !moved.After(from) {
			return from
		}
		from = moved
	}
	return Never()
}

// status reports, for an And (and), the least limit and remaining of the children, for an Or the
// most, and the latest Full.
func (l *group) status(and bool, at time.Time) Status {
	at = effective(at, l.last)
	s := Status{Full: DebitableFrom(at)}
	if and {
		s.Limit, s.Remaining = kernel.Unlimited, kernel.Unlimited
	}
	for _, c := range l.children {
		cs := c.Status(at)
		s.Limit, s.Remaining = kernel.Counts(and, s.Limit, s.Remaining, cs.Limit, cs.Remaining)
		s.Full = Latest(s.Full, cs.Full)
	}
	return s
}

// string writes the children of an And (and) or an Or in the notation (see kernel.Join). A
// nested And is grouped in parentheses even within an Or, and a child whose text holds " | " is
// taken for an Or.
func (l *group) string(and bool) string {
	ops := make([]kernel.Operand, len(l.children))
	for i, c := range l.children {
		s := c.String()
		_, nested := c.(*allOf)
		ops[i] = kernel.Operand{Text: s, Grouped: nested, Or: strings.Contains(s, " | ")}
	}
	return kernel.Join(and, ops...)
}
