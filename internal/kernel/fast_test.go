package kernel

import (
	"math"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// TestGCRAFastPath checks that GCRA.Debit, which decides the common case in Fast, answers exactly
// like debit, the general path, from every state a timeline reaches: rates of whole and fractional
// nanoseconds per token, tolerances small and near the limit of the fast path, instants in order,
// backwards, equal, and near both ends of the range, costs from 1 to beyond the burst.
func TestGCRAFastPath(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.OneOf(rapid.Just(int64(1)), rapid.Int64Range(1, 1000)).Draw(t, "n")
		per := rapid.OneOf(rapid.Int64Range(1, 1e6), rapid.Int64Range(1, 1e15)).Draw(t, "per")
		rate := NewRate(n, per)
		burst := rapid.Int64Range(1, 100).Draw(t, "burst")
		if !rate.FitsBurst(burst) {
			t.Skip("the policy does not fit")
		}
		g := NewGCRA(rate, burst).Fresh()
		at := rapid.OneOf(rapid.Int64Range(-1e9, 1e9), rapid.Just(MaxInstant-3*burst*rate.P),
			rapid.Just(MinInstant), rapid.Int64Range(MaxInstant-1e12, MaxInstant)).Draw(t, "start")
		for i := range 60 {
			switch rapid.IntRange(0, 5).Draw(t, "move") {
			case 0:
				at = SubSat(at, rapid.Int64Range(0, rate.P).Draw(t, "back"))
			case 1: // stay
			default:
				at = AddSat(at, rapid.Int64Range(0, 2*rate.P/rate.N+1).Draw(t, "step"))
			}
			cost := rapid.Int64Range(1, burst+1).Draw(t, "cost")
			fast, fromFast, okFast := g.Debit(at, cost)
			slow, fromSlow, okSlow := g.debit(at, cost)
			if fast != slow || fromFast != fromSlow || okFast != okSlow {
				t.Fatalf("debit %d of %d at %d from %+v:\nDebit: %+v %d %v\ndebit: %+v %d %v",
					i, cost, at, g, fast, fromFast, okFast, slow, fromSlow, okSlow)
			}
			g = slow
		}
	})
}

// TestGCRAFastEdge checks the edge of the fast path: the first instant that is not below it takes
// the general path, and both sides agree with it.
func TestGCRAFastEdge(t *testing.T) {
	p := NewGCRA(NewRate(1, int64(time.Hour)), 10)
	if p.below != MaxInstant-2*p.limit+1 {
		t.Fatalf("below = %d", p.below)
	}
	for _, at := range []int64{p.below - 1, p.below, p.below + 1, MaxInstant} {
		g := p.Fresh()
		for range 12 {
			next, from, ok := g.Debit(at, 1)
			snext, sfrom, sok := g.debit(at, 1)
			if next != snext || from != sfrom || ok != sok {
				t.Fatalf("at %d: Debit %+v %d %v, debit %+v %d %v", at, next, from, ok, snext, sfrom, sok)
			}
			g = snext
		}
	}
	if q := NewGCRA(NewRate(1, math.MaxInt64/8), 3); q.below != MinInstant {
		t.Fatalf("a tolerance beyond MaxInstant/4 must have no fast path, below = %d", q.below)
	}
	if q := NewGCRA(NewRate(3, 1000), 3); q.below != MinInstant {
		t.Fatalf("a fractional rate must have no fast path, below = %d", q.below)
	}
}
