package bench

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/numerus-closus/numerus/internal/benchpb"
	"github.com/sethvargo/go-limiter"
	"github.com/sethvargo/go-limiter/memorystore"
	"github.com/throttled/throttled/v2"
	"github.com/throttled/throttled/v2/store/memstore"
	ulule "github.com/ulule/limiter/v3"
	ululemem "github.com/ulule/limiter/v3/drivers/store/memory"
)

// A keyedTaker is one library's per-subject limiter: take debits one token of subject's limit and
// reports whether it was admitted. An error is a failure of the library, never a refusal.
type keyedTaker interface {
	take(ctx context.Context, subject string) (bool, error)
}

// A keyedLib opens a library's in-memory store, bound to the policy of keyedPolicyFor(r). The
// store lives until the benchmark ends (open registers its cleanup with b.Cleanup).
type keyedLib struct {
	lib  string
	open func(b *testing.B, p keyedPolicy) keyedTaker
}

// keyedLibs are the stores under test, in the order they run.
var keyedLibs = []keyedLib{
	{lib: "numerus", open: openNumerusMemory},
	{lib: "sethvargo", open: openSethvargo},
	{lib: "throttled", open: openThrottled},
	{lib: "ulule", open: openUlule},
}

// A keyedPolicy is tokens per subject per period per, the whole count available at once.
type keyedPolicy struct {
	tokens int64
	per    time.Duration
}

// keyedPolicyFor returns the policy that makes every measured check answer r: for allow, a limit
// no run reaches; for deny, one token per hour, which the fill takes before the timer starts.
func keyedPolicyFor(r result) keyedPolicy {
	if r == allow {
		return keyedPolicy{tokens: 1 << 30, per: time.Hour} // more than any run takes; 2^40 is past numerus's exact range
	}
	return keyedPolicy{tokens: 1, per: time.Hour}
}

// keyedSubjects are the subject counts: one hot subject, and many.
var keyedSubjects = []int{1, 10_000}

// BenchmarkKeyed is one check of a per-subject limit in a library's in-memory store, over subjects
// distinct subjects taken in turn, serially and from b.RunParallel's goroutines.
func BenchmarkKeyed(b *testing.B) {
	for _, lib := range keyedLibs {
		for _, n := range keyedSubjects {
			for _, mode := range []string{"serial", "parallel"} {
				for _, r := range results {
					b.Run(name("lib", lib.lib, "subjects", n, "mode", mode, "result", r), func(b *testing.B) {
						runKeyed(b, lib, n, mode, r)
					})
				}
			}
		}
	}
}

func runKeyed(b *testing.B, lib keyedLib, n int, mode string, r result) {
	ctx := context.Background()
	subjects := makeSubjects(b, n)
	t := lib.open(b, keyedPolicyFor(r))
	fillKeyed(b, ctx, t, subjects)
	b.ReportAllocs()
	var allowed, errs int
	if mode == "parallel" {
		allowed, errs = keyedParallel(b, ctx, t, subjects)
	} else {
		allowed, errs = keyedSerial(b, ctx, t, subjects)
	}
	b.ReportMetric(float64(errs)/float64(b.N), "errors/op")
	checkAllowed(b, r, allowed, b.N-errs)
}

// makeSubjects returns n subjects and checks that they are non-empty and pairwise distinct.
func makeSubjects(b *testing.B, n int) []string {
	b.Helper()
	subjects := make([]string, n)
	seen := make(map[string]struct{}, n)
	for i := range subjects {
		subjects[i] = "subject:" + strconv.Itoa(i)
		seen[subjects[i]] = struct{}{}
	}
	if _, empty := seen[""]; empty || len(seen) != n {
		b.Fatalf("%d subjects made, %d distinct (empty among them: %v)", n, len(seen), empty)
	}
	return subjects
}

// fillKeyed takes one token for each subject before the timer starts, so that every measured
// check hits an existing entry, and requires each to be admitted. Under the deny policy (one token
// per subject) this also proves that the store keeps the subjects apart: a store that mapped two
// subjects to one key would refuse the second.
func fillKeyed(b *testing.B, ctx context.Context, t keyedTaker, subjects []string) {
	b.Helper()
	for _, s := range subjects {
		ok, err := t.take(ctx, s)
		if err != nil || !ok {
			b.Fatalf("filling subject %q: admitted %v, error %v", s, ok, err)
		}
	}
}

func keyedSerial(b *testing.B, ctx context.Context, t keyedTaker, subjects []string) (allowed, errs int) {
	i := 0
	for b.Loop() {
		ok, err := t.take(ctx, subjects[i])
		switch {
		case err != nil:
			errs++
		case ok:
			allowed++
		}
		if i++; i == len(subjects) {
			i = 0
		}
	}
	return allowed, errs
}

// keyedParallel runs the checks from b.RunParallel's goroutines, each starting at its own subject.
func keyedParallel(b *testing.B, ctx context.Context, t keyedTaker, subjects []string) (allowed, errs int) {
	var goroutines, admitted, failed atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		pb = benchpb.Apart(pb) // see package benchpb
		i := int(goroutines.Add(1)*7919) % len(subjects)
		var ok, bad int64
		for pb.Next() {
			yes, err := t.take(ctx, subjects[i])
			switch {
			case err != nil:
				bad++
			case yes:
				ok++
			}
			if i++; i == len(subjects) {
				i = 0
			}
		}
		admitted.Add(ok)
		failed.Add(bad)
	})
	return int(admitted.Load()), int(failed.Load())
}

// sethvargo/go-limiter's memorystore: a fixed window of p.tokens per p.per, per key.
type sethvargoTaker struct{ s limiter.Store }

func openSethvargo(b *testing.B, p keyedPolicy) keyedTaker {
	s := must(memorystore.New(&memorystore.Config{Tokens: uint64(p.tokens), Interval: p.per}))
	b.Cleanup(func() { _ = s.Close(context.Background()) })
	return sethvargoTaker{s: s}
}

func (t sethvargoTaker) take(ctx context.Context, key string) (bool, error) {
	_, _, _, ok, err := t.s.Take(ctx, key)
	return ok, err
}

// throttled's GCRA rate limiter on its memstore, unbounded (no LRU): the faster of its two modes.
type throttledTaker struct{ l *throttled.GCRARateLimiterCtx }

func openThrottled(b *testing.B, p keyedPolicy) keyedTaker {
	st := must(memstore.NewCtx(0))
	q := throttled.RateQuota{MaxRate: throttled.PerDuration(int(p.tokens), p.per), MaxBurst: int(p.tokens) - 1}
	return throttledTaker{l: must(throttled.NewGCRARateLimiterCtx(st, q))}
}

func (t throttledTaker) take(ctx context.Context, key string) (bool, error) {
	limited, _, err := t.l.RateLimitCtx(ctx, key, 1)
	return !limited, err
}

// ulule/limiter's memory store: a fixed window of p.tokens per p.per, per key.
type ululeTaker struct{ l *ulule.Limiter }

func openUlule(b *testing.B, p keyedPolicy) keyedTaker {
	st := ululemem.NewStore()
	return ululeTaker{l: ulule.New(st, ulule.Rate{Period: p.per, Limit: p.tokens})}
}

func (t ululeTaker) take(ctx context.Context, key string) (bool, error) {
	c, err := t.l.Get(ctx, key)
	return err == nil && !c.Reached, err
}
