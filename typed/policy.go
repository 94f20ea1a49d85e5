package typed

import (
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/kernel"
)

// Policy is a [Spec] compiled for many subjects: immutable and safe for concurrent use. Each
// subject's state is a [State] that the Policy debits, deciding exactly as the limiter the same
// Spec describes.
//
// The zero Policy has no spec: it denies every debit with Never, reports a zero Status that is
// never full, and its String is "(zero)".
type Policy struct{ c *compiled }

type compiled struct {
	spec   Spec
	text   string
	nodes  []node
	leaves []leaf
	words  int                // state words used, inline and beyond
	logs   int                // log leaves
	ext    bool               // whether a State needs its extra block
	and    bool               // whether the tree holds an And, which may undo what its children wrote
	single *leaf              // the leaf of a policy of one leaf kept inline, else nil
	gcra   *kernel.GCRAPolicy // the single leaf's policy if it is a GCRA, the commonest
	sum    uint32
}

// node is a leaf, or an And or Or of the nodes in kids; the leaves [lo, hi) lie below it.
type node struct {
	k      kind
	leaf   int
	kids   []int
	lo, hi int
}

// Compile validates sp and returns its Policy. It returns the error of sp.Validate.
func Compile(sp Spec) (Policy, error) {
	if err := sp.Validate(); err != nil {
		return Policy{}, err
	}
	c := &compiled{spec: sp.clone(), text: sp.String()}
	c.sum = fingerprint(c.text)
	c.add(c.spec)
	if len(c.leaves) == 1 && !c.ext {
		c.single = &c.leaves[0]
		if c.single.k == kindGCRA {
			c.gcra = c.single.gcra
		}
	}
	return Policy{c}, nil
}

// MustCompile is Compile for policies written as literals: it panics on an invalid spec.
func MustCompile(text string) Policy {
	sp, err := Parse(text)
	if err == nil {
		var p Policy
		if p, err = Compile(sp); err == nil {
			return p
		}
	}
	panic(err)
}

func (sp Spec) clone() Spec {
	if sp.Of != nil {
		of := make([]Spec, len(sp.Of))
		for i, c := range sp.Of {
			of[i] = c.clone()
		}
		sp.Of = of
	}
	return sp
}

func (c *compiled) add(sp Spec) int {
	i := len(c.nodes)
	c.nodes = append(c.nodes, node{k: sp.Algo.kind(), lo: len(c.leaves)})
	c.and = c.and || sp.Algo.kind() == kindAnd
	if sp.Algo.kind().inner() {
		kids := make([]int, len(sp.Of))
		for j, child := range sp.Of {
			kids[j] = c.add(child)
		}
		c.nodes[i].kids = kids
	} else {
		lf, _ := compileLeaf(sp, "")
		lf.text = sp.String()
		c.place(&lf)
		c.nodes[i].leaf = len(c.leaves)
		c.leaves = append(c.leaves, lf)
	}
	c.nodes[i].hi = len(c.leaves)
	return i
}

// place gives a leaf its words: inline while they fit whole, then in the extra block.
func (c *compiled) place(lf *leaf) {
	if lf.k.isLog() {
		lf.off, c.logs, c.ext = c.logs, c.logs+1, true
		return
	}
	n := lf.k.nwords()
	if c.words < inlineWords && c.words+n > inlineWords {
		c.words = inlineWords
	}
	lf.off = c.words
	c.words += n
	c.ext = c.ext || c.words > inlineWords
}

// Spec returns the policy's spec (a copy).
func (p Policy) Spec() Spec {
	if p.c == nil {
		return Spec{}
	}
	return p.c.spec.clone()
}

// String writes the policy in the notation.
func (p Policy) String() string {
	if p.c == nil {
		return "(zero)"
	}
	return p.c.text
}

// Debit takes one token at at from the subject in state s. It is DebitN(s, at, 1).
func (p Policy) Debit(s State, at time.Time) (State, numerus.NextDebitable, bool) {
	return p.DebitN(s, at, 1)
}

