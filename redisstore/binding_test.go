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

// TestBindingWithinAMicrosecond: two GCRAs, spent at t0, answer a second token at 0.6µs and
// 0.4µs after it, which the script rounds up to the same microsecond; the binding limit of the
// refusal is still the one whose answer comes first in nanoseconds, for an Or, and last, for an
// And, as the memory store finds it. Their rates, about 2^50 tokens per 2^49 µs, put the
// fractions of a microsecond past 2^53/1000, where the script must compute them exactly.
func TestBindingWithinAMicrosecond(t *testing.T) {
	s := redisstore.MustNew(redistest.Start(t).Client(t), redisstore.WithMinTTL(time.Hour))
	ref := memory.New(memory.WithGrace(time.Hour))
	ctx := context.Background()
	const n = 1<<50 + 7
	gcra := func(per int64) typed.Spec { // one token every per/n µs
		return typed.Spec{Algo: typed.AlgoGCRA, Count: n, Period: time.Duration(per) * time.Microsecond, Burst: 1}
	}
	slow, fast := gcra(n/5*3+1), gcra(n/5*2+3) // a token in 0.6µs, in 0.4µs
	for _, c := range []struct {
		algo    typed.Algo
		binding int
	}{{typed.AlgoOr, 1}, {typed.AlgoAnd, 0}} {
		p := typed.Spec{Algo: c.algo, Of: []typed.Spec{slow, fast}}
		for i, store := range []keyed.Store{s, ref} {
			l := limiterOf(t, store, p, newClock(t0))
			d, err := l.TryAcquire(ctx, string(c.algo), 1)
			require.NoError(t, err)
			require.True(t, d.Allowed, "%v on store %d", p, i)
			d, err = l.TryAcquire(ctx, string(c.algo), 1)
			require.NoError(t, err)
			require.False(t, d.Allowed, "%v on store %d", p, i)
			require.Equal(t, c.binding, d.Binding, "%v on store %d: %+v", p, i, d)
			if i == 0 {
				require.Equal(t, keyed.DurationOf(time.Microsecond), d.RetryAfter, "%v", p)
			}
		}
	}
}
