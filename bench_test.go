package numerus_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
)

// benchT0 is the instant every benchmark starts from.
var benchT0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// benchAlgo says how to drive one limiter down each path of a debit.
type benchAlgo struct {
	name string
	// admit returns a limiter in steady state, the instant to debit it next and a spacing such
	// that debits from that instant on, that far apart, are all admitted. Nil if it never admits.
	admit func() (l numerus.Limiter, start time.Time, step time.Duration)
	// refuse returns a limiter and an instant at which it refuses a debit of one. Nil if it never
	// refuses.
	refuse func() (numerus.Limiter, time.Time)
}

// benchAlgos lists every algorithm, one steady admitted path and one refused path each.
func benchAlgos() []benchAlgo {
	us, sec := time.Microsecond, time.Second
	m := numerus.Must[numerus.Limiter]
	return []benchAlgo{
		{"gcra", benchFresh(m(numerus.GCRA(numerus.Every(us), 1)), us),
			benchFull(m(numerus.GCRA(numerus.PerSecond(10), 5)))},
		{"token", benchFresh(m(numerus.TokenBucket(1, numerus.Every(us))), us),
			benchFull(m(numerus.TokenBucket(5, numerus.PerSecond(10))))},
		{"leaky", benchFresh(m(numerus.LeakyBucket(1, numerus.Every(us))), us),
			benchFull(m(numerus.LeakyBucket(5, numerus.PerSecond(10))))},
		{"finite", benchFresh(m(numerus.FiniteBucket(math.MaxInt64)), us),
			benchFull(m(numerus.FiniteBucket(5)))},
		{"window", benchFresh(m(numerus.FixedWindow(us, 1, benchT0)), us),
			benchFull(m(numerus.FixedWindow(sec, 5, benchT0)))},
		// 1000 a second debited at 500 a second: the estimate stays near 500.
		{"count", benchFresh(m(numerus.SlidingWindowCount(sec, 1000, benchT0)), 2*time.Millisecond),
			benchFull(m(numerus.SlidingWindowCount(sec, 5, benchT0)))},
		{"buckets", benchSteady(m(numerus.SlidingWindowBucketed(sec, 10, 1000)), 1000),
			benchSpread(m(numerus.SlidingWindowBucketed(sec, 10, 1000)), 1000)},
		{"sliding/n=1000", benchSteady(m(numerus.SlidingWindow(sec, 1000)), 1000),
			benchSpread(m(numerus.SlidingWindow(sec, 1000)), 1000)},
		{"sliding/n=1000000", benchSteady(m(numerus.SlidingWindow(sec, 1_000_000)), 1_000_000),
			benchSpread(m(numerus.SlidingWindow(sec, 1_000_000)), 1_000_000)},
		{"allow", benchFresh(numerus.AlwaysAllow(), us), nil},
		{"deny", nil, func() (numerus.Limiter, time.Time) { return numerus.AlwaysDeny(), benchT0 }},
		// Three children that all admit a debit every microsecond.
		{"and3", benchFresh(numerus.AllOf(m(numerus.GCRA(numerus.Every(us), 1)),
			m(numerus.SlidingWindow(time.Millisecond, 1000)), m(numerus.FixedWindow(us, 1, benchT0))), us),
			// The GCRA binds: the other two are asked and admit.
			benchFull(numerus.AllOf(m(numerus.GCRA(numerus.PerSecond(10), 5)),
				m(numerus.SlidingWindow(sec, 1000)), m(numerus.FixedWindow(sec, 1000, benchT0))))},
		{"or3", benchFresh(numerus.AnyOf(m(numerus.GCRA(numerus.Every(us), 1)),
			m(numerus.SlidingWindow(time.Millisecond, 1000)), m(numerus.FixedWindow(us, 1, benchT0))), us),
			// All three refuse.
			benchFull(numerus.AnyOf(m(numerus.GCRA(numerus.PerSecond(10), 5)),
				m(numerus.SlidingWindow(sec, 5)), m(numerus.FixedWindow(sec, 5, benchT0))))},
	}
}

// benchFresh is the admitted path of a fresh limiter debited every step from benchT0.
func benchFresh(l numerus.Limiter, step time.Duration) func() (numerus.Limiter, time.Time, time.Duration) {
	return func() (numerus.Limiter, time.Time, time.Duration) { return l, benchT0, step }
}

// benchSteady is the admitted path of a sliding window of n per second debited every second/n:
// after the first n debits, each one expires the oldest entry and appends one.
func benchSteady(l numerus.Limiter, n int) func() (numerus.Limiter, time.Time, time.Duration) {
	return func() (numerus.Limiter, time.Time, time.Duration) {
		step, at, next := time.Second/time.Duration(n), benchT0, l
		for range n {
			next = benchDebit(next, at)
			at = at.Add(step)
		}
		return next, at, step
	}
}

