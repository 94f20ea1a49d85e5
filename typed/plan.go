package typed

import (
	"slices"
	"unsafe"

	"github.com/numerus-closus/numerus/internal/kernel"
)

// This file is the flat debit of an And tree. And's general debit asks each child through Go's
// generic dispatch, which calls the child's method indirectly (never inlined) and copies each
// child's value out and back at every level of the tree; for three small limiters the copies cost
// more than the arithmetic. An And whose tree holds only Ands and leaves with a fast path (GCRA,
// token and leaky buckets, fixed windows) instead carries a plan, made once by NewAnd: where each
// leaf lies in the And's value and what kind it is. DebitN then runs every leaf's fast path on
// the receiver's copy of the value, in one loop with no call (or, for two or three GCRA leaves,
// in straight-line code: debitGCRA), writing only once all admit, and takes the general debit
// whenever a fast path cannot decide. The unsafe pointer arithmetic is
// confined to this file and And's layout: offsets come from unsafe.Offsetof on the very types
// they index, and each leaf is read only as the kind its type says it is.

// A plan lists the leaves of an And tree, every one of a kind with a fast path. A tree of two or
// three GCRA leaves and nothing else, the commonest policy of several limits (10/s & 1000/h),
// also has them in gcra, for debitGCRA.
type plan struct {
	leaves []planLeaf
	gcra   *[3]uintptr // the GCRA leaves' offsets, the last repeated for two; or nil
}

// A planLeaf is a leaf of the tree: its kind, and the offsets in the root And's value of the
// leaf and of the two words an admitting fast path changes: its Last, and the one word of its
// state that moves (a GCRA's TAT, a bucket's tokens or level, a window's count).
type planLeaf struct {
	off, word, last uintptr
	k               kind
}

// maxPlan is the most leaves a plan holds: a larger tree takes the general debit. It is a power
// of two, which the next line checks at compile time, so that debit may index its array of kept
// words with i&(maxPlan-1) and no bounds check.
const maxPlan = 8

var _ [0]struct{} = [maxPlan & (maxPlan - 1)]struct{}{}

// planOf returns the plan of l, or nil when its tree holds a node without a fast path or more
// than maxPlan leaves.
func planOf[L Limiter[L]](l L) *plan {
	leaves, ok := l.layout(0, nil)
	if !ok || len(leaves) > maxPlan {
		return nil
	}
	p := &plan{leaves: leaves}
	if n := len(leaves); n <= 3 && !slices.ContainsFunc(leaves, func(lf planLeaf) bool { return lf.k != kindGCRA }) {
		p.gcra = &[3]uintptr{leaves[0].off, leaves[1].off, leaves[n-1].off}
	}
	return p
}

// leafAt appends the leaf of kind k at off to dst, or reports false for a leaf with no policy (a
// zero value, which denies every debit): only the general debit reads one. A leaf's policy never
// changes (a debit keeps it), so the leaves of a planned And always have one.
func leafAt(dst []planLeaf, off uintptr, k kind, policy bool) ([]planLeaf, bool) {
	if !policy {
		return dst, false
	}
	var word, last uintptr
	switch k {
	case kindGCRA:
		var g kernel.GCRA
		word, last = unsafe.Offsetof(g.TAT)+unsafe.Offsetof(g.TAT.Q), unsafe.Offsetof(g.Last)
	case kindToken:
		var b kernel.TokenBucket
		word, last = unsafe.Offsetof(b.Tokens), unsafe.Offsetof(b.Last)
	case kindLeaky:
		var b kernel.LeakyBucket
		word, last = unsafe.Offsetof(b.Level), unsafe.Offsetof(b.Last)
	case kindWindow:
		var w kernel.FixedWindow
		word, last = unsafe.Offsetof(w.Count), unsafe.Offsetof(w.Last)
	default:
		return dst, false
	}
	// Each typed leaf is a struct of its kernel alone: the kernel lies at the leaf's offset.
	return append(dst, planLeaf{off: off, word: off + word, last: off + last, k: k}), true
}

