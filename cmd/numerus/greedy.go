package main

import (
	"bytes"
	"math"
	"time"

	"github.com/numerus-closus/numerus/internal/kernel"
	"github.com/numerus-closus/numerus/typed"
)

// This file drives the core with a greedy sender: the client that takes all it can. explain's
// figures are counts of its admissions, nothing else; no figure comes from a formula of an
// algorithm, so none can disagree with what the core decides.
//
// Why the greedy sender from a fresh state gives the most in a span. Take a half-open span
// [a, a+T). Every built-in limiter is monotone: idling never takes capacity away, and a request
// sent earlier leaves at least as much room later as the same request sent later (a GCRA's
// arrival time, a bucket's level, a log's entries and a window's counts all move the right way).
// So before a the best history is none at all (the state is fresh), and within the span the best
// strategy is to send at every instant the policy admits, the earliest first: the greedy sender
// started at a. What remains is where to put a:
//
//   - A policy with no aligned leaf (gcra, token, leaky, finite, sliding) decides the same
//     however its timeline is shifted, so one start serves every placement.
//   - Windows (window, count) and the sub-windows of buckets align on the Unix epoch, so the
//     count depends on the phase of a against their boundaries. Together they repeat every L,
//     the least common multiple of their periods; let B be a boundary of all of them. Moving a
//     later leaves the admissions timed from a where they are relative to a, and brings those
//     timed from a boundary closer to a, while the span's end moves later too: the count can
//     only grow, until an admission timed from a crosses a boundary. The most is therefore at
//     a placement where some admission falls 1ns before a boundary. search takes the greedy
//     sender started at B−L and, for each distinct instant t it admits at before B, the start
//     a = B−1ns−(t−(B−L)) that puts that admission at B−1ns (and B−1ns itself), and counts from
//     each. TestMostMatchesEveryPhase checks the search against every phase, nanosecond by
//     nanosecond, on small random policies, and the golden tests against numerus.Admissions.
//
// An Or is not monotone (see most): its counts are exact without windows, and lower bounds with.
//
// A budget bounds the debits, so that a policy of millions a second cannot hang the command; a
// figure cut by it is reported as a lower bound.

// budget counts the debits left; over is set once it has run out.
type budget struct {
	left int64
	over bool
}

func (b *budget) take() bool {
	if b.left <= 0 {
		b.over = true
		return false
	}
	b.left--
	return true
}

// sender is a greedy client of a policy: fresh at its start, it sends one request at every
// instant the policy admits one, at the same instant again while it admits, and otherwise at
// the instant the refusal names (exact and tight: the core admits there).
type sender struct {
	l  limiter
	at int64
	b  *budget
}

// policy makes fresh limiters of one policy (see newLimiter).
type policy func() limiter

func newSender(p policy, start int64, b *budget) *sender {
	return &sender{l: p(), at: start, b: b}
}

// next returns the instant of the next admission before end; false when there is none (the
// policy says never, the next admission lies at or after end, or the budget ran out).
func (g *sender) next(end int64) (at int64, ok bool) {
	for g.at < end && g.b.take() {
		retry, ok := g.l.debit(g.at)
		if ok {
			return g.at, true
		}
		if retry == kernel.Never || retry <= g.at {
			return 0, false
		}
		g.at = retry
	}
	return 0, false
}

// replay runs a greedy sender from start and calls visit for each admission before end, with
// the limiter after it. It returns how far the run got: end, or less when the budget ran out.
func replay(p policy, start, end int64, b *budget, visit func(at int64, l limiter)) (reached int64) {
	g := newSender(p, start, b)
	for {
		at, ok := g.next(end)
		if !ok {
			if b.over {
				return g.at
			}
			return end
		}
		visit(at, g.l)
	}
}