// DebitN takes cost tokens at at from the subject in state s, all or nothing, as the limiter of
// the spec would. Admitted, it returns the next state and DebitableFrom(at); refused, s itself and
// when the same debit would be admitted, or Never. It never changes s. A cost below 1 panics.
func (p Policy) DebitN(s State, at time.Time, cost int64) (State, numerus.NextDebitable, bool) {
	kernel.CheckCost(cost)
	c := p.c
	if c == nil {
		return s, numerus.Never(), false
	}
	c.fit(&s)
	ns := kernel.FromTime(at)
	from, ok := c.debitIn(&s, ns, cost)
	if !ok {
		return s, refusal(from, ns, at), false
	}
	return s, numerus.DebitableFrom(at), true
}

// debit runs node i on src at at, writing what its admitted leaves become into dst (nothing when
// dst is nil). It returns the node's answer and whether it admitted.
func (c *compiled) debit(i int, src, dst *State, at, cost int64) (int64, bool) {
	n := &c.nodes[i]
	switch n.k {
	case kindAnd:
		return c.debitAnd(n, src, dst, at, cost)
	case kindOr:
		from, ok := kernel.Start(false, at)
		for _, k := range n.kids {
			f, admitted := c.debit(k, src, dst, at, cost)
			from, ok = kernel.Fold(false, at, from, ok, f, admitted)
		}
		if ok {
			c.advance(n, dst, at)
		}
		return from, ok
	}
	return c.leaves[n.leaf].debit(src, dst, at, cost)
}

// debitAnd charges every child or none. Refused, it answers the latest of the children's answers:
// exact, and admitted by every child since none refuses later what it admits earlier (see And).
func (c *compiled) debitAnd(n *node, src, dst *State, at, cost int64) (int64, bool) {
	from, ok := kernel.Start(true, at)
	for _, k := range n.kids {
		f, admitted := c.debit(k, src, dst, at, cost)
		if from, ok = kernel.Fold(true, at, from, ok, f, admitted); from == kernel.Never {
			break
		}
	}
	if ok {
		return at, true
	}
	c.rollback(n, src, dst)
	return from, false
}

// advance brings every leaf below n in dst to at, those of the children of an Or that refused
// the debit it admitted among them (the others are there already): each then counts an earlier
// instant as at, as the tree does.
func (c *compiled) advance(n *node, dst *State, at int64) {
	if dst == nil {
		return
	}
	for i := n.lo; i < n.hi; i++ {
		c.leaves[i].advance(dst, at)
	}
}

// effective returns at, or the latest instant a leaf of the tree in s holds if at is earlier:
// the time rule for the tree as a whole, since an admission brings every leaf to its instant.
func (c *compiled) effective(s *State, at int64) int64 {
	for i := range c.leaves {
		at = max(at, c.leaves[i].last(s))
	}
	return at
}

// rollback restores in dst the leaves below n to what they are in src.
func (c *compiled) rollback(n *node, src, dst *State) {
	if dst == nil {
		return
	}
	for i := n.lo; i < n.hi; i++ {
		lf := &c.leaves[i]
		if lf.k.isLog() {
			dst.ext.logs[lf.off] = src.ext.logs[lf.off]
			continue
		}
		copy(dst.words(lf.off, lf.k.nwords()), src.words(lf.off, lf.k.nwords()))
	}
}

// Status reports, for the subject in state s at at, the limit, the tokens remaining and when it is
// full again, as the limiter of the spec would. It is pure.
func (p Policy) Status(s State, at time.Time) numerus.Status {
	c := p.c
	if c == nil {
		return numerus.Status{Full: numerus.Never()}
	}
	c.fit(&s)
	return toStatus(c.status(0, &s, c.effective(&s, kernel.FromTime(at))), at)
}

func (c *compiled) status(i int, s *State, at int64) kernel.Status { return c.binding(i, s, at).st }

// binding is a node's status, with the leaf whose tokens its Remaining counts and the instant
// from which that leaf holds one token more.
type binding struct {
	st   kernel.Status
	leaf int
	next int64
}

