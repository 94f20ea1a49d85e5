package kernel

import (
	"testing"

	"pgregory.net/rapid"
)

// advancing is what Advance's property needs of a kernel.
type advancing[K any] interface {
	Debit(at, cost int64) (K, int64, bool)
	Status(at int64) Status
	Advance(at int64) K
}

// TestAdvance is the property of Advance for every kernel: after random debits (some at earlier
// instants), a state advanced to an instant at decides every later debit and status exactly as
// the state itself, each following its own admissions, and counts any instant before at as at
// (but the finite bucket, which keeps no instant and answers alike at every one).
func TestAdvance(t *testing.T) {
	rate := func(t *rapid.T) Rate {
		return NewRate(rapid.Int64Range(1, 5).Draw(t, "n"), rapid.Int64Range(1, 50).Draw(t, "p"))
	}
	size := func(t *rapid.T) int64 { return rapid.Int64Range(1, 6).Draw(t, "size") }
	width := func(t *rapid.T) int64 { return rapid.Int64Range(1, 60).Draw(t, "width") }
	t.Run("gcra", rapid.MakeCheck(func(t *rapid.T) { checkAdvance(t, NewGCRA(rate(t), size(t)).Fresh(), true) }))
	t.Run("token", rapid.MakeCheck(func(t *rapid.T) { checkAdvance(t, NewBucket(rate(t), size(t)).FreshTokens(), true) }))
	t.Run("leaky", rapid.MakeCheck(func(t *rapid.T) { checkAdvance(t, NewBucket(rate(t), size(t)).FreshLeaky(), true) }))
	t.Run("finite", rapid.MakeCheck(func(t *rapid.T) { n := size(t); checkAdvance(t, Finite{Size: n, Left: n}, false) }))
	t.Run("window", rapid.MakeCheck(func(t *rapid.T) {
		checkAdvance(t, NewWindow(width(t), size(t), rapid.Int64Range(-30, 30).Draw(t, "origin")).FreshWindow(), true)
	}))
	t.Run("count", rapid.MakeCheck(func(t *rapid.T) {
		checkAdvance(t, NewWindow(width(t), size(t), rapid.Int64Range(-30, 30).Draw(t, "origin")).FreshCounter(), true)
	}))
	t.Run("log", rapid.MakeCheck(func(t *rapid.T) {
		q := rapid.Int64Range(1, 4).Draw(t, "quantum")
		p := &LogPolicy{Width: q * rapid.Int64Range(1, 15).Draw(t, "sub-windows"), Limit: size(t), Quantum: q}
		checkAdvance(t, p.FreshLog(), true)
	}))
}

// checkAdvance checks the property on a state reached from k; timed is whether k keeps an instant.
func checkAdvance[K advancing[K]](t *rapid.T, k K, timed bool) {
	steps := rapid.Int64Range(-20, 40)
	costs := rapid.Int64Range(1, 3)
	at := int64(1000)
	for range rapid.IntRange(0, 12).Draw(t, "debits") {
		at += steps.Draw(t, "step")
		if next, _, ok := k.Debit(at, costs.Draw(t, "cost")); ok {
			k = next
		}
	}
	to := at + rapid.Int64Range(-20, 80).Draw(t, "advance")
	a, b := k.Advance(to), k
	for i := range rapid.IntRange(1, 12).Draw(t, "after") {
		u := to + rapid.Int64Range(-30, 120).Draw(t, "at") // earlier than to counts as to for a
		v, c := u, costs.Draw(t, "cost")
		if timed {
			v = max(u, to)
		}
		na, fa, oka := a.Debit(u, c)
		nb, fb, okb := b.Debit(v, c)
		if oka != okb || fa != fb {
			t.Fatalf("debit %d at %d (advanced to %d) cost %d: %v %d, unadvanced %v %d", i, u, to, c, oka, fa, okb, fb)
		}
		if sa, sb := a.Status(u), b.Status(v); sa != sb {
			t.Fatalf("status %d at %d (advanced to %d): %+v, unadvanced %+v", i, u, to, sa, sb)
		}
		if oka {
			a, b = na, nb
		}
	}
}
