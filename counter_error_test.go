package numerus_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"pgregory.net/rapid"

	"github.com/numerus-closus/numerus"
)

// TestCounterErrorAgainstLog measures the sliding window counter's approximation against the
// exact sliding log (PITFALLS 12). Both see the same greedy traffic: a debit every step, kept when
// admitted. The log admits at most n in any span of one window, exactly; the counter, whose
// estimate weighs the previous fixed window as if its tokens were spread evenly, admits more in
// some spans. The test measures the largest count the counter lets into any span of one window
// and checks the documented bound: at most 2n, never more than n per aligned window.
func TestCounterErrorAgainstLog(t *testing.T) {
	var worst float64
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.Int64Range(1, 20).Draw(t, "n")
		w := time.Duration(rapid.Int64Range(10, 1000).Draw(t, "window ns"))
		step := time.Duration(rapid.Int64Range(1, int64(w)).Draw(t, "step"))
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		counter := numerus.Must(numerus.SlidingWindowCount(w, n, t0))
		log := numerus.Must(numerus.SlidingWindow(w, n))
		var byCounter, byLog []time.Time
		for at := t0; at.Before(t0.Add(20 * w)); at = at.Add(step) {
			if next, _, ok := counter.Debit(at); ok {
				counter, byCounter = next, append(byCounter, at)
			}
			if next, _, ok := log.Debit(at); ok {
				log, byLog = next, append(byLog, at)
			}
		}
		cMax, lMax := maxInSpan(byCounter, w), maxInSpan(byLog, w)
		if lMax > n {
			t.Fatalf("the log admitted %d in one window of %v, limit %d", lMax, w, n)
		}
		if cMax > 2*n {
			t.Fatalf("the counter admitted %d in one window of %v, above 2n = %d", cMax, w, 2*n)
		}
		worst = max(worst, float64(cMax)/float64(n))
	})
	t.Logf("largest count the counter admitted in one window span, as a multiple of n: %.2f (log: at most 1)", worst)
	assert.LessOrEqual(t, worst, 2.0)
}

// maxInSpan returns the most instants of ts (ascending) that lie in any half-open span of length w.
func maxInSpan(ts []time.Time, w time.Duration) int64 {
	var best int64
	lo := 0
	for hi := range ts {
		for !ts[lo].Add(w).After(ts[hi]) {
			lo++
		}
		best = max(best, int64(hi-lo+1))
	}
	return best
}
