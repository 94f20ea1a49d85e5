package numerus_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
)

// allocsAlgos returns the benchmark table without the log of a million entries, whose code is
// the log of a thousand and whose setup would slow the tests down.
func allocsAlgos() []benchAlgo {
	var as []benchAlgo
	for _, a := range benchAlgos() {
		if !strings.Contains(a.name, "n=1000000") {
			as = append(as, a)
		}
	}
	return as
}

// allocsCombinator reports whether a row of the table is a combinator rather than one algorithm.
func allocsCombinator(a benchAlgo) bool { return a.name == "and3" || a.name == "or3" }

// TestAllocsAdmitted pins that an admitted debit of any one algorithm through the Limiter
// interface allocates at most once: the next value, boxed. The sliding log's shared storage grows
// rarely enough that the average, rounded down, stays 1.
func TestAllocsAdmitted(t *testing.T) {
	for _, a := range allocsAlgos() {
		if a.admit == nil || allocsCombinator(a) {
			continue
		}
		t.Run(a.name, func(t *testing.T) {
			l, at, step := a.admit()
			refused := 0
			got := testing.AllocsPerRun(200, func() {
				next, _, ok := l.Debit(at)
				if !ok {
					refused++
				}
				l, at = next, at.Add(step)
			})
			require.Zero(t, refused, "the admitted path refused")
			assert.LessOrEqual(t, got, 1.0, "allocations per admitted debit")
		})
	}
}

// TestAllocsRefused pins that a refused debit allocates nothing: the limiter returns its receiver.
// It holds for AnyOf too, whose children all refuse; AllOf is measured by BenchmarkDebit.
func TestAllocsRefused(t *testing.T) {
	for _, a := range allocsAlgos() {
		if a.refuse == nil || a.name == "and3" {
			continue
		}
		t.Run(a.name, func(t *testing.T) {
			l, at := a.refuse()
			admitted := 0
			got := testing.AllocsPerRun(200, func() {
				next, _, ok := l.Debit(at)
				if ok {
					admitted++
				}
				l = next
			})
			require.Zero(t, admitted, "the refused path admitted")
			assert.Zero(t, got, "allocations per refused debit")
		})
	}
}

// TestAllocsStatus pins that Status allocates nothing, for every algorithm and combinator.
func TestAllocsStatus(t *testing.T) {
	for _, a := range allocsAlgos() {
		if a.admit == nil {
			continue
		}
		t.Run(a.name, func(t *testing.T) {
			l, at, _ := a.admit()
			l = benchDebit(l, at)
			var s numerus.Status
			got := testing.AllocsPerRun(200, func() { s = l.Status(at) })
			require.Positive(t, s.Limit)
			assert.Zero(t, got, "allocations per Status")
		})
	}
}

// TestAllocsCombinators pins an upper bound on what an admitted debit of AllOf and AnyOf of three
// allocates: each child's next value, the new slice of children and the combinator itself.
func TestAllocsCombinators(t *testing.T) {
	for _, a := range allocsAlgos() {
		if !allocsCombinator(a) {
			continue
		}
		t.Run(a.name, func(t *testing.T) {
			l, at, step := a.admit()
			got := testing.AllocsPerRun(200, func() {
				l, _, _ = l.Debit(at)
				at = at.Add(step)
			})
			assert.LessOrEqual(t, got, 3.0+2, "allocations per admitted debit")
		})
	}
}

// TestAllocsLogAmortized pins the amortized cost of the sliding log's shared storage: over many
// debits in steady state (each expires one entry and appends one) and from a fresh log (the
// storage grows by doubling), a debit allocates the boxed value plus a small fraction of a buffer.
// A log that copied its entries on every debit would allocate about twice per debit and tens of
// kilobytes.
func TestAllocsLogAmortized(t *testing.T) {
	const n, debits = 1000, 100_000
	step := time.Second / n
	fresh := func() (numerus.Limiter, time.Time, time.Duration) {
		return numerus.Must(numerus.SlidingWindow(time.Second, n)), benchT0, step
	}
	for _, c := range []struct {
		name  string
		start func() (numerus.Limiter, time.Time, time.Duration)
	}{
		{"sliding/steady", benchSteady(numerus.Must(numerus.SlidingWindow(time.Second, n)), n)},
		{"sliding/fresh", fresh},
		{"buckets/steady", benchSteady(numerus.Must(numerus.SlidingWindowBucketed(time.Second, 10, n)), n)},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, at, step := c.start()
			allocs, bytes := allocsMeasure(func() {
				for range debits {
					l, at = benchDebit(l, at), at.Add(step)
				}
			})
			t.Logf("%.4f allocations and %.1f bytes per debit", allocs/debits, bytes/debits)
			assert.LessOrEqual(t, allocs/debits, 1.01, "allocations per debit")
			assert.LessOrEqual(t, bytes/debits, 128.0, "bytes per debit")
		})
	}
}

// allocsMeasure returns the heap allocations and bytes allocated while f runs.
func allocsMeasure(f func()) (allocs, bytes float64) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs - before.Mallocs), float64(after.TotalAlloc - before.TotalAlloc)
}

// TestAllocsAndRefused pins that an And of built-in limiters refuses without allocating: it asks
// its children before it charges them.
func TestAllocsAndRefused(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := numerus.AllOf(numerus.Must(numerus.SlidingWindow(time.Second, 10)),
		numerus.Must(numerus.GCRA(numerus.PerSecond(1), 1)), numerus.Must(numerus.FixedWindow(time.Second, 5, t0)))
	l, _, ok := l.Debit(t0)
	require.True(t, ok)
	got := testing.AllocsPerRun(200, func() {
		if _, _, ok := l.Debit(t0); ok {
			t.Fatal("admitted")
		}
	})
	assert.Zero(t, got, "allocations per refused And")
}
