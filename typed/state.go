package typed

import (
	"encoding/binary"
	"hash/fnv"
	"time"

	"github.com/numerus-closus/numerus/internal/kernel"
)

// inlineWords is how many state words a State holds inline: enough for any single algorithm and
// for any three together (gcra 3, token 2, leaky 2, finite 1, window 3, count 4).
const inlineWords = 12

// State is the state of one subject under a [Policy]: plain data that DebitN never changes. A
// State belongs to its Policy; another reads it without panicking but may decide wrongly. Carry it
// over to a changed policy with [Policy.Continue]. The zero State is not a fresh one: start from
// [Policy.Fresh].
type State struct {
	// A State of at most inlineWords words (any three algorithms) and no sliding log makes debits
	// allocate nothing; a larger one allocates once per debit.
	w   [inlineWords]int64
	ext *stateExt
}

type stateExt struct {
	w    []int64
	logs []kernel.Log
}

func (s *State) words(off, n int) []int64 {
	if off < inlineWords {
		return s.w[off : off+n]
	}
	off -= inlineWords
	return s.ext.w[off : off+n]
}

// own gives s an extra block of its own, copied from what it shares (or fresh), so that writing
// to it cannot change another State.
func (s *State) own(c *compiled) {
	e := &stateExt{w: make([]int64, max(c.words-inlineWords, 0)), logs: make([]kernel.Log, c.logs)}
	if s.ext != nil {
		copy(e.w, s.ext.w)
		copy(e.logs, s.ext.logs)
	}
	for i := range c.leaves {
		if lf := &c.leaves[i]; lf.k.isLog() {
			e.logs[lf.off] = lf.ownLog(e.logs[lf.off])
		}
	}
	s.ext = e
}

// ownLog returns l read as the leaf's own log. A log of the same parameters stands as it is; the
// zero Log is fresh; a log of other parameters holds what it held at its latest instant, all of
// it used then, cut to the leaf's limit as Continue cuts a changed log: read under its own
// parameters it would hand tokens out by another limit, and made afresh it would hand them out
// again.
func (lf *leaf) ownLog(l kernel.Log) kernel.Log {
	switch {
	case sameLog(l.P, lf.log):
		return l
	case l.P == nil:
		return lf.log.FreshLog()
	}
	return lf.log.LogHolding(l.Last, lf.carried(usageOf(l.Status(l.Last))))
}

// sameLog reports whether a log kept under p is valid under q: the same parameters, whichever
// compilation made them. (A log kept through a policy change, or under the same policy compiled
// again, names the policy compiled first; made afresh, it would hand its tokens out again.)
func sameLog(p, q *kernel.LogPolicy) bool { return p == q || p != nil && q != nil && *p == *q }

// fit makes s safe to read under c: a State made by another policy, or the zero State, gets an
// extra block of the size c reads (its words as far as they go, fresh logs otherwise).
func (c *compiled) fit(s *State) {
	if !c.fits(s) {
		s.own(c)
	}
}

// Fresh returns the state of a subject never seen: buckets full, windows and logs empty.
func (p Policy) Fresh() State {
	var s State
	c := p.c
	if c == nil {
		return s
	}
	if c.ext {
		s.own(c)
	}
	for i := range c.leaves {
		c.leaves[i].put(&s, c.leaves[i].fresh())
	}
	return s
}

// put stores a kernel of the leaf's kind into s.
func (lf *leaf) put(s *State, k kernels) {
	switch lf.k {
	case kindGCRA:
		putGCRA(s.words(lf.off, 3), k.gcra)
	case kindToken:
		putTokens(s.words(lf.off, 2), k.tokens)
	case kindLeaky:
		putLeaky(s.words(lf.off, 2), k.leaky)
	case kindFinite:
		putFinite(s.words(lf.off, 1), k.finite)
	case kindWindow:
		putWindow(s.words(lf.off, 3), k.window)
	case kindCount:
		putCounter(s.words(lf.off, 4), k.counter)
	default:
		s.ext.logs[lf.off] = k.log
	}
}

// leafWords returns the words of the leaf in s, as snapshots write them (a copy).
func (lf *leaf) leafWords(s *State) []int64 {
	if lf.k.isLog() {
		return logWords(s.ext.logs[lf.off])
	}
	return append([]int64(nil), s.words(lf.off, lf.k.nwords())...)
}

