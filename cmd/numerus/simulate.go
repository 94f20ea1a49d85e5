package main

import (
	"math"

	"github.com/numerus-closus/numerus/internal/kernel"
	"github.com/numerus-closus/numerus/typed"
)

// maxWaitPoints bounds the refused requests whose waits a simulation keeps one by one, for the
// chart; past it, the chart draws each interval's longest wait.
const maxWaitPoints = 20_000

// simulation replays traffic through one policy, fresh at the start, and keeps what sim prints
// and draws: each request is admitted or refused by the core; a refused one is told when the
// same request would go through, which is the wait of a client that waits for that answer.
type simulation struct {
	text     string
	lim      limiter
	shadows  bool // whether children holds the root's children, charged as the root charges them
	children []*child

	offered, admitted, refused, never int64
	longest                           int64 // the longest finite wait told to a refused request
	refusedUntil                      int64 // the answer of the latest refusal (see step)
	cache                             bool  // whether step trusts that answer

	start, width, binEnd int64
	bin                  int
	perBin               []binCounts
	waits                []waitPoint
}

// binCounts are one interval's figures: requests offered and admitted, the longest wait told to
// a refused one (-1: none), and each child's tokens remaining at its end.
type binCounts struct {
	offered, admitted, longest int64
	remaining                  []int64
}

type waitPoint struct{ at, wait int64 }

// child is one limit of the policy (the policy itself when it is a leaf): a limiter fed the
// admissions the policy charges to it, with the most of them in any span of each period of
// its leaves.
type child struct {
	text    string
	lim     limiter
	limit   int64 // its tokens when fresh
	windows []*spanCount
}

// newSimulation prepares the replay of sp, which is valid, from start in bins of width.
func newSimulation(sp typed.Spec, start, width int64, bins int) *simulation {
	s := &simulation{text: sp.String(), lim: newLimiter(sp)(), start: start, width: width,
		binEnd: start + width, perBin: make([]binCounts, bins), cache: true,
		refusedUntil: math.MinInt64}
	parts := []typed.Spec{sp}
	if sp.Algo == typed.AlgoAnd || sp.Algo == typed.AlgoOr {
		parts, s.shadows = sp.Of, true
	}
	for _, c := range parts {
		s.children = append(s.children, newChild(c, s.lim, s.shadows, start))
	}
	for i := range s.perBin {
		s.perBin[i] = binCounts{longest: -1, remaining: make([]int64, len(parts))}
	}
	return s
}

func newChild(sp typed.Spec, root limiter, shadow bool, start int64) *child {
	c := &child{text: sp.String(), lim: root}
	if shadow {
		c.lim = newLimiter(sp)()
	}
	c.limit, _ = newLimiter(sp)().status(start)
	seen := map[int64]bool{}
	leaves(sp, func(leaf typed.Spec) {
		if p := int64(leaf.Period); p > 0 && !seen[p] {
			seen[p] = true
			c.windows = append(c.windows, &spanCount{leaf: leaf.String(), limit: leaf.Count, span: p})
		}
	})
	return c
}

// step decides the request at at, which is no earlier than the one before.
//
// A request before the instant the latest refusal named is refused with the same answer without
// asking the core again: a refusal changes nothing, and the core's answer is exact (admitted from
// that instant on, refused before it; numerustest's laws), so asking would answer the same.
// TestSimCacheAgrees replays with and without this.
func (s *simulation) step(at int64) {
	for at >= s.binEnd && s.bin < len(s.perBin) {
		s.closeBin()
	}
	b := &s.perBin[min(s.bin, len(s.perBin)-1)]
	b.offered++
	s.offered++
	retry, ok := s.refusedUntil, false
	if at >= s.refusedUntil || !s.cache {
		retry, ok = s.lim.debit(at)
	}
	if ok {
		s.admitted++
		b.admitted++
		s.charge(at)
		return
	}
	s.refusedUntil = retry
	s.refused++
	if retry == kernel.Never {
		s.never++
		return
	}
	w := retry - at
	s.longest, b.longest = max(s.longest, w), max(b.longest, w)
	if len(s.waits) < maxWaitPoints {
		s.waits = append(s.waits, waitPoint{at, w})
	}
}

// charge counts an admission at at in each child it is charged to: every child of an And, the
// children of an Or that admit it (as the core's Or charges them).
func (s *simulation) charge(at int64) {
	for _, c := range s.children {
		if s.shadows {
			if _, ok := c.lim.debit(at); !ok {
				continue
			}
		}
		for _, w := range c.windows {
			w.add(at)
		}
	}
}

// closeBin records each child's tokens at the end of the interval and moves to the next.
func (s *simulation) closeBin() {
	b := &s.perBin[s.bin]
	for i, c := range s.children {
		b.remaining[i], _ = c.lim.status(s.binEnd)
	}
	s.bin++
	s.binEnd += s.width
}

// finish closes the intervals left.
func (s *simulation) finish() {
	for s.bin < len(s.perBin) {
		s.closeBin()
	}
}

// spanCount keeps the most admissions in any span [t, t+span): the admissions of the last span,
// in a queue whose head advances, compacted as it goes.
type spanCount struct {
	leaf        string
	limit, span int64
	queue       []int64
	head        int
	most, total int64
}

func (w *spanCount) add(at int64) {
	w.queue = append(w.queue, at)
	w.total++
	for w.queue[w.head] <= at-w.span {
		w.head++
	}
	w.most = max(w.most, int64(len(w.queue)-w.head))
	if w.head >= 1024 && w.head*2 >= len(w.queue) {
		w.queue = w.queue[:copy(w.queue, w.queue[w.head:])]
		w.head = 0
	}
}

// replayTraffic feeds every request of tr before end to each simulation, in order, and calls
// progress every 2^16 requests with the instant reached.
func replayTraffic(tr traffic, end int64, sims []*simulation, progress func(at, n int64)) {
	var n int64
	for {
		at, ok := tr.next()
		if !ok || at >= end {
			break
		}
		for _, s := range sims {
			s.step(at)
		}
		if n++; n&(1<<16-1) == 0 && progress != nil {
			progress(at, n)
		}
	}
	for _, s := range sims {
		s.finish()
	}
}