// debit takes cost at at from every leaf of the value at base, all or nothing, and returns the
// And's verdict: Admitted (at), having written each leaf's next state there; Refused, with the
// latest of the leaves' answers, or Undecided, when a leaf's fast path could not decide, having
// written nothing. It runs each fast path once, keeping the word it would change, and writes
// those words and the leaves' Last only once every leaf admits, so that the value needs no copy.
func (p *plan) debit(base unsafe.Pointer, at, cost int64) (int64, kernel.Verdict) {
	var next [maxPlan]int64
	refused, latest := false, at
	for i, lf := range p.leaves {
		var from int64
		v := kernel.Undecided
		switch ptr := unsafe.Add(base, lf.off); lf.k {
		case kindGCRA:
			if g := (*GCRA)(ptr); g.k.P != nil && g.k.FastCase(at, cost) {
				tat, over := g.k.FastTake(at, cost)
				next[i&(maxPlan-1)] = tat
				if from, v = at, kernel.Admitted; over > 0 {
					from, v = at+over, kernel.Refused
				}
			}
		case kindToken:
			if b := (*TokenBucket)(ptr); b.k.P != nil && b.k.FastCase(at, cost) {
				word, over := b.k.FastTake(at, cost)
				next[i&(maxPlan-1)] = word
				if from, v = at, kernel.Admitted; over > 0 {
					from, v = at+over, kernel.Refused
				}
			}
		case kindLeaky:
			if b := (*LeakyBucket)(ptr); b.k.P != nil && b.k.FastCase(at, cost) {
				word, over := b.k.FastTake(at, cost)
				next[i&(maxPlan-1)] = word
				if from, v = at, kernel.Admitted; over > 0 {
					from, v = at+over, kernel.Refused
				}
			}
		case kindWindow:
			if w := (*FixedWindow)(ptr); w.k.P != nil && w.k.FastCase(at, cost) {
				word, over := w.k.FastTake(at, cost)
				next[i&(maxPlan-1)] = word
				if from, v = at, kernel.Admitted; over > 0 {
					from, v = at+over, kernel.Refused
				}
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
	for i, lf := range p.leaves { // every fast path admits: the words each would change
		*(*int64)(unsafe.Add(base, lf.word)) = next[i&(maxPlan-1)]
		*(*int64)(unsafe.Add(base, lf.last)) = at
	}
	return at, kernel.Admitted
}

// debitGCRA is debit for a plan with gcra: the same verdicts, in straight-line code with no loop
// and no array of kept words, which takes about half the time of debit's loop for three leaves.
// For two leaves it runs the second twice, which changes nothing: a fast path is pure, and both
// write the same words.
func (p *plan) debitGCRA(base unsafe.Pointer, at, cost int64) (int64, kernel.Verdict) {
	ga := (*kernel.GCRA)(unsafe.Add(base, p.gcra[0]))
	gb := (*kernel.GCRA)(unsafe.Add(base, p.gcra[1]))
	gc := (*kernel.GCRA)(unsafe.Add(base, p.gcra[2]))
	if !ga.FastCase(at, cost) || !gb.FastCase(at, cost) || !gc.FastCase(at, cost) {
		return 0, kernel.Undecided
	}
	ta, oa := ga.FastTake(at, cost)
	tb, ob := gb.FastTake(at, cost)
	tc, oc := gc.FastTake(at, cost)
	if over := max(oa, ob, oc); over > 0 { // the latest refusal's answer
		return at + over, kernel.Refused
	}
	ga.TAT.Q, ga.Last = ta, at // FastAdmit's words, written alone: the value is not copied
	gb.TAT.Q, gb.Last = tb, at
	gc.TAT.Q, gc.Last = tc, at
	return at, kernel.Admitted
}
