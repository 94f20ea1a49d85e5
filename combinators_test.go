package numerus_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/limits"
)

// drawLimiter draws a built-in limiter of a random kind and returns it with its span.
func drawLimiter(t *rapid.T, label string) (numerus.Limiter, int64) {
	p := drawPolicy(t, rapid.SampledFrom(kinds).Draw(t, label))
	return p.l, p.span
}

// decideAlike fails t unless a and b give the same answers along events from t0, each following
// its own admitted results; with status, their Status must agree too.
func decideAlike(t *rapid.T, a, b numerus.Limiter, events []event, status bool) {
	t.Helper()
	at := t0
	for i, e := range events {
		at = at.Add(time.Duration(e.step))
		na, fa, oka := a.DebitN(at, e.cost)
		nb, fb, okb := b.DebitN(at, e.cost)
		if oka != okb || !fa.Equal(fb) {
			t.Fatalf("debit %d at %v cost %d: %s: %v %v; %s: %v %v", i, at, e.cost, a, oka, fa, b, okb, fb)
		}
		if sa, sb := a.Status(at), b.Status(at); status && !sameStatus(sa, sb) {
			t.Fatalf("debit %d at %v: %s: status %+v; %s: %+v", i, at, a, sa, b, sb)
		}
		if oka {
			a, b = na, nb
		}
	}
}

// TestCombinatorLaws checks with rapid the algebra of And and Or over random built-in limiters:
// both commutative and associative (AllOf and AnyOf agreeing with the nested forms), AlwaysAllow
// neutral for And and absorbing for Or, AlwaysDeny neutral for Or and absorbing for And, and
// And(a, a) deciding like a.
func TestCombinatorLaws(t *testing.T) {
	three := func(t *rapid.T) (a, b, c numerus.Limiter, events []event) {
		a, sa := drawLimiter(t, "a")
		b, sb := drawLimiter(t, "b")
		c, sc := drawLimiter(t, "c")
		return a, b, c, drawTimeline(t, max(sa, sb, sc), 5, 40)
	}
	laws := map[string]func(*rapid.T){
		"and/commutative": func(t *rapid.T) {
			a, b, _, ev := three(t)
			decideAlike(t, numerus.And(a, b), numerus.And(b, a), ev, true)
		},
		"or/commutative": func(t *rapid.T) {
			a, b, _, ev := three(t)
			decideAlike(t, numerus.Or(a, b), numerus.Or(b, a), ev, true)
		},
		"and/associative": func(t *rapid.T) {
			a, b, c, ev := three(t)
			decideAlike(t, numerus.And(numerus.And(a, b), c), numerus.And(a, numerus.And(b, c)), ev, true)
			decideAlike(t, numerus.And(numerus.And(a, b), c), numerus.AllOf(a, b, c), ev, true)
		},
		"or/associative": func(t *rapid.T) {
			a, b, c, ev := three(t)
			decideAlike(t, numerus.Or(numerus.Or(a, b), c), numerus.Or(a, numerus.Or(b, c)), ev, true)
			decideAlike(t, numerus.Or(numerus.Or(a, b), c), numerus.AnyOf(a, b, c), ev, true)
		},
		"allow/neutral-for-and": func(t *rapid.T) {
			a, _, _, ev := three(t)
			decideAlike(t, numerus.And(a, numerus.AlwaysAllow()), a, ev, true)
		},
		"allow/absorbing-for-or": func(t *rapid.T) {
			a, _, _, ev := three(t)
			decideAlike(t, numerus.Or(a, numerus.AlwaysAllow()), numerus.AlwaysAllow(), ev, false)
		},
		"deny/neutral-for-or": func(t *rapid.T) {
			a, _, _, ev := three(t)
			decideAlike(t, numerus.Or(a, numerus.AlwaysDeny()), a, ev, true)
		},
		"deny/absorbing-for-and": func(t *rapid.T) {
			a, _, _, ev := three(t)
			decideAlike(t, numerus.And(numerus.AlwaysDeny(), a), numerus.AlwaysDeny(), ev, false)
		},
		"and/idempotent": func(t *rapid.T) {
			a, _, _, ev := three(t)
			decideAlike(t, numerus.And(a, a), a, ev, true)
		},
	}
	for name, law := range laws {
		t.Run(name, rapid.MakeCheck(law))
	}
}