// countSpans returns, for each span length, how many admissions the greedy sender started at a
// makes in [a, a+span), and whether the budget cut the run short of it. spans need not be
// sorted.
func countSpans(p policy, a int64, spans []int64, b *budget) (counts []int64, cut []bool) {
	counts, cut = make([]int64, len(spans)), make([]bool, len(spans))
	reached := replay(p, a, a+maxOf(spans), b, func(at int64, _ limiter) {
		for i, s := range spans {
			if at < a+s {
				counts[i]++
			}
		}
	})
	for i, s := range spans {
		cut[i] = reached < a+s
	}
	return counts, cut
}

// slideSpans returns, for each span length, the most admissions in any span [t, t+span) within
// the run of a greedy sender from a to a+horizon: for each span, a second sender, deterministic
// as the first, trails it by the span, so the run is never held in memory.
func slideSpans(p policy, a, horizon int64, spans []int64, b *budget) []int64 {
	end := a + horizon
	best, n := make([]int64, len(spans)), make([]int64, len(spans)) // n: admissions in (at-span, at]
	trails, next := make([]*sender, len(spans)), make([]int64, len(spans))
	live := make([]bool, len(spans))
	for i := range spans {
		trails[i] = newSender(p, a, b)
		next[i], live[i] = trails[i].next(end)
	}
	lead := newSender(p, a, b)
	for {
		at, ok := lead.next(end)
		if !ok {
			return best
		}
		for i, span := range spans {
			for n[i]++; live[i] && next[i] <= at-span; n[i]-- {
				next[i], live[i] = trails[i].next(end)
			}
			best[i] = max(best[i], n[i])
		}
	}
}

// most returns the most admissions in any span of each length, over every placement (see the
// comment at the top of this file). With an Or in the tree, a fresh start need not be the best
// history (an Or charges only the limits that admit, so sending early can cost a later request),
// and the spans slide over each run, which lasts slide past the longest span. Such a policy is
// not monotone, so the count need not grow within a piece either: with windows too, the search
// finds counts a greedy sender gets, but not always the most (see roughOr).
//
// It also reports, for each span, whether its count is only a lower bound: the budget cut a run
// short of the span, or the search of the phases.
func most(p policy, al alignment, spans []int64, slide int64, b *budget) (best []int64, lower []bool) {
	count := func(a int64) []int64 {
		if slide > 0 {
			return slideSpans(p, a, maxOf(spans)+slide, spans, b)
		}
		c, cut := countSpans(p, a, spans, b)
		for i := range lower {
			lower[i] = lower[i] || cut[i]
		}
		return c
	}
	lower = make([]bool, len(spans))
	best = count(al.start())
	horizon := maxOf(spans) + slide
	for a := al.base; al.period != 0 && a < al.base+al.period && !b.over; a++ {
		a = al.pieceEnd(p, a, horizon, slide > 0, b)
		for i, c := range count(a) {
			best[i] = max(best[i], c)
		}
	}
	for i := range lower {
		lower[i] = lower[i] || b.over && (slide > 0 || al.period != 0)
	}
	return best, lower
}

// roughOr reports whether most's counts for sp are lower bounds: an Or with windows.
func roughOr(sp typed.Spec) bool { return hasOr(sp) && alignmentOf(sp).period != 0 }

// hasOr reports whether sp holds an Or.
func hasOr(sp typed.Spec) bool {
	if sp.Algo == typed.AlgoOr {
		return true
	}
	for _, c := range sp.Of {
		if hasOr(c) {
			return true
		}
	}
	return false
}

// alignment is where a policy's windows fall: every multiple of period since the Unix epoch is a
// boundary of all of them. A period of zero means no aligned leaf. When the windows' common
// period is over maxLCM, period is the longest window's, and the search is not exhaustive.
type alignment struct {
	period  int64
	base    int64   // a boundary of all: the start of the search
	rough   bool    // whether period is not common to every window
	windows []int64 // the period of each window, whose multiples are its boundaries
}

// epochBase is where explain places its senders: the first instant of 2026, UTC.
var epochBase = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()

