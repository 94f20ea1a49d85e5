package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/memory"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
	"github.com/numerus-closus/numerus/typed"
)

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

// TestChangeOfTwoGCRAsToOne: of two changed leaves that were GCRAs, only one still is: it
// continues from the most used old leaf, not from the GCRA at its place (typed.Policy.Continue:
// "both are the only changed leaves of their algorithm in their trees"), as in process.
func TestChangeOfTwoGCRAsToOne(t *testing.T) {
	s := redisstore.MustNew(redistest.Start(t).Client(t), redisstore.WithMinTTL(time.Hour))
	old := typed.MustCompile("gcra 10/h burst 10 | gcra 1/h burst 2")
	next := typed.MustCompile("gcra 10/h burst 9 | token 1/h burst 2")
	requireLikeMemory(t, s, "kinds", []check{{old, 0, 2}, {next, 0, 0}, {next, 0, 1}})
}

// TestChangeOfOneGCRAToTwo, the converse: of two changed leaves, one was a GCRA and both now
// are. The GCRA at its place is not the only changed GCRA of the new tree, so it continues from
// the most used old leaf too, as in process.
func TestChangeOfOneGCRAToTwo(t *testing.T) {
	s := redisstore.MustNew(redistest.Start(t).Client(t), redisstore.WithMinTTL(time.Hour))
	old := typed.MustCompile("gcra 10/h burst 10 | token 1/h burst 2")
	next := typed.MustCompile("gcra 10/h burst 9 | gcra 1/h burst 2")
	requireLikeMemory(t, s, "kinds", []check{{old, 0, 2}, {next, 0, 0}, {next, 0, 1}})
}
