package redisstore_test

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/memory"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
	"github.com/numerus-closus/numerus/typed"
)

// units are the scales of generated windows and steps: whole microseconds, as the script needs.
var units = []time.Duration{time.Microsecond, 3 * time.Microsecond, 100 * time.Microsecond, time.Millisecond}

// rateUnits are the scales of generated rate periods, which need not be whole microseconds: the
// script keeps a rate as a fraction of tokens per microsecond.
var rateUnits = append([]time.Duration{1500 * time.Nanosecond, 2333 * time.Nanosecond}, units...)

func genLeaf(t *rapid.T) typed.Spec {
	span := time.Duration(rapid.Int64Range(1, 20).Draw(t, "span")) * rapid.SampledFrom(units).Draw(t, "unit")
	n := rapid.Int64Range(1, 5).Draw(t, "n")
	algo := rapid.SampledFrom([]typed.Algo{typed.AlgoGCRA, typed.AlgoToken, typed.AlgoLeaky, typed.AlgoFinite,
		typed.AlgoWindow, typed.AlgoCount, typed.AlgoSliding, typed.AlgoBuckets}).Draw(t, "algo")
	switch algo {
	case typed.AlgoGCRA, typed.AlgoToken, typed.AlgoLeaky:
		per := time.Duration(rapid.Int64Range(1, 20).Draw(t, "per")) * rapid.SampledFrom(rateUnits).Draw(t, "rate unit")
		return typed.Spec{Algo: algo, Count: rapid.Int64Range(1, 4).Draw(t, "tokens"), Period: per, Burst: n}
	case typed.AlgoFinite:
		return typed.Spec{Algo: algo, Count: rapid.Int64Range(1, 30).Draw(t, "size")}
	case typed.AlgoWindow, typed.AlgoCount:
		return typed.Spec{Algo: algo, Count: n, Period: span}
	case typed.AlgoSliding:
		return typed.Spec{Algo: algo, Count: rapid.Int64Range(1, 40).Draw(t, "entries"), Period: span}
	}
	k := rapid.Int64Range(1, 4).Draw(t, "windows")
	return typed.Spec{Algo: algo, Count: rapid.Int64Range(1, 40).Draw(t, "entries"), Period: span * time.Duration(k), In: k}
}

// genSpec draws a leaf or an And/Or of two or three specs, nested at most depth deep.
func genSpec(t *rapid.T, depth int) typed.Spec {
	if depth == 0 || rapid.IntRange(0, 2).Draw(t, "leaf") == 0 {
		return genLeaf(t)
	}
	sp := typed.Spec{Algo: rapid.SampledFrom([]typed.Algo{typed.AlgoAnd, typed.AlgoOr}).Draw(t, "op")}
	for range rapid.IntRange(2, 3).Draw(t, "children") {
		sp.Of = append(sp.Of, genSpec(t, depth-1))
	}
	return sp
}

// ceilMicro rounds an in-process wait up to the microsecond, as the script computes it.
func ceilMicro(w keyed.Duration) keyed.Duration {
	d, ok := w.Duration()
	if !ok {
		return w
	}
	return keyed.DurationOf((d + time.Microsecond - 1) / time.Microsecond * time.Microsecond)
}

var subjects atomic.Int64

// differential drives random policies and random microsecond timelines, with the caller's time,
// through the store's script and through keyed's memory store (the in-process typed.Policy), and
// requires the same decisions: the same admissions, remaining and limit, and the in-process waits
// rounded up to the microsecond. Timelines step forward by random amounts, repeat instants, and
// step back. Half the runs switch between two policies, so policy changes are checked too.
func differential(t *testing.T, client redis.UniversalClient) {
	s := redisstore.MustNew(client, redisstore.WithMinTTL(time.Hour)) // time runs slower than the server's
	ctx := context.Background()
	rapid.Check(t, func(rt *rapid.T) {
		ref := memory.New(memory.WithGrace(1000 * time.Hour)) // keeps what the script keeps (WithMinTTL)
		var policies []typed.Policy
		for range rapid.IntRange(1, 2).Draw(rt, "policies") {
			p, err := typed.Compile(genSpec(rt, 2))
			if err != nil {
				rt.Fatalf("%v", err)
			}
			if err := s.CheckPolicy(p); err != nil {
				rt.Fatalf("%v: %v", p, err)
			}
			policies = append(policies, p)
		}
		key := []byte(t.Name() + ":" + strconv.FormatInt(subjects.Add(1), 10))
		at := t0.Add(time.Duration(rapid.Int64Range(0, 1_000_000).Draw(rt, "t0")) * time.Microsecond)
		step := rapid.SampledFrom(units).Draw(rt, "step")
		for i := range rapid.IntRange(1, 60).Draw(rt, "steps") {
			if dt := time.Duration(rapid.Int64Range(-3, 20).Draw(rt, "dt")) * step; dt > 0 || rapid.Bool().Draw(rt, "back") {
				at = at.Add(dt)
			}
			p := rapid.SampledFrom(policies).Draw(rt, "policy")
			name := fmt.Sprintf("step %d at +%v on %s", i, at.Sub(t0), p)
			r := keyed.Request{Key: key, Policy: p, Cost: 1, At: at}
			switch op := rapid.IntRange(0, 9).Draw(rt, "op"); {
			case op == 0:
				if err := s.Reset(ctx, r); err != nil {
					rt.Fatalf("%s: reset: %v", name, err)
				}
				_ = ref.Reset(ctx, r)
			case op <= 2:
				d, err := s.Peek(ctx, r)
				want, _ := ref.Peek(ctx, r)
				compare(rt, name+" peek", d, err, want)
			default:
				r.Cost = rapid.Int64Range(1, min(7, p.Status(p.Fresh(), t0).Limit)).Draw(rt, "cost")
				d, err := s.Acquire(ctx, r)
				want, _ := ref.Acquire(ctx, r)
				compare(rt, fmt.Sprintf("%s acquire %d", name, r.Cost), d, err, want)
			}
		}
	})
}