func alignmentOf(sp typed.Spec) alignment {
	l, longest := int64(0), int64(0)
	var windows []int64
	leaves(sp, func(leaf typed.Spec) {
		if w := alignedPeriod(leaf); w > 0 {
			l, longest = lcm(l, w), max(longest, w)
			windows = append(windows, w)
		}
	})
	al := alignment{period: l, windows: windows}
	if l < 0 {
		al = alignment{period: longest, rough: true, windows: windows}
	}
	if al.period > 0 {
		al.base = epochBase - epochBase%al.period + al.period
	}
	return al
}

// alignedPeriod is the period whose multiples are a leaf's boundaries, or 0 if it has none.
func alignedPeriod(sp typed.Spec) int64 {
	switch sp.Algo {
	case typed.AlgoWindow, typed.AlgoCount:
		return int64(sp.Period)
	case typed.AlgoBuckets:
		return int64(sp.Period) / sp.In
	}
	return 0
}

// start is the instant a search starts at: a boundary of every window, or epochBase.
func (al alignment) start() int64 {
	if al.period == 0 {
		return epochBase
	}
	return al.base
}

// pieceEnd returns the last start, from a on and before the next boundary of every window, of
// the piece that a lies in: where no admission timed from the start has crossed a boundary yet.
// It runs senders from a and a+1 side by side: an admission that comes 1ns later in the second
// run is timed from the start, and the first of them to reach a boundary, at its boundary−1ns,
// ends the piece: the least such start. The admissions that come at the same instant in both are timed from a
// boundary and never cross one. Runs that part otherwise make a a piece of its own, and runs
// that reach the same state at the same instant go on alike, which ends the comparison.
//
// In an Or, the order of two admissions matters too, since it decides which limits are charged:
// with meets set, a piece also ends where an admission timed from the start would meet the next
// one timed from a boundary.
func (al alignment) pieceEnd(p policy, a, horizon int64, meets bool, b *budget) int64 {
	last := al.base + al.period - 1
	if a >= last {
		return last
	}
	end, pieceEnd, moved, steps := a+horizon, last, int64(math.MinInt64), 0
	one, two := newSender(p, a, b), newSender(p, a+1, b)
	for {
		t1, ok1 := one.next(end)
		t2, ok2 := two.next(end + 1)
		switch {
		case !ok1 || !ok2:
			return pieceEnd
		case t2 == t1+1:
			pieceEnd, moved = min(pieceEnd, a+al.nextBoundary(t1)-1-t1), t1
		case t2 != t1:
			return a // the runs part already: a ends its piece
		case meets && moved > math.MinInt64 && t1 > moved:
			pieceEnd = min(pieceEnd, a+t1-moved-1)
		}
		if steps++; t2 == t1 && steps%32 == 0 && bytes.Equal(one.l.state(), two.l.state()) {
			return pieceEnd // the same state at the same instant: the runs go on alike
		}
	}
}

// nextBoundary returns the first boundary of any window after t.
func (al alignment) nextBoundary(t int64) int64 {
	next := int64(math.MaxInt64)
	for _, w := range al.windows {
		next = min(next, t-t%w+w)
	}
	return next
}

// leaves calls f for each leaf of sp, in order.
func leaves(sp typed.Spec, f func(typed.Spec)) {
	if len(sp.Of) == 0 {
		f(sp)
		return
	}
	for _, c := range sp.Of {
		leaves(c, f)
	}
}

// lcm returns the least common multiple of a and b (a of 0 gives b), or -1 when it would exceed
// maxLCM: windows whose boundaries coincide so rarely are searched no further than that.
func lcm(a, b int64) int64 {
	switch {
	case a < 0:
		return a
	case a == 0:
		return b
	}
	g := gcd(a, b)
	if a/g > maxLCM/b {
		return -1
	}
	return a / g * b
}

// maxLCM bounds the common period of a policy's windows: 400 days.
const maxLCM = int64(400 * 24 * time.Hour)

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func maxOf(xs []int64) int64 {
	m := int64(0)
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}