// benchFull is the refused path of a limiter debited at benchT0 until it refuses.
func benchFull(l numerus.Limiter) func() (numerus.Limiter, time.Time) {
	return func() (numerus.Limiter, time.Time) {
		for full := l; ; {
			next, _, ok := full.Debit(benchT0)
			if !ok {
				return full, benchT0
			}
			full = next
		}
	}
}

// benchSpread is the refused path of a sliding window of n per second holding n entries, one
// every second/n: the answer is searched among all of them.
func benchSpread(l numerus.Limiter, n int) func() (numerus.Limiter, time.Time) {
	return func() (numerus.Limiter, time.Time) {
		step, at, full := time.Second/time.Duration(n), benchT0, l
		for i := range n {
			if i > 0 {
				at = at.Add(step)
			}
			full = benchDebit(full, at)
		}
		return full, at
	}
}

// benchDebit debits l at at and panics if it refuses: a setup that does not do what it says.
func benchDebit(l numerus.Limiter, at time.Time) numerus.Limiter {
	next, from, ok := l.Debit(at)
	if !ok {
		panic(fmt.Sprintf("benchmark setup: %v refused at %v, %v", l, at, from))
	}
	return next
}

// BenchmarkDebit debits through the Limiter interface, every algorithm on its admitted path and on
// its refused path. Each sub-benchmark checks and reports the fraction of debits admitted.
func BenchmarkDebit(b *testing.B) {
	for _, a := range benchAlgos() {
		if a.admit != nil {
			b.Run("algo="+a.name+"/result=allow", func(b *testing.B) { benchAdmitted(b, a) })
		}
		if a.refuse != nil {
			b.Run("algo="+a.name+"/result=deny", func(b *testing.B) { benchRefused(b, a) })
		}
	}
}

func benchAdmitted(b *testing.B, a benchAlgo) {
	l, at, step := a.admit()
	var n, admitted int
	b.ReportAllocs()
	for b.Loop() {
		next, _, ok := l.Debit(at)
		if ok {
			admitted++
		}
		l, at, n = next, at.Add(step), n+1
	}
	benchCheckRatio(b, admitted, n, 1)
}

func benchRefused(b *testing.B, a benchAlgo) {
	l, at := a.refuse()
	var n, admitted int
	b.ReportAllocs()
	for b.Loop() {
		next, _, ok := l.Debit(at)
		if ok {
			admitted++
		}
		l, n = next, n+1
	}
	benchCheckRatio(b, admitted, n, 0)
}

// benchCheckRatio reports the fraction of debits admitted and fails unless it is want.
func benchCheckRatio(b *testing.B, admitted, n int, want float64) {
	b.Helper()
	got := float64(admitted) / float64(n)
	b.ReportMetric(got, "admitted/op")
	if got != want {
		b.Fatalf("admitted %d of %d debits, want a fraction of %v", admitted, n, want)
	}
}

// BenchmarkStatus reads the status of every algorithm in a steady state.
func BenchmarkStatus(b *testing.B) {
	for _, a := range benchAlgos() {
		if a.admit == nil {
			continue
		}
		b.Run("algo="+a.name, func(b *testing.B) {
			l, at, _ := a.admit()
			l = benchDebit(l, at)
			b.ReportAllocs()
			for b.Loop() {
				if s := l.Status(at); s.Limit < 1 {
					b.Fatalf("status %+v", s)
				}
			}
		})
	}
}

// BenchmarkAdmissions draws 100 instants from Admissions per operation, from a fresh limiter that
// refuses most of them first; it reports the cost per instant.
func BenchmarkAdmissions(b *testing.B) {
	const instants = 100
	for _, c := range []struct {
		name string
		l    numerus.Limiter
	}{
		{"gcra", numerus.Must(numerus.GCRA(numerus.PerSecond(10), 5))},
		{"sliding", numerus.Must(numerus.SlidingWindow(time.Second, 10))},
		{"and3", numerus.AllOf(
			numerus.Must(numerus.GCRA(numerus.PerSecond(10), 5)),
			numerus.Must(numerus.SlidingWindow(time.Second, 8)),
			numerus.Must(numerus.FixedWindow(time.Second, 9, benchT0)))},
	} {
		b.Run("algo="+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				for range numerus.Admissions(c.l, benchT0, 1) {
					if n++; n == instants {
						break
					}
				}
				if n != instants {
					b.Fatalf("schedule ended after %d instants, want %d", n, instants)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*instants), "ns/instant")
		})
	}
}