func compare(t *rapid.T, name string, d keyed.Decision, err error, want keyed.Decision) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	want.RetryAfter, want.FullAfter, want.RefillAfter = ceilMicro(want.RetryAfter), ceilMicro(want.FullAfter), ceilMicro(want.RefillAfter)
	if d != want {
		t.Fatalf("%s:\n store      %+v\n in process %+v", name, d, want)
	}
}

func TestDifferentialStandalone(t *testing.T) {
	differential(t, redistest.Start(t).Client(t))
}

// TestDifferentialLarge compares, as differential does, buckets on numbers near the script's
// bound of 2^53, alone (the plain path) and in a tree (the engine): rates of up to
// thousands of tokens a microsecond or one token in days, bursts that fill all the room 2^53
// leaves (size·P + N, and a refill of at most 2^51 µs), costs of any size, instants up to 2112,
// and steps as long as a refill.
func TestDifferentialLarge(t *testing.T) {
	s := redisstore.MustNew(redistest.Start(t).Client(t), redisstore.WithMinTTL(time.Hour))
	ctx := context.Background()
	rapid.Check(t, func(rt *rapid.T) {
		ref := memory.New(memory.WithGrace(math.MaxInt64)) // keeps what the script keeps, through steps of years
		count := rapid.SampledFrom([]int64{1, 3, 8, 1000, 4096}).Draw(rt, "count")
		per := rapid.SampledFrom([]int64{1, 7, 1500, 86_400_000_000}).Draw(rt, "per µs")
		g := gcd(count, per)
		n, p := count/g, per/g
		most := min((1<<53-n)/p, ((1<<51)*n-n+1)/p) // the largest size the script keeps exact
		size := most - rapid.Int64Range(0, most-1).Draw(rt, "room left")
		algo := rapid.SampledFrom([]typed.Algo{typed.AlgoGCRA, typed.AlgoToken, typed.AlgoLeaky}).Draw(rt, "algo")
		sp := typed.Spec{Algo: algo, Count: count, Period: time.Duration(per) * time.Microsecond, Burst: size}
		if rapid.Bool().Draw(rt, "tree") { // the engine's turn
			sp = typed.Spec{Algo: typed.AlgoAnd, Of: []typed.Spec{sp, sp}}
		}
		pol, err := typed.Compile(sp)
		if err != nil {
			rt.Fatalf("%v", err)
		}
		if err := s.CheckPolicy(pol); err != nil {
			rt.Fatalf("%v: %v", pol, err)
		}
		span := (size*p + n - 1) / n // µs from empty to full
		key := []byte(t.Name() + ":" + strconv.FormatInt(subjects.Add(1), 10))
		us := rapid.Int64Range(0, 1<<52).Draw(rt, "t0") // µs since the epoch
		for i := range rapid.IntRange(1, 20).Draw(rt, "steps") {
			us = min(max(us+rapid.Int64Range(-span/4, span/4).Draw(rt, "dt"), 0), 1<<52)
			at := time.UnixMicro(us)
			name := fmt.Sprintf("step %d at %d µs on %s", i, at.UnixMicro(), pol)
			r := keyed.Request{Key: key, Policy: pol, Cost: rapid.Int64Range(1, size).Draw(rt, "cost"), At: at}
			if rapid.IntRange(0, 3).Draw(rt, "op") == 0 {
				d, err := s.Peek(ctx, r)
				want, _ := ref.Peek(ctx, r)
				compare(rt, name+" peek", d, err, want)
				continue
			}
			d, err := s.Acquire(ctx, r)
			want, _ := ref.Acquire(ctx, r)
			compare(rt, fmt.Sprintf("%s acquire %d", name, r.Cost), d, err, want)
		}
	})
}

