package kernel

import "pgregory.net/rapid"

// advancing is what Advance's property needs of a kernel.
type advancing[K any] interface {
	Debit(at, cost int64) (K, int64, bool)
	Status(at int64) Status
	Advance(at int64) K
}

// checkAdvance checks the property of Advance on a state reached from k (see TestLaws): after
// random debits (some at earlier instants), a state advanced to an instant at decides every later
// debit and status exactly as the state itself, each following its own admissions, and counts any
// instant before at as at (but the finite bucket, which keeps no instant and answers alike at
// every one: timed is false for it).
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
