package bench

import (
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"golang.org/x/time/rate"
)

// A debitPlan is the policy and timeline of one debit at an explicit instant, shared by every
// library so that each sees the same inputs: a token bucket of burst tokens refilled one every
// every, drained by drain debits at t0, then debited once per iteration at instants step apart.
type debitPlan struct {
	every time.Duration
	burst int64
	drain int64
	step  time.Duration
}

// debitPlanFor returns the plan whose every debit answers r: for allow, the instants are exactly
// one token apart, so the bucket never runs dry; for deny, the bucket is empty and refills in an
// hour while the instants advance by a nanosecond.
func debitPlanFor(r result) debitPlan {
	if r == allow {
		return debitPlan{every: time.Microsecond, burst: 10, step: time.Microsecond}
	}
	return debitPlan{every: time.Hour, burst: 1, drain: 1, step: time.Nanosecond}
}

// A windowPlan is the same for the window algorithms (fixed window, sliding counter): n tokens
// per window, drained by drain debits at t0 (the start of a window), then debited once per
// iteration at instants step apart.
type windowPlan struct {
	window time.Duration
	n      int64
	drain  int64
	step   time.Duration
}

// windowPlanFor returns the window plan whose every debit answers r: for allow, a debit every
// microsecond, 1,000 a window, under a limit of 2,000 a millisecond (the sliding counter adds the
// previous window's count, weighted, to the current one's: at the rate of its limit it would refuse
// some); for deny, all 10 tokens of an hour's window taken at t0 and the instants advancing by a
// nanosecond.
func windowPlanFor(r result) windowPlan {
	if r == allow {
		return windowPlan{window: time.Millisecond, n: 2000, step: time.Microsecond}
	}
	return windowPlan{window: time.Hour, n: 10, drain: 10, step: time.Nanosecond}
}

// BenchmarkDebit is one debit of one token at an explicit instant, admitted or refused: the cost
// of the decision itself, with no clock read. lib=numerus-typed is the typed GCRA; the typed token
// and leaky buckets run the same plan, the typed fixed window and sliding counter the window plan.
func BenchmarkDebit(b *testing.B) {
	for _, r := range results {
		p, w := debitPlanFor(r), windowPlanFor(r)
		b.Run(name("lib", "numerus-iface", "result", r), func(b *testing.B) { debitNumerus(b, p, r) })
		b.Run(name("lib", "numerus-typed", "result", r), func(b *testing.B) { debitTyped(b, p, r) })
		b.Run(name("lib", "numerus-typed-token", "result", r), func(b *testing.B) { debitTypedToken(b, p, r) })
		b.Run(name("lib", "numerus-typed-leaky", "result", r), func(b *testing.B) { debitTypedLeaky(b, p, r) })
		b.Run(name("lib", "numerus-typed-window", "result", r), func(b *testing.B) { debitTypedWindow(b, w, r) })
		b.Run(name("lib", "numerus-typed-count", "result", r), func(b *testing.B) { debitTypedCount(b, w, r) })
		b.Run(name("lib", "xrate", "result", r), func(b *testing.B) { debitXrate(b, p, r) })
	}
}

// debitNumerus runs the plan through the Limiter interface, on GCRA.
func debitNumerus(b *testing.B, p debitPlan, r result) {
	l := must(numerus.GCRA(numerus.Every(p.every), p.burst))
	l = drainNumerus(b, l, t0, p.drain)
	b.ReportAllocs()
	tl, allowed := newTimeline(b, t0, p.step), 0
	for b.Loop() {
		at := tl.next()
		next, _, ok := l.Debit(at)
		if ok {
			allowed++
		}
		l = next
	}
	checkAllowed(b, r, allowed, b.N)
}

// debitXrate runs the plan through golang.org/x/time/rate's AllowN(t, 1).
func debitXrate(b *testing.B, p debitPlan, r result) {
	l := rate.NewLimiter(rate.Every(p.every), int(p.burst))
	if p.drain > 0 && !l.AllowN(t0, int(p.drain)) {
		b.Fatalf("xrate refused to drain %d at t0", p.drain)
	}
	b.ReportAllocs()
	tl, allowed := newTimeline(b, t0, p.step), 0
	for b.Loop() {
		at := tl.next()
		if l.AllowN(at, 1) {
			allowed++
		}
	}
	checkAllowed(b, r, allowed, b.N)
}