// TestDifferentialLargeLogs drives sliding logs, plain and bucketed, at the largest limits the
// script takes (2^50, where the running count it keeps must pass no 2^53 between rebases), with
// costs as large as the limit, against the memory store. At 2^53−1, which CheckPolicy took
// before, a RetryAfter came early and a log admitted a token too many or turned corrupt.
func TestDifferentialLargeLogs(t *testing.T) {
	s := redisstore.MustNew(redistest.Start(t).Client(t), redisstore.WithMinTTL(time.Hour))
	ctx := context.Background()
	rapid.Check(t, func(rt *rapid.T) {
		ref := memory.New(memory.WithGrace(math.MaxInt64))
		size := int64(1<<50) - rapid.Int64Range(0, 3).Draw(rt, "room left")
		w := rapid.SampledFrom([]int64{4, 8, 100}).Draw(rt, "window µs")
		sp := typed.Spec{Algo: typed.AlgoSliding, Count: size, Period: time.Duration(w) * time.Microsecond}
		if rapid.Bool().Draw(rt, "bucketed") {
			sp.Algo, sp.In = typed.AlgoBuckets, 4
		}
		pol, err := typed.Compile(sp)
		if err != nil {
			rt.Fatalf("%v", err)
		}
		if err := s.CheckPolicy(pol); err != nil {
			rt.Fatalf("%v: %v", pol, err)
		}
		key := []byte(t.Name() + ":" + strconv.FormatInt(subjects.Add(1), 10))
		us := t0.UnixMicro()
		for i := range rapid.IntRange(1, 30).Draw(rt, "steps") {
			us += rapid.Int64Range(-w, 2*w).Draw(rt, "dt")
			cost := rapid.SampledFrom([]int64{1, 2, size / 2, size/2 + 1, size - 1, size}).Draw(rt, "cost")
			r := keyed.Request{Key: key, Policy: pol, Cost: cost, At: time.UnixMicro(us)}
			d, err := s.Acquire(ctx, r)
			want, _ := ref.Acquire(ctx, r)
			compare(rt, fmt.Sprintf("step %d at %d µs on %s: acquire %d", i, us, pol, cost), d, err, want)
		}
	})
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// check is one step of a timeline: a check of key under p at dt after t0, of cost tokens, or a
// Peek for cost 0.
type check struct {
	p    typed.Policy
	dt   time.Duration
	cost int64
}

// requireLikeMemory runs the checks on s and on a memory store and requires the same Decisions,
// the memory store's waits rounded up to the microsecond.
func requireLikeMemory(t *testing.T, s *redisstore.Store, key string, checks []check) {
	t.Helper()
	ctx, ref := context.Background(), memory.New()
	for i, c := range checks {
		r := keyed.Request{Key: []byte(key), Policy: c.p, Cost: max(c.cost, 1), At: t0.Add(c.dt)}
		var d, want keyed.Decision
		var err error
		if c.cost == 0 {
			d, err = s.Peek(ctx, r)
			want, _ = ref.Peek(ctx, r)
		} else {
			d, err = s.Acquire(ctx, r)
			want, _ = ref.Acquire(ctx, r)
		}
		require.NoError(t, err)
		want.RetryAfter, want.FullAfter, want.RefillAfter = ceilMicro(want.RetryAfter), ceilMicro(want.FullAfter), ceilMicro(want.RefillAfter)
		require.Equal(t, want, d, "%s: step %d, %s", key, i, c.p)
	}
}

// TestBucketDrainsAtItsMicrosecond: buckets of several tokens a microsecond (N > 1 in the
// script's terms), alone and in an And, checked at the very microsecond they drain (leaky) or
// refill (token) whole, and on either side of it, decide as in process.
func TestBucketDrainsAtItsMicrosecond(t *testing.T) {
	s := redisstore.MustNew(redistest.Start(t).Client(t), redisstore.WithMinTTL(time.Hour))
	leaky := typed.Spec{Algo: typed.AlgoLeaky, Count: 2, Period: 3 * time.Microsecond, Burst: 1}
	token := typed.Spec{Algo: typed.AlgoToken, Count: 3, Period: time.Microsecond, Burst: 2}
	leaky3 := typed.Spec{Algo: typed.AlgoLeaky, Count: 3, Period: time.Microsecond, Burst: 2}
	for _, sp := range []typed.Spec{leaky, token, leaky3, {Algo: typed.AlgoAnd, Of: []typed.Spec{leaky3, leaky3}},
		{Algo: typed.AlgoAnd, Of: []typed.Spec{leaky, leaky}}, {Algo: typed.AlgoAnd, Of: []typed.Spec{token, token}}} {
		p := typed.MustCompile(sp.String())
		capacity := p.Status(p.Fresh(), t0).Limit
		requireLikeMemory(t, s, "drain:"+p.String(), []check{{p, 0, capacity}, {p, 2 * time.Microsecond, 0},
			{p, 2 * time.Microsecond, 1}, {p, 2 * time.Microsecond, 0}, {p, 3 * time.Microsecond, 0}})
	}
}
