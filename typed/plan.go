package typed

import "github.com/numerus-closus/numerus/internal/kernel"

// This file is the fast debit of the commonest And trees: two or three GCRA leaves and nothing
// else (10/s & 1000/h). And's general debit asks each child through Go's generic dispatch, which
// calls the child's method indirectly (never inlined) and copies each child's value out and back
// at every level of the tree; for three small limiters the copies cost more than the arithmetic.
// fastAnd instead finds these trees by their concrete types, and runs every leaf's fast path on
// the receiver's copy of the value in straight-line code, writing only once all admit. Every other
// tree, and every case a fast path cannot decide, takes the general debit.

// fastAnd debits cost at at from l, a pointer to an And, when it is an And of two or three GCRAs:
// it returns Admitted (at), having written each leaf's next state; Refused, with the latest of the
// leaves' answers; or Undecided, having written nothing, when l is another tree or a leaf's fast
// path cannot decide.
func fastAnd(l any, at, cost int64) (int64, kernel.Verdict) {
	switch l := l.(type) {
	case *And[GCRA, GCRA]:
		return fastGCRAs(&l.a.k, &l.b.k, &l.b.k, at, cost)
	case *And[GCRA, And[GCRA, GCRA]]:
		return fastGCRAs(&l.a.k, &l.b.a.k, &l.b.b.k, at, cost)
	case *And[And[GCRA, GCRA], GCRA]:
		return fastGCRAs(&l.a.a.k, &l.a.b.k, &l.b.k, at, cost)
	}
	return 0, kernel.Undecided
}

// fastGCRAs is fastAnd for three GCRA leaves. For two it is given the second twice, which changes
// nothing: a fast path is pure, and both write the same words.
func fastGCRAs(ga, gb, gc *kernel.GCRA, at, cost int64) (int64, kernel.Verdict) {
	if ga.P == nil || gb.P == nil || gc.P == nil || // a leaf with no policy: the general debit
		!ga.FastCase(at, cost) || !gb.FastCase(at, cost) || !gc.FastCase(at, cost) {
		return 0, kernel.Undecided
	}
	ta, oa := ga.FastTake(at, cost)
	tb, ob := gb.FastTake(at, cost)
	tc, oc := gc.FastTake(at, cost)
	if over := max(oa, ob, oc); over > 0 { // the latest refusal's answer
		return at + over, kernel.Refused
	}
	*ga, *gb, *gc = ga.FastAdmit(at, ta), gb.FastAdmit(at, tb), gc.FastAdmit(at, tc)
	return at, kernel.Admitted
}
