package typed

import (
	"time"

	"github.com/numerus-closus/numerus/internal/kernel"
)

// Continue returns the state under p of a subject whose state s was kept under prev, when the
// policy changes at at: the state a store should go on with after its configuration changed.
//
//   - If p and prev are the same policy (the same tree of the same algorithms deciding alike, as
//     "gcra 10/s burst 10" and "gcra 20/2s burst 10"), s is returned unchanged.
//   - A bucket (gcra, token, leaky, finite) carries over the lesser of the tokens it holds and the
//     new capacity: a larger capacity does not refill.
//   - A window (window, count, sliding, buckets) carries over its count in the current window,
//     capped at the new limit, and never holds more tokens than it did: it holds the lesser of the
//     tokens it held and the new limit less its count (a larger limit does not refill either, so
//     from "window 10/h" with 7 counted, "window 20/h" holds 3, not 13).
//   - If the trees have the same shape, a leaf identical to the old leaf at its place keeps its
//     state exactly, and a changed leaf continues from the old leaf at its place if both are the
//     only changed leaves of their algorithm in their trees ("gcra 10/s & gcra 1000/h" to
//     "gcra 10/s & gcra 2000/h": the hourly GCRA from the hourly one). Every other leaf continues
//     from the most used old leaf (the least remaining and the largest count of them all): the old
//     leaf at its place may be another algorithm, or another leaf of the same one
//     ("gcra 1/s & gcra 5/h" reordered), whose tokens say nothing of what this leaf may hold. So
//     when two leaves of one algorithm change at once (both GCRAs of "gcra 10/s & gcra 1000/h"
//     raised), both start from the tightest balance: nothing is handed out, but a raised limit
//     may take up to its refill time to be felt.
//   - A finite bucket never refills: one added by a change holds at most the tokens the subject
//     held then, for good. Give a subject a new lifetime budget with a Reset (keyed) or a fresh
//     state, not with a change. A finite bucket keeps no instant either: a state carried over to
//     a policy of finite buckets alone and back forgets its latest instant, so an instant earlier
//     than that one then counts as itself (a clock stepping back across two changes).
//
// The tokens a changed leaf holds are whole tokens counted as used at at (or at the latest instant
// the state admitted, if later), so switching back and forth between two policies never leaves
// the subject more tokens than staying would: not at the switch, nor at any later instant its
// Status is read. What later debits take may still differ a little: an Or charges each child that
// admits, so a child holding fewer tokens is charged less and may admit sooner, and a debit of
// several tokens refused leaves room for single ones. The result never admits more than p
// allows. That is for a switch and a switch back at one instant: a subject that spends a while
// under the other policy lives by that policy's refills meanwhile, so from "window 10/2h" spent, a
// switch to "window 10/h" and back an hour later carries back the 10 tokens the hourly window
// refilled, as staying on "window 10/h" would have given them. The other side of counting whole
// tokens at at: a bucket's carry drops the part of a token refilled since the last whole one, so
// a state carried back and forth more often than it refills a token refills nothing, and a
// sliding window's carry counts every token used as used at at, to be held for a window from
// there. Carry a subject's state once per change of its policy, not at every check of two
// policies in turn.
func (p Policy) Continue(prev Policy, s State, at time.Time) State {
	c, old := p.c, prev.c
	switch {
	case c == nil:
		return State{}
	case old == nil:
		return p.Fresh()
	case p.DecidesLike(prev):
		return s
	}
	old.fit(&s)
	now := kernel.FromTime(at)
	for i := range old.leaves {
		now = max(now, old.leaves[i].last(&s))
	}
	next, shaped, whole := p.Fresh(), sameShape(c, old), old.least(&s, now)
	var changed, changedOld [kindBuckets + 1]int // changed leaves of each kind, in c and in old
	if shaped {
		for i := range c.leaves {
			if !c.leaves[i].same(&old.leaves[i]) {
				changed[c.leaves[i].k]++
				changedOld[old.leaves[i].k]++
			}
		}
	}
	for i := range c.leaves {
		lf := &c.leaves[i]
		switch {
		case shaped && lf.same(&old.leaves[i]):
			lf.copyFrom(&next, &old.leaves[i], &s)
		case shaped && lf.k == old.leaves[i].k && changed[lf.k] == 1 && changedOld[lf.k] == 1:
			lf.hold(&next, now, lf.carried(usageOf(old.leaves[i].status(&s, now))))
		default:
			lf.hold(&next, now, lf.carried(whole))
		}
	}
	return next
}

