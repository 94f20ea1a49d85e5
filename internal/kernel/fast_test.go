package kernel

import (
	"math"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// A fastCase is a kernel with a fast path: a fresh value, and its Debit (fast path first) and
// debit (the general path).
type fastCase[K comparable] struct {
	fresh       func(Rate, int64) K
	Debit, slow func(K, int64, int64) (K, int64, bool)
}

// checkFast checks that Debit, which decides the common case in Fast, answers exactly like debit,
// the general path, from every state a timeline reaches: rates of whole and fractional nanoseconds
// per token, instants in order, backwards, equal, and near both ends of the range, costs from 1 to
// beyond the burst. Refusals must leave the value as it was.
func checkFast[K comparable](t *testing.T, c fastCase[K]) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.OneOf(rapid.Just(int64(1)), rapid.Int64Range(1, 1000)).Draw(t, "n")
		per := rapid.OneOf(rapid.Int64Range(1, 1e6), rapid.Int64Range(1, 1e15)).Draw(t, "per")
		rate := NewRate(n, per)
		burst := rapid.Int64Range(1, 100).Draw(t, "burst")
		if !rate.FitsBurst(burst) { // at most 100 tokens of at most 10^15 ns each: it always fits
			t.Fatalf("the policy %d per %d, burst %d, does not fit", n, per, burst)
		}
		k := c.fresh(rate, burst)
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
			fast, fromFast, okFast := c.Debit(k, at, cost)
			slow, fromSlow, okSlow := c.slow(k, at, cost)
			if fast != slow || fromFast != fromSlow || okFast != okSlow || !okFast && fast != k {
				t.Fatalf("debit %d of %d at %d from %+v:\nDebit: %+v %d %v\ndebit: %+v %d %v",
					i, cost, at, k, fast, fromFast, okFast, slow, fromSlow, okSlow)
			}
			k = slow
		}
	})
}

func TestGCRAFastPath(t *testing.T) {
	checkFast(t, fastCase[GCRA]{
		fresh: func(r Rate, burst int64) GCRA { return NewGCRA(r, burst).Fresh() },
		Debit: GCRA.Debit, slow: GCRA.debit,
	})
}

func TestTokenBucketFastPath(t *testing.T) {
	checkFast(t, fastCase[TokenBucket]{
		fresh: func(r Rate, c int64) TokenBucket { return NewBucket(r, c).FreshTokens() },
		Debit: TokenBucket.Debit, slow: TokenBucket.debit,
	})
}

func TestLeakyBucketFastPath(t *testing.T) {
	checkFast(t, fastCase[LeakyBucket]{
		fresh: func(r Rate, c int64) LeakyBucket { return NewBucket(r, c).FreshLeaky() },
		Debit: LeakyBucket.Debit, slow: LeakyBucket.debit,
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
	if q := NewBucket(NewRate(1, math.MaxInt64/4), 3); q.below != MinInstant {
		t.Fatalf("a bucket beyond MaxInstant/2 must have no fast path, below = %d", q.below)
	}
	for _, at := range []int64{MaxInstant - 3*int64(time.Hour), MaxInstant - 3*int64(time.Hour) + 1} {
		p := NewBucket(NewRate(1, int64(time.Hour)), 3)
		tb, lb := p.FreshTokens(), p.FreshLeaky()
		for range 5 {
			nt, ft, okt := tb.Debit(at, 1)
			st, sft, sokt := tb.debit(at, 1)
			nl, fl, okl := lb.Debit(at, 1)
			sl, sfl, sokl := lb.debit(at, 1)
			if nt != st || ft != sft || okt != sokt || nl != sl || fl != sfl || okl != sokl {
				t.Fatalf("at %d the buckets' paths differ", at)
			}
			tb, lb = st, sl
		}
	}
}