// binding returns node i's status at at: an And has the least limit and remaining of its
// children, an Or the most, and either is full when every child is; the binding leaf is, in an
// And, the child's with the fewest tokens left (ties: the one whose next token comes last, which
// holds the And back), in an Or the child's with the most (ties: the next token first).
func (c *compiled) binding(i int, s *State, at int64) binding {
	n := &c.nodes[i]
	if !n.k.inner() {
		st, next := c.leaves[n.leaf].look(s, at, true)
		return binding{st: st, leaf: n.leaf, next: next}
	}
	b := c.binding(n.kids[0], s, at)
	for _, k := range n.kids[1:] {
		b = b.with(c.binding(k, s, at), n.k == kindAnd)
	}
	b.st.Full = max(b.st.Full, at)
	return b
}

// with combines b and o, children of an And (and) or an Or.
func (b binding) with(o binding, and bool) binding {
	if kernel.Binds(and, o.st.Remaining, o.next, b.st.Remaining, b.next) {
		b.leaf, b.next = o.leaf, o.next
	}
	b.st = kernel.Combine(and, b.st, o.st)
	return b
}

// answering returns the leaf below node i whose answer, from, node i gave to a debit of cost it
// refused at at: in an And the first child that refuses with that answer (the latest), in an Or
// the first that gives it (the earliest). A refusal holds with its answer at every instant before
// it while the state stands, and so does the leaf that gives it.
func (c *compiled) answering(i int, s *State, at, cost, from int64) int {
	n := &c.nodes[i]
	if !n.k.inner() {
		return n.leaf
	}
	for _, k := range n.kids {
		if f, ok := c.debit(k, s, nil, at, cost); !ok && f == from {
			return c.answering(k, s, at, cost, from)
		}
	}
	return c.nodes[n.kids[0]].lo // a child that admits at the Or's answer: its own answer is later
}

// next returns the instant from which the subject in s holds one token more than st, its status
// at eff (at, or the tree's latest instant), says: at when it is full, else the answer of a
// debit of that many tokens, which the tree refuses at eff, exactly (Never when it never
// refills).
func (c *compiled) next(s *State, at, eff int64, st kernel.Status) int64 {
	if st.Remaining >= st.Limit {
		return at
	}
	if from, ok := c.debit(0, s, nil, eff, max(st.Remaining, 0)+1); !ok {
		return from
	}
	return at
}

// Limiter returns the numerus.Limiter that starts from the subject's state s under p: the dynamic
// limiter a Spec describes, when no static type is wanted.
//
// It and the limiters its debits return implement encoding.BinaryAppender,
// encoding.BinaryMarshaler and json.Marshaler with the snapshots of AppendSnapshot and
// SnapshotJSON, to be read back with ReadSnapshot or ReadSnapshotJSON.
func (p Policy) Limiter(s State) numerus.Limiter { return &policyLimiter{p, s} }

// policyLimiter is held by pointer: each admitted debit allocates the one that follows.
type policyLimiter struct {
	p Policy
	s State
}

func (l *policyLimiter) Debit(at time.Time) (numerus.Limiter, numerus.NextDebitable, bool) {
	return l.DebitN(at, 1)
}

func (l *policyLimiter) DebitN(at time.Time, cost int64) (numerus.Limiter, numerus.NextDebitable, bool) {
	s, from, ok := l.p.DebitN(l.s, at, cost)
	if !ok {
		return l, from, false
	}
	return &policyLimiter{l.p, s}, from, true
}

func (l *policyLimiter) Status(at time.Time) numerus.Status { return l.p.Status(l.s, at) }

func (l *policyLimiter) String() string { return l.p.String() }

func (l *policyLimiter) AppendBinary(b []byte) ([]byte, error) { return l.p.AppendSnapshot(b, l.s) }

func (l *policyLimiter) MarshalBinary() ([]byte, error) { return l.p.AppendSnapshot(nil, l.s) }

func (l *policyLimiter) MarshalJSON() ([]byte, error) { return l.p.SnapshotJSON(l.s) }
