package bench

import (
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
)

// slidingWindow is the window of the sliding log benchmarks.
const slidingWindow = time.Second

// BenchmarkSlidingLog is one debit of a sliding log of n entries in steady state: the log is full,
// and each debit comes window/n after the previous one, exactly when the oldest entry leaves the
// window, so every debit is admitted and evicts one entry. None of the peers keeps a sliding log in
// memory; issue 2 wants n = 10^6 within 1.5× of n = 10^3.
func BenchmarkSlidingLog(b *testing.B) {
	for _, n := range []int64{1_000, 1_000_000} {
		b.Run(name("lib", "numerus-iface", "n", n, "result", allow), func(b *testing.B) { slidingNumerus(b, n) })
	}
}

func slidingNumerus(b *testing.B, n int64) {
	spacing := slidingWindow / time.Duration(n)
	if spacing*time.Duration(n) != slidingWindow {
		b.Fatalf("n=%d does not divide the window %v", n, slidingWindow)
	}
	l := must(numerus.SlidingWindow(slidingWindow, n))
	at := t0
	for i := range n {
		next, _, ok := l.Debit(at)
		if !ok {
			b.Fatalf("%v refused fill debit %d at %v", l, i, at)
		}
		l, at = next, at.Add(spacing)
	}
	if rem := l.Status(at.Add(-1)).Remaining; rem != 0 {
		b.Fatalf("after filling, %v has %d remaining; want a full log", l, rem)
	}
	b.ReportAllocs()
	allowed := 0
	for b.Loop() {
		next, _, ok := l.Debit(at)
		if ok {
			allowed++
		}
		l, at = next, at.Add(spacing)
	}
	checkAllowed(b, allow, allowed, b.N)
}
