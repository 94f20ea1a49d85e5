package redisstore_test

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
	"github.com/redis/go-redis/v9"
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
			reqs := requests(limiter(b, s, bp.policy, nil), 1, subjectNames(100)...)
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

// BenchmarkServerCost measures what a check costs the server: the usec_per_call of EVALSHA in
// INFO commandstats (CONFIG RESETSTAT before the loop), reported as server-usec/call. The checks
// carry the caller's time (a fake clock), so that each is admitted or refused as its name says,
// which the benchmark checks, and each is one EVALSHA, which it checks too. A GCRA alone and a
// tree are checked on one subject, admitted (the clock moving on by a token's interval, or more)
// or refused (the subject spent, the clock still); a batch checks 100 GCRA subjects, admitted, in
// one script call, and reports its cost a check as well; a fixed window and a token bucket alone
// are checked too, admitted.
func BenchmarkServerCost(b *testing.B) {
	srv := redistest.Start(b)
	const gcra, tree = "gcra 100/s burst 100", "gcra 10/s burst 5 & sliding 100/m & window 1000/h"
	for _, c := range []struct {
		name, policy string
		step         time.Duration // the clock's move before each check
		admitted     bool
		batch        int
	}{
		{"policy=gcra/check=admitted", gcra, 10 * time.Millisecond, true, 1},
		{"policy=gcra/check=refused", gcra, 0, false, 1},
		{"policy=tree/check=admitted", tree, 4 * time.Second, true, 1},
		{"policy=tree/check=refused", tree, 0, false, 1},
		{"policy=gcra/batch=100/check=admitted", gcra, 10 * time.Millisecond, true, 100},
		{"policy=window/check=admitted", "window 100/s", 10 * time.Millisecond, true, 1},
		{"policy=token/check=admitted", "token 100/s burst 100", 10 * time.Millisecond, true, 1},
	} {
		b.Run(c.name, func(b *testing.B) {
			client := srv.Client(b)
			s, clk, ctx := redisstore.MustNew(client), newClock(t0), context.Background()
			l := limiter(b, s, c.policy, clk)
			reqs := func() []keyed.Request { return requests(l, 1, subjectNames(c.batch)...) }
			check := func() {
				clk.add(c.step)
				var ds []keyed.Decision
				var err error
				if c.batch == 1 {
					var d keyed.Decision
					d, err = l.TryAcquire(ctx, "subject", 1)
					ds = []keyed.Decision{d}
				} else {
					ds, err = s.AcquireBatch(ctx, reqs())
				}
				if err != nil {
					b.Fatal(err)
				}
				for _, d := range ds {
					if d.Allowed != c.admitted {
						b.Fatalf("%s: %+v, want admitted %v", c.policy, d, c.admitted)
					}
				}
			}
			for _, subject := range append(subjectNames(c.batch), "subject") { // from full, on a server kept (REDIS_URL) too
				if err := l.Reset(ctx, subject); err != nil {
					b.Fatal(err)
				}
			}
			if !c.admitted {
				for d, err := l.TryAcquire(ctx, "subject", 1); d.Allowed; d, err = l.TryAcquire(ctx, "subject", 1) {
					if err != nil {
						b.Fatal(err)
					}
				}
			}
			check() // the script loaded, the key written
			if err := client.ConfigResetStat(ctx).Err(); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				check()
			}
			calls, usec := evalshaStats(b, client)
			if calls != b.N {
				b.Fatalf("%d EVALSHA for %d checks", calls, b.N)
			}
			b.ReportMetric(usec, "server-usec/call")
			if c.batch > 1 {
				b.ReportMetric(usec/float64(c.batch), "server-usec/check")
			}
		})
	}
}

// evalshaStats returns the calls of EVALSHA and their usec_per_call, from INFO commandstats.
func evalshaStats(b *testing.B, c *redis.Client) (int, float64) {
	b.Helper()
	info, err := c.Info(context.Background(), "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.SplitSeq(info, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "cmdstat_evalsha:")
		if !ok {
			continue
		}
		var calls int
		var usec float64
		for field := range strings.SplitSeq(rest, ",") {
			k, v, _ := strings.Cut(field, "=")
			switch k {
			case "calls":
				calls, _ = strconv.Atoi(v)
			case "usec_per_call":
				usec, _ = strconv.ParseFloat(v, 64)
			}
		}
		return calls, usec
	}
	b.Fatal("no EVALSHA in INFO commandstats")
	return 0, 0
}
