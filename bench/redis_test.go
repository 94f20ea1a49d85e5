package bench

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// A redisLib opens one library's Redis-backed per-subject limiter on the shared client, bound to
// the policy p. Its keys must contain the subjects as given, so that cleanup finds them.
type redisLib struct {
	lib  string
	open func(b *testing.B, rdb redis.UniversalClient, p keyedPolicy) keyedTaker
}

// A batchTaker checks many subjects in one round trip: allowed[i] receives the answer for
// subjects[i]. A library whose taker implements it also runs mode=pipeline.
type batchTaker interface {
	takeBatch(ctx context.Context, subjects []string, allowed []bool) error
}

// redisLibs are the Redis-backed limiters under test, in the order they run. cmd/report checks
// issue 6's targets on these names: numerus serial at most 1.0× redis_rate's time, 64 goroutines
// at least its throughput, and a batch of 100 at least 10× the throughput of serial redis_rate.
var redisLibs = []redisLib{
	{lib: "numerus", open: openNumerusRedis},
	{lib: "redis_rate", open: openRedisRate},
}

const (
	redisSubjects   = 10_000
	redisGoroutines = 64
	redisBatch      = 100
)

// redisRun numbers the benchmark runs so that each works on keys no earlier run wrote.
var redisRun atomic.Int64

// BenchmarkRedis is one check of a per-subject limit held in Redis, over redisSubjects subjects
// taken in turn: serially, from redisGoroutines goroutines, and (for libraries with a batch call)
// redisBatch checks per round trip. The server is the harness's own (see redisClient).
func BenchmarkRedis(b *testing.B) {
	for _, lib := range redisLibs {
		for _, mode := range []string{"serial", "goroutines64", "pipeline"} {
			for _, r := range results {
				n := name("lib", lib.lib, "subjects", redisSubjects, "mode", mode, "result", r)
				if mode == "pipeline" {
					n = name("lib", lib.lib, "subjects", redisSubjects, "mode", mode, "batch", redisBatch, "result", r)
				}
				b.Run(n, func(b *testing.B) { runRedis(b, lib, mode, r) })
			}
		}
	}
}

func runRedis(b *testing.B, lib redisLib, mode string, r result) {
	ctx := context.Background()
	rdb := redisClient(b)
	prefix := fmt.Sprintf("numerus-bench:%d:%d:", os.Getpid(), redisRun.Add(1))
	b.Cleanup(func() { deleteKeys(b, rdb, prefix) })
	subjects := makeSubjects(b, redisSubjects)
	for i := range subjects {
		subjects[i] = prefix + subjects[i]
	}
	t := lib.open(b, rdb, keyedPolicyFor(r))
	batch, batches := t.(batchTaker)
	if mode == "pipeline" && !batches {
		b.Skipf("%s has no batch call: it checks one subject per round trip", lib.lib)
	}
	fillKeyed(b, ctx, t, subjects)
	b.ReportAllocs()
	var allowed, errs, checks int
	switch mode {
	case "serial":
		allowed, errs = keyedSerial(b, ctx, t, subjects)
		checks = b.N
	case "goroutines64":
		b.SetParallelism((redisGoroutines + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
		allowed, errs = keyedParallel(b, ctx, t, subjects)
		checks = b.N
	default:
		allowed, errs = redisPipeline(b, ctx, batch, subjects)
		checks = b.N * redisBatch
	}
	b.ReportMetric(float64(errs)/float64(checks), "errors/op")
	checkAllowed(b, r, allowed, checks-errs)
}

// redisPipeline checks redisBatch subjects per operation, in turn; a failed batch counts as
// redisBatch errors.
func redisPipeline(b *testing.B, ctx context.Context, t batchTaker, subjects []string) (allowed, errs int) {
	answers := make([]bool, redisBatch)
	i := 0
	for b.Loop() {
		if i+redisBatch > len(subjects) {
			i = 0
		}
		if err := t.takeBatch(ctx, subjects[i:i+redisBatch], answers); err != nil {
			errs += redisBatch
			continue
		}
		for _, ok := range answers {
			if ok {
				allowed++
			}
		}
		i += redisBatch
	}
	return allowed, errs
}

// deleteKeys removes every key that contains prefix, so that a server given by REDIS_URL keeps
// nothing of the run.
func deleteKeys(b *testing.B, rdb redis.UniversalClient, prefix string) {
	ctx := context.Background()
	iter := rdb.Scan(ctx, 0, "*"+prefix+"*", 1000).Iterator()
	var keys []string
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		b.Logf("scanning for the run's keys: %v", err)
		return
	}
	for len(keys) > 0 {
		n := min(len(keys), 1000)
		if err := rdb.Unlink(ctx, keys[:n]...).Err(); err != nil {
			b.Logf("deleting the run's keys: %v", err)
			return
		}
		keys = keys[n:]
	}
}

// go-redis/redis_rate: GCRA in a Lua script, one EVALSHA per check; no batch call.
type redisRateTaker struct {
	l     *redis_rate.Limiter
	limit redis_rate.Limit
}

func openRedisRate(_ *testing.B, rdb redis.UniversalClient, p keyedPolicy) keyedTaker {
	limit := redis_rate.Limit{Rate: int(p.tokens), Burst: int(p.tokens), Period: p.per}
	return redisRateTaker{l: redis_rate.NewLimiter(rdb), limit: limit}
}

func (t redisRateTaker) take(ctx context.Context, key string) (bool, error) {
	res, err := t.l.Allow(ctx, key, t.limit)
	if err != nil {
		return false, err
	}
	return res.Allowed > 0, nil
}