// TestCombinatorCharges checks And and Or against their children, tracked one by one: And admits
// when both admit and charges both, and otherwise charges neither and answers the latest of the
// refusals; Or admits when either admits, charges each that does, and otherwise answers the
// earliest. Status is the least (And) or most (Or) remaining and limit, and the latest Full. The
// children are asked at the composite's effective instant: an instant earlier than the latest the
// composite admitted at counts as that one, for every child.
func TestCombinatorCharges(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, sa := drawLimiter(t, "a")
		b, sb := drawLimiter(t, "b")
		and, or := numerus.And(a, b), numerus.Or(a, b)
		andKids, orKids := [2]numerus.Limiter{a, b}, [2]numerus.Limiter{a, b}
		var andLast, orLast time.Time // the latest instant each admitted at
		at := t0
		for i, e := range drawTimeline(t, max(sa, sb), 5, 40) {
			at = at.Add(time.Duration(e.step))
			next, from, ok := and.DebitN(at, e.cost)
			eff := raised(at, andLast)
			wantOK, wantFrom := charge(&andKids, eff, e.cost, true)
			if ok != wantOK || !ok && !from.Equal(wantFrom) {
				t.Fatalf("debit %d: %s: %v %v, children say %v %v", i, and, ok, from, wantOK, wantFrom)
			}
			if ok {
				and, andLast = next, eff
			}
			checkStatus(t, and.Status(at), andKids, raised(at, andLast), true)
			next, from, ok = or.DebitN(at, e.cost)
			eff = raised(at, orLast)
			wantOK, wantFrom = charge(&orKids, eff, e.cost, false)
			if ok != wantOK || !ok && !from.Equal(wantFrom) {
				t.Fatalf("debit %d: %s: %v %v, children say %v %v", i, or, ok, from, wantOK, wantFrom)
			}
			if ok {
				or, orLast = next, eff
			}
			checkStatus(t, or.Status(at), orKids, raised(at, orLast), false)
		}
	})
}

// raised returns at, or last if at is before it.
func raised(at, last time.Time) time.Time {
	if at.Before(last) {
		return last
	}
	return at
}

// charge debits the children as And (all) or Or (any) would, and returns the expected answer.
func charge(kids *[2]numerus.Limiter, at time.Time, cost int64, all bool) (bool, numerus.NextDebitable) {
	var next [2]numerus.Limiter
	var from [2]numerus.NextDebitable
	var ok [2]bool
	for i, k := range kids {
		next[i], from[i], ok[i] = k.DebitN(at, cost)
	}
	admitted := ok[0] && ok[1]
	if !all {
		admitted = ok[0] || ok[1]
	}
	if !admitted && all {
		answer := numerus.DebitableFrom(at)
		for i := range kids {
			if !ok[i] {
				answer = numerus.Latest(answer, from[i])
			}
		}
		return false, answer
	}
	if !admitted {
		return false, numerus.Earliest(from[0], from[1])
	}
	for i := range kids {
		if ok[i] {
			kids[i] = next[i]
		}
	}
	return true, numerus.DebitableFrom(at)
}

func checkStatus(t *rapid.T, got numerus.Status, kids [2]numerus.Limiter, at time.Time, all bool) {
	t.Helper()
	a, b := kids[0].Status(at), kids[1].Status(at)
	want := numerus.Status{Limit: max(a.Limit, b.Limit), Remaining: max(a.Remaining, b.Remaining),
		Full: numerus.Latest(a.Full, b.Full)}
	if all {
		want.Limit, want.Remaining = min(a.Limit, b.Limit), min(a.Remaining, b.Remaining)
	}
	if !sameStatus(got, want) {
		t.Fatalf("status at %v: %+v, children say %+v", at, got, want)
	}
}

// TestAndChargesNone checks that a refused And leaves every child as it was: the finite bucket
// that would have admitted still holds its token when the window opens again.
func TestAndChargesNone(t *testing.T) {
	window := numerus.Must(numerus.FixedWindow(time.Minute, 1, t0))
	window, _, ok := window.Debit(t0)
	require.True(t, ok)
	and := numerus.And(numerus.Must(numerus.FiniteBucket(1)), window)
	_, from, ok := and.Debit(t0.Add(time.Second))
	require.False(t, ok)
	require.Equal(t, time.Minute, offset(from))
	_, _, ok = and.Debit(t0.Add(time.Minute))
	require.True(t, ok, "the finite bucket was charged by a refusal")
}

// TestOrChargesAdmitting checks that Or charges every child that admits, not only the first.
func TestOrChargesAdmitting(t *testing.T) {
	or := numerus.Or(numerus.Must(numerus.FiniteBucket(2)), numerus.Must(numerus.FiniteBucket(5)))
	or, _, ok := or.DebitN(t0, 2)
	require.True(t, ok)
	require.Equal(t, int64(3), or.Status(t0).Remaining, "both charged: 0 and 3 left")
	or, _, ok = or.DebitN(t0, 3)
	require.True(t, ok)
	_, from, ok := or.Debit(t0)
	require.False(t, ok)
	require.True(t, from.IsNever())
}

