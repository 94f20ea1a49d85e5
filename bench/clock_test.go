package bench

import (
	"context"
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/schedule"
	"go.uber.org/ratelimit"
	"golang.org/x/time/rate"
)

// A clockPlan is a token bucket debited at the instants the clock reads: for allow, a token every
// nanosecond and a burst no run can exhaust; for deny, an empty bucket that refills in an hour.
type clockPlan struct {
	every time.Duration
	burst int64
	drain int64
}

func clockPlanFor(r result) clockPlan {
	if r == allow {
		return clockPlan{every: time.Nanosecond, burst: 1 << 20}
	}
	return clockPlan{every: time.Hour, burst: 1, drain: 1}
}

// BenchmarkClock is one debit at the instant the clock reads: numerus with time.Now() per call,
// x/time/rate's Allow(), which reads the clock inside.
func BenchmarkClock(b *testing.B) {
	for _, r := range results {
		p := clockPlanFor(r)
		b.Run(name("lib", "numerus-iface", "result", r), func(b *testing.B) { clockNumerus(b, p, r) })
		b.Run(name("lib", "xrate", "result", r), func(b *testing.B) { clockXrate(b, p, r) })
	}
}

func clockNumerus(b *testing.B, p clockPlan, r result) {
	l := must(numerus.GCRA(numerus.Every(p.every), p.burst))
	l = drainNumerus(b, l, time.Now(), p.drain)
	b.ReportAllocs()
	allowed := 0
	for b.Loop() {
		next, _, ok := l.Debit(time.Now())
		if ok {
			allowed++
		}
		l = next
	}
	checkAllowed(b, r, allowed, b.N)
}

func clockXrate(b *testing.B, p clockPlan, r result) {
	l := rate.NewLimiter(rate.Every(p.every), int(p.burst))
	if p.drain > 0 && !l.AllowN(time.Now(), int(p.drain)) {
		b.Fatalf("xrate refused to drain %d", p.drain)
	}
	b.ReportAllocs()
	allowed := 0
	for b.Loop() {
		if l.Allow() {
			allowed++
		}
	}
	checkAllowed(b, r, allowed, b.N)
}

// takeBurst is the burst of the blocking take: uber's default slack of 10 lets 11 takes through
// at once after idle, so numerus gets a burst of 11 to match.
const takeBurst = 11

// takeRates are the rates of the blocking take, per second: at 10^6 each take sleeps about a
// microsecond, so the sleeps' granularity shows; at 10^7 the limiter's own cost is the bound, as in
// a tight client loop.
var takeRates = []struct {
	name string // without a slash, which would split the benchmark name
	rate int64
}{{"1e6", 1_000_000}, {"1e7", 10_000_000}}

// BenchmarkTake is a blocking take at a high rate: uber's Take against numerus three ways: a loop
// over the core that debits at the clock and, when refused, sleeps until the instant the limiter
// names and debits there (numerus-iface); package schedule's Wait (numerus-wait); and its
// goroutine-safe Gate (numerus-gate). Each checks that it did not admit more than the rate allows
// over the time it ran.
func BenchmarkTake(b *testing.B) {
	for _, tr := range takeRates {
		b.Run(name("lib", "numerus-iface", "rate", tr.name, "result", allow), func(b *testing.B) { takeNumerus(b, tr.rate) })
		b.Run(name("lib", "numerus-wait", "rate", tr.name, "result", allow), func(b *testing.B) { takeWait(b, tr.rate) })
		b.Run(name("lib", "numerus-gate", "rate", tr.name, "result", allow), func(b *testing.B) { takeGate(b, tr.rate) })
		b.Run(name("lib", "uber", "rate", tr.name, "result", allow), func(b *testing.B) { takeUber(b, tr.rate) })
	}
}

// takeNumerus is the loop a caller can write over the pure core: debit now; if refused, sleep
// until from and debit at from, which must be admitted.
func takeNumerus(b *testing.B, perSecond int64) {
	l := must(numerus.GCRA(numerus.Per(perSecond, time.Second), takeBurst))
	b.ReportAllocs()
	start, allowed := time.Now(), 0
	for b.Loop() {
		now := time.Now()
		next, from, ok := l.Debit(now)
		if !ok {
			at, finite := from.Time()
			if !finite {
				b.Fatalf("%v answered never", l)
			}
			time.Sleep(at.Sub(now))
			next, _, ok = l.Debit(at)
		}
		if ok {
			allowed++
		}
		l = next
	}
	checkPace(b, start, allowed, perSecond)
	checkAllowed(b, allow, allowed, b.N)
}

// takeWait is the same loop as package schedule writes it: Wait debits at the clock, sleeps
// until the answer's instant when refused, debits at the clock again when it wakes, and returns
// the limiter that follows.
func takeWait(b *testing.B, perSecond int64) {
	var l numerus.Limiter = must(numerus.GCRA(numerus.Per(perSecond, time.Second), takeBurst))
	ctx := context.Background()
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		var err error
		if l, _, err = schedule.Wait(ctx, l, 1); err != nil {
			b.Fatal(err)
		}
	}
	checkPace(b, start, b.N, perSecond)
	checkAllowed(b, allow, b.N, b.N)
}

// takeGate takes through schedule's Gate, the goroutine-safe blocking take that uber's Take is
// too.
func takeGate(b *testing.B, perSecond int64) {
	g := schedule.NewGate(must(numerus.GCRA(numerus.Per(perSecond, time.Second), takeBurst)))
	ctx := context.Background()
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		if _, err := g.Take(ctx, 1); err != nil {
			b.Fatal(err)
		}
	}
	checkPace(b, start, b.N, perSecond)
	checkAllowed(b, allow, b.N, b.N)
}

func takeUber(b *testing.B, perSecond int64) {
	l := ratelimit.New(int(perSecond), ratelimit.WithSlack(takeBurst-1))
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		l.Take()
	}
	checkPace(b, start, b.N, perSecond)
	checkAllowed(b, allow, b.N, b.N)
}

// checkPace fails the benchmark if more takes went through since start than perSecond and
// takeBurst allow.
func checkPace(b *testing.B, start time.Time, takes int, perSecond int64) {
	b.Helper()
	bound := takeBurst + int(time.Since(start).Seconds()*float64(perSecond)) + 1
	if takes > bound {
		b.Fatalf("%d takes went through where the rate allows at most %d", takes, bound)
	}
}