// DecidesLike reports whether p and q are the same policy, however written and compiled: the
// same tree of the same algorithms with the same parameters in lowest terms, as
// "gcra 10/s burst 10" and "gcra 20/2s burst 10", or "100/min" and "sliding 100/60s". Continue
// between them returns the state unchanged, and a store may treat a State kept under one as kept
// under the other (not its encoding: see DecodeState).
func (p Policy) DecidesLike(q Policy) bool {
	switch {
	case p.c == q.c:
		return true
	case p.c == nil || q.c == nil:
		return false
	}
	return p.c.text == q.c.text || sameLeaves(p.c, q.c)
}

// usage is what a changed leaf continues from: the tokens remaining and the tokens used.
type usage struct{ remaining, used int64 }

func usageOf(st kernel.Status) usage { return usage{st.Remaining, st.Limit - st.Remaining} }

// least is the usage of the most used leaf of s: the least remaining and the most used of all of
// them, so that every new leaf holds no more than any old leaf did, whatever the trees' shapes.
func (c *compiled) least(s *State, now int64) usage {
	u := usage{remaining: kernel.Unlimited}
	for i := range c.leaves {
		lu := usageOf(c.leaves[i].status(s, now))
		u.remaining, u.used = min(u.remaining, lu.remaining), max(u.used, lu.used)
	}
	return u
}

// copyFrom sets the leaf in next to the state of the leaf from in s, which decides alike.
func (lf *leaf) copyFrom(next *State, from *leaf, s *State) {
	if lf.k.isLog() {
		l := s.ext.logs[from.off]
		l.P = lf.log // the same parameters (lf.same(from)), of this policy's compilation
		next.ext.logs[lf.off] = l
		return
	}
	copy(next.words(lf.off, lf.k.nwords()), s.words(from.off, from.k.nwords()))
}

// carried returns how many tokens the leaf holds when it continues from old: the lesser of old's
// remaining and, for buckets, the capacity; for windows, the limit less old's count.
func (lf *leaf) carried(old usage) int64 {
	limit := lf.limit()
	if lf.k.bucket() {
		return max(min(old.remaining, limit), 0)
	}
	return max(min(old.remaining, limit-min(old.used, limit)), 0)
}

func sameShape(a, b *compiled) bool {
	if len(a.nodes) != len(b.nodes) {
		return false
	}
	for i := range a.nodes {
		na, nb := &a.nodes[i], &b.nodes[i]
		if na.k.inner() != nb.k.inner() || (na.k.inner() && (na.k != nb.k || len(na.kids) != len(nb.kids))) {
			return false
		}
	}
	return true
}

// sameLeaves reports whether a and b have the same shape and leaves that decide alike.
func sameLeaves(a, b *compiled) bool {
	if !sameShape(a, b) {
		return false
	}
	for i := range a.leaves {
		if !a.leaves[i].same(&b.leaves[i]) {
			return false
		}
	}
	return true
}

// same reports whether two leaves decide alike: the same algorithm with the same reduced
// parameters.
func (lf *leaf) same(o *leaf) bool {
	if lf.k != o.k {
		return false
	}
	switch {
	case lf.gcra != nil:
		return lf.gcra.Rate.N == o.gcra.Rate.N && lf.gcra.Rate.P == o.gcra.Rate.P && lf.gcra.Burst == o.gcra.Burst
	case lf.bucket != nil:
		return lf.bucket.Rate.N == o.bucket.Rate.N && lf.bucket.Rate.P == o.bucket.Rate.P &&
			lf.bucket.Capacity == o.bucket.Capacity
	case lf.window != nil:
		return *lf.window == *o.window
	case lf.log != nil:
		return *lf.log == *o.log
	}
	return lf.size == o.size
}
