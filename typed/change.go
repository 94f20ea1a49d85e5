package typed

import (
	"time"

	"github.com/numerus-closus/numerus/internal/kernel"
)

// Continue returns the state under p of a subject whose state s was kept under prev, for a
// policy change at at. It never adds tokens, and returns s for the same policy (see
// [Policy.DecidesLike]). It carries whole tokens only: call it once per change, not per check. A
// finite bucket added by a change keeps at most the tokens left then, for good.
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
	// A changed leaf continues from the old leaf at its place when both are the only changed
	// leaves of their algorithm ("gcra 10/s & gcra 1000/h" to "gcra 10/s & gcra 2000/h"). Any
	// other continues from the most used old leaf (least remaining, largest count): the old leaf
	// at its place may be another algorithm, or a reordered one, whose tokens say nothing of this
	// one. Two leaves of one algorithm changed at once thus both start from the tightest balance,
	// and a raised limit may take up to its refill time to be felt. Carried tokens are whole and
	// count as used at now: a bucket drops the part of a token refilled since the last whole one,
	// and a sliding window holds them for a window from now. A finite bucket keeps no instant, so
	// a state carried to finite buckets alone and back forgets its latest instant.
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

// DecidesLike reports whether p and q are the same policy, however written: the same tree of
// the same algorithms with the same parameters in lowest terms, as "100/min" and
// "sliding 100/60s". A store may treat a State kept under one as kept under the other.
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
