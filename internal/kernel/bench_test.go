package kernel

import (
	"math"
	"strconv"
	"testing"
	"time"
)

// benchKernel is what every kernel provides to the benchmarks.
type benchKernel[K any] interface {
	Debit(at, cost int64) (K, int64, bool)
	Status(at int64) Status
}

// benchStart is the instant the benchmarks start from: 2026-01-01T00:00:00Z.
var benchStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()

// BenchmarkDebit debits each kernel directly, without the Limiter interface: the arithmetic
// alone, on the admitted path (one debit every step, all admitted) and on the refused path (a full
// kernel debited at the instant it filled up). Each checks and reports the fraction admitted.
func BenchmarkDebit(b *testing.B) {
	us, sec := int64(time.Microsecond), int64(time.Second)
	perUs, tenPerSec := NewRate(1, us), NewRate(10, sec)
	b.Run("algo=gcra", func(b *testing.B) {
		benchPaths(b, NewGCRA(perUs, 1).Fresh(), us, NewGCRA(tenPerSec, 5).Fresh())
	})
	b.Run("algo=token", func(b *testing.B) {
		benchPaths(b, NewBucket(perUs, 1).FreshTokens(), us, NewBucket(tenPerSec, 5).FreshTokens())
	})
	b.Run("algo=leaky", func(b *testing.B) {
		benchPaths(b, NewBucket(perUs, 1).FreshLeaky(), us, NewBucket(tenPerSec, 5).FreshLeaky())
	})
	b.Run("algo=finite", func(b *testing.B) {
		benchPaths(b, Finite{Size: math.MaxInt64, Left: math.MaxInt64}, us, Finite{Size: 5, Left: 5})
	})
	b.Run("algo=window", func(b *testing.B) {
		a := NewWindow(us, 1, benchStart)
		r := NewWindow(sec, 5, benchStart)
		benchPaths(b, a.FreshWindow(), us, r.FreshWindow())
	})
	b.Run("algo=count", func(b *testing.B) {
		a := NewWindow(sec, 1000, benchStart)
		r := NewWindow(sec, 5, benchStart)
		benchPaths(b, a.FreshCounter(), 2*sec/1000, r.FreshCounter())
	})
	b.Run("algo=buckets", func(b *testing.B) {
		p := &LogPolicy{Width: sec, Limit: 1000, Quantum: sec / 10}
		benchLogPaths(b, p)
	})
	for _, n := range []int64{1000, 1_000_000} {
		b.Run("algo=sliding/n="+strconv.FormatInt(n, 10), func(b *testing.B) {
			benchLogPaths(b, &LogPolicy{Width: sec, Limit: n, Quantum: 1})
		})
	}
}

// benchPaths runs the admitted path of admit, debited every step from benchStart, and the
// refused path of refuse, filled at benchStart.
func benchPaths[K benchKernel[K]](b *testing.B, admit K, step int64, refuse K) {
	b.Run("result=allow", func(b *testing.B) { benchAdmit(b, admit, benchStart, step) })
	b.Run("result=deny", func(b *testing.B) { benchRefuse(b, benchFill(b, refuse, benchStart), benchStart) })
}

// benchLogPaths runs both paths of a log of p.Limit per p.Width in steady state: debits spaced
// Width/Limit apart, so that each admitted one expires the oldest entry and appends one.
func benchLogPaths(b *testing.B, p *LogPolicy) {
	step := p.Width / p.Limit
	steady := func(b *testing.B) (Log, int64) {
		l, at := p.FreshLog(), benchStart
		for range p.Limit {
			l, at = benchMust(b, l, at), at+step
		}
		return l, at
	}
	b.Run("result=allow", func(b *testing.B) {
		l, at := steady(b)
		benchAdmit(b, l, at, step)
	})
	b.Run("result=deny", func(b *testing.B) {
		l, at := steady(b)
		benchRefuse(b, l, at-step)
	})
}

// benchMust debits k at at and fails the benchmark if it refuses: a setup that is not what it says.
func benchMust[K benchKernel[K]](b *testing.B, k K, at int64) K {
	next, from, ok := k.Debit(at, 1)
	if !ok {
		b.Fatalf("setup: refused at %d, debitable from %d", at, from)
	}
	return next
}

// benchFill debits k at at until it refuses.
func benchFill[K benchKernel[K]](b *testing.B, k K, at int64) K {
	for range 1_000_000 {
		next, _, ok := k.Debit(at, 1)
		if !ok {
			return k
		}
		k = next
	}
	b.Fatal("setup: the kernel never filled up")
	return k
}

func benchAdmit[K benchKernel[K]](b *testing.B, k K, at, step int64) {
	var n, admitted int
	b.ReportAllocs()
	for b.Loop() {
		next, _, ok := k.Debit(at, 1)
		if ok {
			admitted++
		}
		k, at, n = next, at+step, n+1
	}
	benchRatio(b, admitted, n, 1)
}

func benchRefuse[K benchKernel[K]](b *testing.B, k K, at int64) {
	var n, admitted int
	b.ReportAllocs()
	for b.Loop() {
		next, _, ok := k.Debit(at, 1)
		if ok {
			admitted++
		}
		k, n = next, n+1
	}
	benchRatio(b, admitted, n, 0)
}

// benchRatio reports the fraction of debits admitted and fails unless it is want.
func benchRatio(b *testing.B, admitted, n int, want float64) {
	b.Helper()
	got := float64(admitted) / float64(n)
	b.ReportMetric(got, "admitted/op")
	if got != want {
		b.Fatalf("admitted %d of %d debits, want a fraction of %v", admitted, n, want)
	}
}

// BenchmarkLogExpired asks a full sliding log, whose entries have all but the newest expired, for
// its status and for a debit of the whole limit (refused): work whose result is not kept, so each
// call drops the expired entries again. It takes O(log n) time, not O(n).
func BenchmarkLogExpired(b *testing.B) {
	for _, n := range []int64{1000, 1_000_000} {
		p := &LogPolicy{Width: n, Limit: n, Quantum: 1}
		l := p.FreshLog()
		for i := range n {
			l = benchMust(b, l, benchStart+i)
		}
		at := benchStart + 2*n - 2 // every entry but the newest has expired
		b.Run("n="+strconv.FormatInt(n, 10)+"/op=status", func(b *testing.B) {
			for b.Loop() {
				if s := l.Status(at); s.Remaining != n-1 {
					b.Fatalf("remaining %d, want %d", s.Remaining, n-1)
				}
			}
		})
		b.Run("n="+strconv.FormatInt(n, 10)+"/op=refuse", func(b *testing.B) {
			for b.Loop() {
				if _, _, ok := l.Debit(at, n); ok {
					b.Fatal("admitted")
				}
			}
		})
	}
}
