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

// Or returns the limiter that admits a debit if a or b admits it, and charges each of them that
// does. It refuses only if both refuse, with the earliest of their answers. Its status is the most
// remaining and limit and the latest Full (when every child is full again). Each child admits no
// more than its own policy, but debits of different costs can take more in all than the most of
// the limits: a child that refused a large debit keeps its tokens for a smaller one (a bucket of
// 2 and a window of 5 admit 4, which only the window takes, and then 2 from the bucket).
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
	return &allOf{children: append([]Limiter(nil), ls...), last: kernel.MinInstant}
}

// AnyOf is Or over any number of limiters; it copies ls. AnyOf() is AlwaysDeny and AnyOf(l) is l.
func AnyOf(ls ...Limiter) Limiter {
	switch len(ls) {
	case 0:
		return AlwaysDeny()
	case 1:
		return ls[0]
	}
	return &anyOf{children: append([]Limiter(nil), ls...), last: kernel.MinInstant}
}

// allOf and anyOf keep the time rule as a whole: an instant earlier than the latest one the
// composite admitted at counts as that one for every child, including the children of an Or that
// took no part in that admission (which would otherwise free capacity early).
type allOf struct {
	children []Limiter
	last     int64 // the kernel instant of the latest admission, or kernel.MinInstant
}

// effective returns at, or the latest instant admitted at, last, if at is earlier, in at's location.
func effective(at time.Time, last int64) time.Time {
	if instant(at) >= last {
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

func (l *allOf) Debit(at time.Time) (Limiter, NextDebitable, bool) { return l.DebitN(at, 1) }

func (l *allOf) DebitN(at time.Time, cost int64) (Limiter, NextDebitable, bool) {
	eff := effective(at, l.last)
	if from, ok := l.checkAt(eff, cost); !ok {
		return l, l.search(from, cost), false
	}
	next := make([]Limiter, len(l.children))
	for i, c := range l.children {
		n, from, ok := c.DebitN(eff, cost)
		if !ok { // a child that is not a pure value changed its mind
			return l, l.search(from, cost), false
		}
		next[i] = n
	}
	return &allOf{children: next, last: instant(eff)}, DebitableFrom(at), true
}

// check answers like DebitN, without building the limiter that follows.
func (l *allOf) check(at time.Time, cost int64) (NextDebitable, bool) {
	return l.checkAt(effective(at, l.last), cost)
}

// checkAt asks every child whether it admits the debit at at, not before l.last, without keeping
// what they become: the answer is the latest of theirs, Never as soon as one says Never.
func (l *allOf) checkAt(at time.Time, cost int64) (NextDebitable, bool) {
	from, all := DebitableFrom(at), true
	for _, c := range l.children {
		if f, ok := check(c, at, cost); !ok {
			from, all = Latest(from, f), false
			if from.IsNever() {
				return from, false
			}
		}
	}
	return from, all
}

// search moves from on until every child admits the debit there, for at most 64 rounds.
func (l *allOf) search(from NextDebitable, cost int64) NextDebitable {
	for range limits.Search {
		t, finite := from.Time()
		if !finite {
			return from
		}
		moved, ok := l.checkAt(t, cost)
		if ok || !moved.After(from) {
			return from
		}
		from = moved
	}
	return Never()
}

func (l *allOf) Status(at time.Time) Status {
	at = effective(at, l.last)
	s := Status{Limit: kernel.Unlimited, Remaining: kernel.Unlimited, Full: DebitableFrom(at)}
	for _, c := range l.children {
		cs := c.Status(at)
		s.Limit, s.Remaining = min(s.Limit, cs.Limit), min(s.Remaining, cs.Remaining)
		s.Full = Latest(s.Full, cs.Full)
	}
	return s
}

func (l *allOf) String() string { return join(l.children, " & ") }

type anyOf struct {
	children []Limiter
	last     int64 // as allOf's
}

func (l *anyOf) Debit(at time.Time) (Limiter, NextDebitable, bool) { return l.DebitN(at, 1) }

func (l *anyOf) DebitN(at time.Time, cost int64) (Limiter, NextDebitable, bool) {
	eff := effective(at, l.last)
	var next []Limiter
	from := Never()
	for i, c := range l.children {
		n, f, ok := c.DebitN(eff, cost)
		if ok && next == nil {
			next = append(make([]Limiter, 0, len(l.children)), l.children[:i]...)
		}
		if next != nil {
			next = append(next, n)
		}
		from = Earliest(from, f)
	}
	if next == nil {
		return l, from, false
	}
	return &anyOf{children: next, last: instant(eff)}, DebitableFrom(at), true
}

func (l *anyOf) check(at time.Time, cost int64) (NextDebitable, bool) {
	at = effective(at, l.last)
	from := Never()
	for _, c := range l.children {
		f, ok := check(c, at, cost)
		if ok {
			return f, true
		}
		from = Earliest(from, f)
	}
	return from, false
}

func (l *anyOf) Status(at time.Time) Status {
	at = effective(at, l.last)
	s := Status{Full: DebitableFrom(at)}
	for _, c := range l.children {
		cs := c.Status(at)
		s.Limit, s.Remaining = max(s.Limit, cs.Limit), max(s.Remaining, cs.Remaining)
		s.Full = Latest(s.Full, cs.Full)
	}
	return s
}

func (l *anyOf) String() string { return join(l.children, " | ") }

func join(ls []Limiter, sep string) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = l.String()
		if _, nested := l.(*allOf); nested || strings.Contains(parts[i], " | ") {
			parts[i] = "(" + parts[i] + ")"
		}
	}
	return strings.Join(parts, sep)
}
