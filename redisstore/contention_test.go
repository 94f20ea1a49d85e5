package redisstore_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// TestContention runs 16 goroutines over 4 clients on one subject, with the caller's time held
// still: the total admitted is exactly the policy's bound, with no error.
func TestContention(t *testing.T) {
	srv := redistest.Start(t)
	clients := make([]*redis.Client, 4)
	for i := range clients {
		clients[i] = srv.Client(t)
	}
	clk := newClock(t0)
	for _, tc := range []struct {
		policy string
		bound  int64
	}{
		{"gcra 1/h burst 100", 100},
		{"window 100/h", 100},
		{"sliding 100/h", 100},
		{"token 1/h burst 150 & buckets 100/h in 6", 100},
		{"finite 40 | leaky 1/h burst 60", 60}, // an Or charges both while both admit
	} {
		t.Run(tc.policy, func(t *testing.T) {
			limiters := make([]keyed.Limiter[string], len(clients))
			for i, c := range clients {
				limiters[i] = limiter(t, redisstore.MustNew(c), tc.policy, clk)
			}
			var admitted, failed atomic.Int64
			var wg sync.WaitGroup
			for g := range 16 {
				wg.Go(func() {
					l := limiters[g%len(limiters)]
					for range 20 {
						d, err := l.TryAcquire(context.Background(), "hot", 1)
						if err != nil {
							failed.Add(1)
						}
						if d.Allowed {
							admitted.Add(1)
						}
					}
				})
			}
			wg.Wait()
			require.Zero(t, failed.Load())
			require.Equal(t, tc.bound, admitted.Load())
		})
	}
}
