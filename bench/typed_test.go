package bench

import (
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/typed"
)

// typedLimiter is what the typed benchmarks debit: any typed value, debited without boxing.
type typedLimiter[L any] interface {
	Debit(at time.Time) (L, numerus.NextDebitable, bool)
}

// drainTyped debits l n times at at, failing the benchmark if it refuses.
func drainTyped[L typedLimiter[L]](b *testing.B, l L, at time.Time, n int64) L {
	b.Helper()
	for i := range n {
		next, _, ok := l.Debit(at)
		if !ok {
			b.Fatalf("typed value refused debit %d of %d at %v while draining", i+1, n, at)
		}
		l = next
	}
	return l
}

// debitTyped runs the debit plan on a typed GCRA value: the zero-allocation path. The loop names
// the concrete type, as a user's code does, so that the call is direct (a generic loop would call
// through a dictionary).
func debitTyped(b *testing.B, p debitPlan, r result) {
	l := drainTyped(b, must(typed.NewGCRA(numerus.Every(p.every), p.burst)), t0, p.drain)
	b.ReportAllocs()
	tl, allowed := newTimeline(b, t0, p.step), 0
	var ok bool
	for b.Loop() {
		if l, _, ok = l.Debit(tl.next()); ok {
			allowed++
		}
	}
	checkAllowed(b, r, allowed, b.N)
}

// debitTypedToken runs the debit plan on a typed token bucket, as debitTyped does on a GCRA.
func debitTypedToken(b *testing.B, p debitPlan, r result) {
	l := drainTyped(b, must(typed.NewTokenBucket(p.burst, numerus.Every(p.every))), t0, p.drain)
	b.ReportAllocs()
	tl, allowed := newTimeline(b, t0, p.step), 0
	var ok bool
	for b.Loop() {
		if l, _, ok = l.Debit(tl.next()); ok {
			allowed++
		}
	}
	checkAllowed(b, r, allowed, b.N)
}

// debitTypedLeaky runs the debit plan on a typed leaky bucket, as debitTyped does on a GCRA.
func debitTypedLeaky(b *testing.B, p debitPlan, r result) {
	l := drainTyped(b, must(typed.NewLeakyBucket(p.burst, numerus.Every(p.every))), t0, p.drain)
	b.ReportAllocs()
	tl, allowed := newTimeline(b, t0, p.step), 0
	var ok bool
	for b.Loop() {
		if l, _, ok = l.Debit(tl.next()); ok {
			allowed++
		}
	}
	checkAllowed(b, r, allowed, b.N)
}

// debitTypedWindow runs the window plan on a typed fixed window, as debitTyped does on a GCRA.
func debitTypedWindow(b *testing.B, p windowPlan, r result) {
	l := drainTyped(b, must(typed.NewFixedWindow(p.window, p.n)), t0, p.drain)
	b.ReportAllocs()
	tl, allowed := newTimeline(b, t0, p.step), 0
	var ok bool
	for b.Loop() {
		if l, _, ok = l.Debit(tl.next()); ok {
			allowed++
		}
	}
	checkAllowed(b, r, allowed, b.N)
}

// debitTypedCount runs the window plan on a typed sliding window counter, as debitTyped does on a
// GCRA.
func debitTypedCount(b *testing.B, p windowPlan, r result) {
	l := drainTyped(b, must(typed.NewSlidingWindowCount(p.window, p.n)), t0, p.drain)
	b.ReportAllocs()
	tl, allowed := newTimeline(b, t0, p.step), 0
	var ok bool
	for b.Loop() {
		if l, _, ok = l.Debit(tl.next()); ok {
			allowed++
		}
	}
	checkAllowed(b, r, allowed, b.N)
}

// allOfTyped runs the composed plan on typed.And of three typed GCRA values.
func allOfTyped(b *testing.B, p composedPlan, r result) {
	var gs [3]typed.GCRA
	for i, c := range composed {
		gs[i] = must(typed.NewGCRA(numerus.Per(c.burst, c.per), c.burst))
	}
	if p.drainLast {
		gs[2] = drainTyped(b, gs[2], t0, composed[2].burst)
	}
	l := typed.NewAnd(gs[0], typed.NewAnd(gs[1], gs[2]))
	b.ReportAllocs()
	tl, allowed := newTimeline(b, t0, p.step), 0
	var ok bool
	for b.Loop() {
		if l, _, ok = l.Debit(tl.next()); ok {
			allowed++
		}
	}
	checkAllowed(b, r, allowed, b.N)
}
