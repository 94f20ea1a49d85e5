package storetest

import (
	"time"

	"github.com/numerus-closus/numerus/typed"
	"pgregory.net/rapid"
)

var leafAlgos = []typed.Algo{typed.AlgoGCRA, typed.AlgoToken, typed.AlgoLeaky, typed.AlgoFinite,
	typed.AlgoWindow, typed.AlgoCount, typed.AlgoSliding, typed.AlgoBuckets}

// genLeaf draws a leaf of a random algorithm with small counts, so that limits are reached, and
// periods from a millisecond to minutes.
func genLeaf(t *rapid.T) typed.Spec {
	algo := rapid.SampledFrom(leafAlgos).Draw(t, "algo")
	sp := typed.Spec{Algo: algo, Count: rapid.Int64Range(1, 8).Draw(t, "count")}
	if algo == typed.AlgoFinite {
		return sp
	}
	unit := rapid.SampledFrom([]time.Duration{time.Millisecond, time.Second, time.Minute}).Draw(t, "unit")
	sp.Period = time.Duration(rapid.Int64Range(1, 5).Draw(t, "mult")) * unit
	switch algo {
	case typed.AlgoGCRA, typed.AlgoToken, typed.AlgoLeaky:
		sp.Burst = rapid.Int64Range(0, 8).Draw(t, "burst")
	case typed.AlgoBuckets:
		sp.In = rapid.Int64Range(2, 4).Draw(t, "in")
		sp.Period *= time.Duration(sp.In)
	}
	return sp
}

// genSpec draws a leaf, or an And or Or of two or three specs, nested at most depth deep.
func genSpec(t *rapid.T, depth int) typed.Spec {
	if depth == 0 || rapid.IntRange(0, 2).Draw(t, "leaf") > 0 {
		return genLeaf(t)
	}
	sp := typed.Spec{Algo: rapid.SampledFrom([]typed.Algo{typed.AlgoAnd, typed.AlgoOr}).Draw(t, "op")}
	for range rapid.IntRange(2, 3).Draw(t, "children") {
		sp.Of = append(sp.Of, genSpec(t, depth-1))
	}
	return sp
}

// steps are the clock's moves in the model test: none (the same instant again), from a
// microsecond to a minute, and back by a millisecond to half a second, where a tree must count
// the instant as the latest it admitted at, even for a child of an Or that took no part in it.
var steps = []time.Duration{0, 0, time.Microsecond, time.Millisecond, 7 * time.Millisecond,
	100 * time.Millisecond, time.Second, 10 * time.Second, time.Minute,
	-time.Millisecond, -7 * time.Millisecond, -100 * time.Millisecond, -maxBack}

// maxBack is the furthest the model test's clock goes back behind the latest instant it gave: a
// store may forget a subject that has been full for a while (the memory store's grace, a second
// by default), and an instant further back would find it fresh.
const maxBack = 500 * time.Millisecond

// testModel is a state machine: on a random policy, random checks of a few subjects (TryAcquire
// of random costs up to the capacity, Peek, Reset) at a clock that moves forward by random steps
// or stays or steps back; every answer must be the reference's. The reference is a map of numerus limiters,
// one per subject, built with the root package's constructors.
func testModel(h *harness) {
	rapid.Check(h.t, func(rt *rapid.T) {
		sp := genSpec(rt, 2)
		h.set(t0.Add(time.Duration(rapid.Int64Range(0, 1e6).Draw(rt, "start")) * time.Microsecond))
		p := h.pairOf(rt, sp, "")
		limit := p.ref.Peek("", h.now()).Limit
		subject := rapid.SampledFrom([]string{"a", "b", "c"})
		on := func(t *rapid.T) pair { q := p; q.t = t; return q }
		latest := h.now()
		rt.Repeat(map[string]func(*rapid.T){
			"advance": func(t *rapid.T) {
				at := h.now().Add(rapid.SampledFrom(steps).Draw(t, "step"))
				if floor := latest.Add(-maxBack); at.Before(floor) {
					at = floor
				}
				if at.After(latest) {
					latest = at
				}
				h.set(at)
			},
			"acquire": func(t *rapid.T) {
				on(t).acquire(subject.Draw(t, "subject"), rapid.Int64Range(1, min(limit, 10)).Draw(t, "cost"))
			},
			"acquire one": func(t *rapid.T) { on(t).acquire(subject.Draw(t, "subject"), 1) },
			"peek":        func(t *rapid.T) { on(t).peek(subject.Draw(t, "subject")) },
			"reset":       func(t *rapid.T) { on(t).reset(subject.Draw(t, "subject")) },
		})
	})
}
