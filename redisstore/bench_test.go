package redisstore_test

import (
	"context"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
)

// benchPolicies are the policies benchmarked: the cheapest state, the costliest (a log), and a
// tree. They admit about a million checks a second per subject, so the benchmarks measure
// admissions; each reports the share admitted to prove it.
var benchPolicies = []struct{ name, policy string }{
	{"gcra", "gcra 1000000/s"},
	{"sliding", "sliding 1000000/s"},
	{"tree", "token 1000000/s & window 1000000/s"},
}

func subjectNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "subject-" + strconv.Itoa(i)
	}
	return out
}

func reportAllowed(b *testing.B, allowed int64, checks int) {
	b.ReportMetric(float64(allowed)/float64(checks), "allowed/check")
}

// BenchmarkAcquire runs TryAcquire serially, the script reading the server's clock.
func BenchmarkAcquire(b *testing.B) {
	srv := redistest.Start(b)
	for _, bp := range benchPolicies {
		for _, keys := range []int{1, 10000} {
			b.Run("algo="+bp.name+"/keys="+strconv.Itoa(keys), func(b *testing.B) {
				l := limiter(b, redisstore.MustNew(srv.Client(b)), bp.policy, nil)
				subjects, ctx := subjectNames(keys), context.Background()
				var allowed int64
				n := 0
				b.ReportAllocs()
				for b.Loop() {
					d, err := l.TryAcquire(ctx, subjects[n%keys], 1)
					if err != nil {
						b.Fatal(err)
					}
					if d.Allowed {
						allowed++
					}
					n++
				}
				reportAllowed(b, allowed, n)
			})
		}
	}
}

// BenchmarkAcquireParallel runs TryAcquire from 64 goroutines sharing one client.
func BenchmarkAcquireParallel(b *testing.B) {
	srv := redistest.Start(b)
	for _, bp := range benchPolicies[:1] {
		for _, keys := range []int{1, 10000} {
			b.Run("algo="+bp.name+"/keys="+strconv.Itoa(keys)+"/goroutines=64", func(b *testing.B) {
				l := limiter(b, redisstore.MustNew(srv.Client(b)), bp.policy, nil)
				subjects, ctx := subjectNames(keys), context.Background()
				var allowed, checks, next atomic.Int64
				b.SetParallelism((64 + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
				b.ReportAllocs()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						d, err := l.TryAcquire(ctx, subjects[int(next.Add(1))%keys], 1)
						if err != nil {
							b.Error(err)
							return
						}
						if d.Allowed {
							allowed.Add(1)
						}
						checks.Add(1)
					}
				})
				reportAllowed(b, allowed.Load(), int(checks.Load()))
			})
		}
	}
}

// BenchmarkAcquireBatch runs batches of 100 checks over 100 subjects, one round trip each.
func BenchmarkAcquireBatch(b *testing.B) {
	srv := redistest.Start(b)
	for _, bp := range benchPolicies {
		b.Run("algo="+bp.name+"/batch=100", func(b *testing.B) {
			s := redisstore.MustNew(srv.Client(b))
			reqs := redisstore.Requests(limiter(b, s, bp.policy, nil), 1, subjectNames(100)...)
			ctx := context.Background()
			var allowed int64
			n := 0
			b.ReportAllocs()
			for b.Loop() {
				ds, err := s.AcquireBatch(ctx, reqs)
				if err != nil {
					b.Fatal(err)
				}
				for _, d := range ds {
					if d.Allowed {
						allowed++
					}
				}
				n += len(reqs)
			}
			reportAllowed(b, allowed, n)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/check")
		})
	}
}
