package bench

import (
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"golang.org/x/time/rate"
)

// A limit is one token bucket of a composed policy: burst tokens, refilled burst every per.
type limit struct {
	burst int64
	per   time.Duration
}

// composed is the policy of three limits: 10/s, 100/min and 1000/h, each bursting to its count.
var composed = [3]limit{{10, time.Second}, {100, time.Minute}, {1000, time.Hour}}

// A composedPlan is the timeline of the composed policy. For allow, the instants are 3.6 s apart,
// the slowest limit's interval, so every limit admits every debit. For deny, the last limit is
// drained at t0 and the instants advance by a nanosecond: the first two limits admit and the last
// refuses, the case where a sequence of peers must refund what it took.
type composedPlan struct {
	drainLast bool
	step      time.Duration
}

func composedPlanFor(r result) composedPlan {
	if r == allow {
		return composedPlan{step: composed[2].per / time.Duration(composed[2].burst)}
	}
	return composedPlan{drainLast: true, step: time.Nanosecond}
}

// BenchmarkAllOf3 is one debit of a policy of three limits: numerus's AllOf against three
// x/time/rate limiters reserved in sequence and refunded (Reservation.CancelAt) when one refuses.
// uber's ratelimit cannot take part: its Take blocks and never refuses, so it cannot say no to a
// composed policy without waiting out the slowest limit (RESULTS.md says so).
func BenchmarkAllOf3(b *testing.B) {
	for _, r := range results {
		p := composedPlanFor(r)
		b.Run(name("lib", "numerus-iface", "result", r), func(b *testing.B) { allOfNumerus(b, p, r) })
		b.Run(name("lib", "numerus-typed", "result", r), func(b *testing.B) { allOfTyped(b, p, r) })
		b.Run(name("lib", "xrate-seq", "result", r), func(b *testing.B) { allOfXrate(b, p, r) })
	}
}

func allOfNumerus(b *testing.B, p composedPlan, r result) {
	var ls [3]numerus.Limiter
	for i, c := range composed {
		ls[i] = must(numerus.GCRA(numerus.Per(c.burst, c.per), c.burst))
	}
	if p.drainLast {
		ls[2] = drainNumerus(b, ls[2], t0, composed[2].burst)
	}
	l := numerus.AllOf(ls[:]...)
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

func allOfXrate(b *testing.B, p composedPlan, r result) {
	var ls [3]*rate.Limiter
	for i, c := range composed {
		ls[i] = rate.NewLimiter(rate.Every(c.per/time.Duration(c.burst)), int(c.burst))
	}
	if p.drainLast && !ls[2].AllowN(t0, int(composed[2].burst)) {
		b.Fatal("xrate refused to drain the last limit at t0")
	}
	b.ReportAllocs()
	tl, at, allowed := newTimeline(b, t0, p.step), t0, 0
	for b.Loop() {
		at = tl.next()
		if allowAllXrate(ls[:], at) {
			allowed++
		}
	}
	checkAllowed(b, r, allowed, b.N)
	checkRefunded(b, ls[:2], at)
}

// allowAllXrate reserves a token from each limiter at the instant at, in order. If one cannot
// grant it at once, it cancels that reservation and every earlier one and reports false.
func allowAllXrate(ls []*rate.Limiter, at time.Time) bool {
	var taken [3]*rate.Reservation
	for i, l := range ls {
		res := l.ReserveN(at, 1)
		if !res.OK() || res.DelayFrom(at) > 0 {
			res.CancelAt(at)
			for _, t := range taken[:i] {
				t.CancelAt(at)
			}
			return false
		}
		taken[i] = res
	}
	return true
}

// checkRefunded fails the benchmark unless the limiters still hold at least all but one token of
// their burst at the instant at: the refunds gave back what each refused debit took.
func checkRefunded(b *testing.B, ls []*rate.Limiter, at time.Time) {
	b.Helper()
	for _, l := range ls {
		if got := l.TokensAt(at); got < float64(l.Burst()-1) {
			b.Fatalf("a limiter of burst %d holds %.3f tokens: refunds were lost", l.Burst(), got)
		}
	}
}
