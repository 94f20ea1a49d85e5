package redisstore_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus/keyed/memory"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
	"github.com/numerus-closus/numerus/typed"
)

// TestLogDropsManyEntries: a sliding log of more entries than Lua's unpack takes at once (about
// 8,000) that all expire together is dropped in one check, and checks go on.
func TestLogDropsManyEntries(t *testing.T) {
	s := redisstore.MustNew(redistest.Start(t).Client(t))
	c := newClock(t0)
	l := limiter(t, s, "sliding 10000/m", c)
	ctx := context.Background()
	for i := range 10000 {
		d, err := l.TryAcquire(ctx, "a", 1)
		require.NoError(t, err, "check %d", i)
		require.True(t, d.Allowed, "check %d", i)
		c.add(time.Microsecond)
	}
	d, err := l.TryAcquire(ctx, "a", 1)
	require.NoError(t, err)
	require.False(t, d.Allowed)
	c.set(t0.Add(2 * time.Minute))
	for i := range 3 {
		d, err = l.TryAcquire(ctx, "a", 1)
		require.NoError(t, err, "check %d after the log expired", i)
		require.True(t, d.Allowed)
		require.Equal(t, int64(9999-i), d.Remaining)
	}
}

// TestManyLeaves: a policy of as many leaves as package typed's limits allow (1,000) runs, and
// changes to another such policy, deciding as the memory store does.
func TestManyLeaves(t *testing.T) {
	s := redisstore.MustNew(redistest.Start(t).Client(t))
	ref := memory.New(memory.WithGrace(time.Hour))
	wide := func(per time.Duration) typed.Spec {
		var ors []typed.Spec
		for range 2 {
			or := typed.Spec{Algo: typed.AlgoOr}
			for j := range 500 {
				or.Of = append(or.Of, typed.Spec{Algo: typed.AlgoGCRA, Count: int64(j + 1), Period: per})
			}
			ors = append(ors, or)
		}
		return typed.Spec{Algo: typed.AlgoAnd, Of: ors}
	}
	c := newClock(t0)
	ctx := context.Background()
	for i, per := range []time.Duration{time.Second, time.Second, time.Minute, time.Second} {
		got, err := limiterOf(t, s, wide(per), c).TryAcquire(ctx, "a", 1)
		require.NoError(t, err, "check %d, per %v", i, per)
		want, err := limiterOf(t, ref, wide(per), c).TryAcquire(ctx, "a", 1)
		require.NoError(t, err)
		want.RefillAfter = ceilMicro(want.RefillAfter) // a GCRA of 999/s refills within a µs
		require.Equal(t, want, got, "check %d, per %v", i, per)
		c.add(time.Millisecond)
	}
}

// TestMinTTLForever: WithMinTTL of the largest Duration keeps keys for ever (292 years), rather
// than overflowing into a millisecond.
func TestMinTTLForever(t *testing.T) {
	c := redistest.Start(t).Client(t)
	s := redisstore.MustNew(c, redisstore.WithMinTTL(time.Duration(math.MaxInt64)))
	l := limiter(t, s, "gcra 1000/s burst 1", newClock(t0))
	ctx := context.Background()
	d, err := l.TryAcquire(ctx, "a", 1)
	require.NoError(t, err)
	require.True(t, d.Allowed)
	ms, err := c.Do(ctx, "PTTL", redisstore.RedisKey(l.Key("a"))).Int64() // c.PTTL's Duration overflows here
	require.NoError(t, err)
	require.Greater(t, ms, int64(292*365*24*time.Hour/time.Millisecond))
}