// setWords validates a leaf's words and stores them into s.
func (lf *leaf) setWords(s *State, w []int64) error {
	if lf.k.isLog() {
		if len(w)%2 != 1 {
			return corruptf("log state holds %d words", len(w))
		}
		l, inv := restoreLog(lf.log, w)
		if inv == nil {
			s.ext.logs[lf.off] = l
		}
		return stateErr(inv)
	}
	if len(w) != lf.k.nwords() {
		return corruptf("%s state holds %d words", lf.k.algo(), len(w))
	}
	k, inv := lf.restoreWords(w)
	if inv != nil {
		return stateErr(inv)
	}
	lf.put(s, k)
	return nil
}

// Words returns the state words of each leaf of s, in the order of the policy's leaves (pre-order),
// as the package doc lists them per algorithm.
func (p Policy) Words(s State) [][]int64 {
	if p.c == nil {
		return nil
	}
	p.c.fit(&s)
	ws := make([][]int64, len(p.c.leaves))
	for i := range p.c.leaves {
		ws[i] = p.c.leaves[i].leafWords(&s)
	}
	return ws
}

// StateOf returns the State whose leaves hold ws, validated against p: an error matching
// ErrCorrupt when a leaf's words are missing or describe a state the policy could never reach.
func (p Policy) StateOf(ws [][]int64) (State, error) {
	c := p.c
	if c == nil {
		return State{}, corruptf("a zero policy has no state")
	}
	if len(ws) != len(c.leaves) {
		return State{}, corruptf("state holds %d leaves, the policy %d", len(ws), len(c.leaves))
	}
	var s State
	if c.ext {
		s.own(c)
	}
	for i := range c.leaves {
		if err := c.leaves[i].setWords(&s, ws[i]); err != nil {
			return State{}, err
		}
	}
	return s, nil
}

// AppendState appends the binary encoding of s to b: the version, four bytes that identify the
// policy (a hash of its notation), then each leaf's words as varints. With a b of enough capacity
// and a policy without a log, it allocates nothing.
func (p Policy) AppendState(b []byte, s State) []byte {
	c := p.c
	if c == nil {
		return b
	}
	c.fit(&s)
	b = append(b, Version)
	b = binary.BigEndian.AppendUint32(b, c.sum)
	for i := range c.leaves {
		lf := &c.leaves[i]
		if lf.k.isLog() {
			b = appendWords(b, lf.k, logWords(s.ext.logs[lf.off]))
			continue
		}
		b = appendWords(b, lf.k, s.words(lf.off, lf.k.nwords()))
	}
	return b
}

// DecodeState returns the State that AppendState encoded, validated against p. It never panics.
// The error matches ErrMismatch when the state was saved under another policy (one written
// otherwise, even if it DecidesLike p), and ErrCorrupt when it is truncated or unreachable
// under p. A State saved before the default burst became 1 is carried over as Continue would.
func (p Policy) DecodeState(data []byte) (State, error) {
	c := p.c
	if c == nil {
		return State{}, corruptf("a zero policy has no state")
	}
	d := decoder{b: data}
	d.version()
	if d.err == nil && len(d.b) < 4 {
		d.fail("truncated")
	}
	if d.err != nil {
		return State{}, d.err
	}
	if sum := binary.BigEndian.Uint32(d.b); sum != c.sum {
		return State{}, corruptMismatch("state was saved under another policy")
	}
	d.b = d.b[4:]
	ws := d.words(c.spec)
	d.end()
	if d.err != nil {
		return State{}, d.err
	}
	s, err := p.StateOf(ws)
	if err != nil {
		if was, ok := p.legacy(); ok {
			if held, heldErr := was.StateOf(ws); heldErr == nil {
				return p.Continue(was, held, time.Time{}), nil // at the state's latest instant
			}
		}
	}
	return s, err
}

// legacy returns the policy that p's notation named when a burst left to its default was the
// count, if that is another policy than p.
func (p Policy) legacy() (Policy, bool) {
	sp := p.c.spec.legacy()
	if sp.Equal(p.c.spec) {
		return Policy{}, false
	}
	was, err := Compile(sp)
	return was, err == nil
}

func fingerprint(text string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(text))
	return h.Sum32()
}
