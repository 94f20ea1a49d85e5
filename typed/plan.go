package typed

import (
	"unsafe"

	"github.com/numerus-closus/numerus/internal/kernel"
)

// This file is the flat debit of an And tree. And's general debit asks each child through Go's
// generic dispatch, which calls the child's method indirectly (never inlined) and copies each
// child's value out and back at every level of the tree; for three small limiters the copies cost
// more than the arithmetic. An And whose tree holds only Ands and leaves with a fast path (GCRA,
// token and leaky buckets, fixed windows) instead carries a plan, made once by NewAnd: where each
// leaf lies in the And's value and what kind it is. DebitN then runs every leaf's fast path on
// the receiver's copy of the value, in one loop with no call, writing only once all admit, and
// takes the general debit whenever a fast path cannot decide. The unsafe pointer arithmetic is
// confined to this file and And's layout: offsets come from unsafe.Offsetof on the very types
// they index, and each leaf is read only as the kind its type says it is.

// A plan lists the leaves of an And tree, every one of a kind with a fast path.
type plan struct{ leaves []planLeaf }

// A planLeaf is a leaf of the tree: its kind, and its offset in the root And's value.
type planLeaf struct {
	off uintptr
	k   kind
}

// planOf returns the plan of l, or nil when its tree holds a node without a fast path.
func planOf[L Limiter[L]](l L) *plan {
	leaves, ok := l.layout(0, nil)
	if !ok {
		return nil
	}
	return &plan{leaves}
}

// leafAt appends the leaf of kind k at off to dst.
func leafAt(dst []planLeaf, off uintptr, k kind) ([]planLeaf, bool) {
	return append(dst, planLeaf{off, k}), true
}

// debit takes cost at at from every leaf of the value at base, all or nothing, and returns the
// And's verdict: Admitted (at), having written each leaf's next state there; Refused, with the
// latest of the leaves' answers, or Undecided, when a leaf's fast path could not decide, having
// written nothing. It decides first and writes after, so that the value needs no copy.
func (p *plan) debit(base unsafe.Pointer, at, cost int64) (int64, kernel.Verdict) {
	refused, latest := false, at
	for _, lf := range p.leaves {
		var from int64
		v := kernel.Undecided
		switch ptr := unsafe.Add(base, lf.off); lf.k {
		case kindGCRA:
			if g := (*GCRA)(ptr); g.k.P != nil {
				_, from, v = g.k.Fast(at, cost)
			}
		case kindToken:
			if b := (*TokenBucket)(ptr); b.k.P != nil {
				_, from, v = b.k.Fast(at, cost)
			}
		case kindLeaky:
			if b := (*LeakyBucket)(ptr); b.k.P != nil {
				_, from, v = b.k.Fast(at, cost)
			}
		case kindWindow:
			if w := (*FixedWindow)(ptr); w.k.P != nil {
				_, from, v = w.k.Fast(at, cost)
			}
		}
		switch v {
		case kernel.Undecided:
			return 0, kernel.Undecided
		case kernel.Refused:
			refused, latest = true, max(latest, from)
		}
	}
	if refused {
		return latest, kernel.Refused
	}
	for _, lf := range p.leaves { // every fast path admits: the same calls, written
		switch ptr := unsafe.Add(base, lf.off); lf.k {
		case kindGCRA:
			g := (*GCRA)(ptr)
			g.k, _, _ = g.k.Fast(at, cost)
		case kindToken:
			b := (*TokenBucket)(ptr)
			b.k, _, _ = b.k.Fast(at, cost)
		case kindLeaky:
			b := (*LeakyBucket)(ptr)
			b.k, _, _ = b.k.Fast(at, cost)
		case kindWindow:
			w := (*FixedWindow)(ptr)
			w.k, _, _ = w.k.Fast(at, cost)
		}
	}
	return at, kernel.Admitted
}