// TestOrTakesMoreThanItsLimit pins what Or's doc says of costs: a child that refuses a large
// debit keeps its tokens for a smaller one, so that in all the Or admits more than the most of its
// children's limits, each child no more than its own.
func TestOrTakesMoreThanItsLimit(t *testing.T) {
	or := numerus.Or(numerus.Must(numerus.FiniteBucket(2)), numerus.Must(numerus.FiniteBucket(5)))
	require.Equal(t, int64(5), or.Status(t0).Limit)
	or, _, ok := or.DebitN(t0, 4)
	require.True(t, ok, "the bucket of 5 takes 4; the bucket of 2 refuses")
	or, _, ok = or.DebitN(t0, 2)
	require.True(t, ok, "the bucket of 2 takes 2; the bucket of 5 has 1")
	require.Equal(t, int64(1), or.Status(t0).Remaining)
	or, _, ok = or.Debit(t0)
	require.True(t, ok, "7 taken in all, where the limit is 5")
	_, from, ok := or.Debit(t0)
	require.False(t, ok)
	require.True(t, from.IsNever())
}

// phase is a user-written limiter that admits only in [on, off) of each period from t0 and
// counts the debits it is asked. It breaks the growth law on purpose: what it admits now it may
// refuse later, so that an And of two phases can keep moving its answer.
type phase struct {
	period, on, off time.Duration
	calls           *int
}

func (p phase) Debit(at time.Time) (numerus.Limiter, numerus.NextDebitable, bool) {
	return p.DebitN(at, 1)
}

// opens returns whether at is in [on, off) and, if not, when it next is.
func (p phase) opens(at time.Time) (bool, time.Time) {
	e := at.Sub(t0) % p.period
	if e < 0 {
		e += p.period
	}
	switch {
	case e >= p.on && e < p.off:
		return true, at
	case e < p.on:
		return false, at.Add(p.on - e)
	}
	return false, at.Add(p.period - e + p.on)
}

func (p phase) DebitN(at time.Time, _ int64) (numerus.Limiter, numerus.NextDebitable, bool) {
	*p.calls++
	open, next := p.opens(at)
	return p, numerus.DebitableFrom(next), open
}

func (p phase) Status(at time.Time) numerus.Status {
	open, next := p.opens(at)
	if open {
		return numerus.Status{Limit: 1, Remaining: 1, Full: numerus.DebitableFrom(at)}
	}
	return numerus.Status{Limit: 1, Full: numerus.DebitableFrom(next)}
}

func (p phase) String() string { return "phase" }

// TestAndSearch checks that And searches for an instant all children admit when they move each
// other's answer: open in [0, 600ms) and in [500ms, 1s) of each second, asked at 700ms, the first
// answers 1s, where the second answers 1.5s, where both admit.
func TestAndSearch(t *testing.T) {
	var ca, cb int
	a := phase{period: time.Second, on: 0, off: 600 * time.Millisecond, calls: &ca}
	b := phase{period: time.Second, on: 500 * time.Millisecond, off: time.Second, calls: &cb}
	and := numerus.And(a, b)
	_, from, ok := and.Debit(t0.Add(700 * time.Millisecond))
	require.False(t, ok)
	require.Equal(t, 1500*time.Millisecond, offset(from))
	_, _, ok = and.Debit(t0.Add(1500 * time.Millisecond))
	require.True(t, ok)
	_, _, ok = and.Debit(t0.Add(1500*time.Millisecond - 1))
	require.False(t, ok)
}

// TestAndSearchBounded checks that children that can never agree (open in [0, 500ms) and in
// [500ms, 1s)) make the search end in Never after limits.Search rounds, not loop (PITFALLS 17).
func TestAndSearchBounded(t *testing.T) {
	var ca, cb int
	a := phase{period: time.Second, on: 0, off: 500 * time.Millisecond, calls: &ca}
	b := phase{period: time.Second, on: 500 * time.Millisecond, off: time.Second, calls: &cb}
	_, from, ok := numerus.And(a, b).Debit(t0.Add(100 * time.Millisecond))
	require.False(t, ok)
	require.True(t, from.IsNever())
	require.LessOrEqual(t, ca, limits.Search+1, "debits asked of the first child")
	require.LessOrEqual(t, cb, limits.Search+1, "debits asked of the second child")
}
