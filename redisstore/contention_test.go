package redisstore_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
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
		policy redisstore.Policy
		bound  int64
	}{
		{numerus.Must(redisstore.GCRA(numerus.PerHour(1), 100)), 100},
		{numerus.Must(redisstore.FixedWindow(time.Hour, 100, t0)), 100},
		{numerus.Must(redisstore.SlidingWindow(time.Hour, 100)), 100},
		{numerus.Must(redisstore.AllOf(
			numerus.Must(redisstore.TokenBucket(150, numerus.PerHour(1))),
			numerus.Must(redisstore.SlidingWindowBucketed(time.Hour, 6, 100)))), 100},
		{numerus.Must(redisstore.AnyOf(
			numerus.Must(redisstore.FiniteBucket(40)),
			numerus.Must(redisstore.LeakyBucket(60, numerus.PerHour(1))))), 60}, // an Or charges both while both admit
	} {
		t.Run(tc.policy.String(), func(t *testing.T) {
			stores := make([]*redisstore.Store, len(clients))
			for i, c := range clients {
				stores[i] = store(t, c, clk)
			}
			var admitted, failed atomic.Int64
			var wg sync.WaitGroup
			for g := range 16 {
				wg.Go(func() {
					s := stores[g%len(stores)]
					for range 20 {
						d, err := s.Acquire(context.Background(), tc.policy, "hot", 1)
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
