package memory_test

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/benchpb"
	"github.com/numerus-closus/numerus/internal/inplace"
	"github.com/numerus-closus/numerus/internal/kernel"
	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/memory"
	"github.com/numerus-closus/numerus/typed"
)

// benchLimiter returns a limiter under which every measured check answers result: a limit no run
// reaches, or one token per hour per subject, taken before the timer starts.
func benchLimiter(b *testing.B, result string) keyed.Limiter[string] {
	sp := typed.Spec{Algo: typed.AlgoGCRA, Count: 1 << 30, Period: time.Hour, Burst: 1 << 30}
	if result == "deny" {
		sp = numerus.Must(typed.Parse("gcra 1/h burst 1"))
	}
	return limiter(b, memory.New(), sp)
}

// subjectsOf returns n distinct, non-empty subjects, checked.
func subjectsOf(b *testing.B, n int) []string {
	subjects := make([]string, n)
	seen := make(map[string]bool, n)
	for i := range subjects {
		subjects[i] = "subject:" + strconv.Itoa(i)
		seen[subjects[i]] = true
	}
	if len(seen) != n || seen[""] {
		b.Fatalf("%d subjects made, %d distinct", n, len(seen))
	}
	return subjects
}

// BenchmarkTryAcquire is one check of an existing subject on the memory store with the real
// clock, serially and from b.RunParallel's goroutines, over 1 or 10,000 distinct subjects. It
// reports the fraction admitted, which must be 1 or 0 as the result named.
func BenchmarkTryAcquire(b *testing.B) {
	for _, n := range []int{1, 10_000} {
		for _, mode := range []string{"serial", "parallel"} {
			for _, result := range []string{"allow", "deny"} {
				b.Run("subjects="+strconv.Itoa(n)+"/mode="+mode+"/result="+result, func(b *testing.B) {
					benchTryAcquire(b, n, mode == "parallel", result)
				})
			}
		}
	}
}

func benchTryAcquire(b *testing.B, n int, parallel bool, result string) {
	ctx := context.Background()
	l := benchLimiter(b, result)
	subjects := subjectsOf(b, n)
	for _, s := range subjects {
		if d, err := l.TryAcquire(ctx, s, 1); err != nil || !d.Allowed {
			b.Fatalf("filling %q: %v %v", s, d.Allowed, err)
		}
	}
	b.ReportAllocs()
	var allowed, total atomic.Int64
	if parallel {
		var g atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			pb = benchpb.Apart(pb) // see package benchpb
			i, ok, all := int(g.Add(1)*7919)%n, int64(0), int64(0)
			for pb.Next() {
				if d, _ := l.TryAcquire(ctx, subjects[i], 1); d.Allowed {
					ok++
				}
				all++
				if i++; i == n {
					i = 0
				}
			}
			allowed.Add(ok)
			total.Add(all)
		})
	} else {
		i := 0
		for b.Loop() {
			if d, _ := l.TryAcquire(ctx, subjects[i], 1); d.Allowed {
				allowed.Add(1)
			}
			total.Add(1)
			if i++; i == n {
				i = 0
			}
		}
	}
	ratio := float64(allowed.Load()) / float64(max(total.Load(), 1))
	b.ReportMetric(ratio, "allowed/op")
	if want := map[string]float64{"allow": 1, "deny": 0}[result]; ratio != want {
		b.Fatalf("allowed ratio %v, want %v", ratio, want)
	}
}

// BenchmarkBytesPerSubject reports the heap that 10^6 live subjects take, per subject.
func BenchmarkBytesPerSubject(b *testing.B) {
	for b.Loop() {
		b.ReportMetric(bytesPerSubject(b, 1_000_000), "bytes/subject")
	}
}

// BenchmarkLayers is one admitted check of one existing subject, layer by layer, to show where
// a TryAcquire spends its time: the policy's arithmetic on the State in place (debit), the
// store's Acquire at a given instant (store) and on its own clock (clock), and the keyed
// limiter's TryAcquire, which hands a string subject to the store's bind.Bound (limiter).
func BenchmarkLayers(b *testing.B) {
	ctx := context.Background()
	sp := typed.Spec{Algo: typed.AlgoGCRA, Count: 1 << 30, Period: time.Hour, Burst: 1 << 30}
	p, err := typed.Compile(sp)
	if err != nil {
		b.Fatal(err)
	}
	key := []byte("9:ratelimit:subject:42")
	b.Run("layer=debit", func(b *testing.B) {
		b.ReportAllocs()
		s, at, e := p.Fresh(), kernel.FromTime(t0), p.InPlace(inplace.Key{})
		for b.Loop() {
			at++
			if _, ok := e.DebitIn(&s, at, 1); !ok {
				b.Fatal("refused")
			}
		}
	})
	for _, layer := range []string{"store", "clock"} {
		b.Run("layer="+layer, func(b *testing.B) {
			b.ReportAllocs()
			s, r := memory.New(), keyed.Request{Key: key, Policy: p, Cost: 1, At: t0}
			for b.Loop() {
				if layer == "store" {
					r.At = r.At.Add(time.Nanosecond)
				} else {
					r.At = time.Time{}
				}
				if d, _ := s.Acquire(ctx, r); !d.Allowed {
					b.Fatal("refused")
				}
			}
		})
	}
	b.Run("layer=limiter", func(b *testing.B) {
		b.ReportAllocs()
		l := limiter(b, memory.New(), sp)
		for b.Loop() {
			if d, _ := l.TryAcquire(ctx, "subject:42", 1); !d.Allowed {
				b.Fatal("refused")
			}
		}
	})
}

// BenchmarkHotRefusal is one subject over its limit, checked from b.RunParallel's goroutines:
// every check is refused, under its shard's lock, writing nothing else. With ones, every check
// asks one token; with mixed, one check in 16 asks two.
func BenchmarkHotRefusal(b *testing.B) {
	for _, mode := range []string{"ones", "mixed"} {
		b.Run("mode="+mode, func(b *testing.B) {
			ctx := context.Background()
			l := limiter(b, memory.New(), numerus.Must(typed.Parse("gcra 2/h burst 2")))
			if d, err := l.TryAcquire(ctx, "hot", 2); err != nil || !d.Allowed {
				b.Fatalf("spending the subject: %v %v", d.Allowed, err)
			}
			every := map[string]int{"ones": 0, "mixed": 16}[mode]
			var admitted atomic.Int64
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				pb = benchpb.Apart(pb)
				for i := 1; pb.Next(); i++ {
					cost := int64(1)
					if every > 0 && i%every == 0 {
						cost = 2
					}
					if d, _ := l.TryAcquire(ctx, "hot", cost); d.Allowed {
						admitted.Add(1)
					}
				}
			})
			if admitted.Load() != 0 {
				b.Fatalf("%d checks of a spent subject admitted", admitted.Load())
			}
		})
	}
}
