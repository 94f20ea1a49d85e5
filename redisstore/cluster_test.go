package redisstore_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// TestCluster runs the store on one Redis Cluster of three masters: the keyed conformance suite,
// the differential test, batches, and every kind of policy on subjects spread over the slots. One
// key per subject, so every check goes to one slot with no hash tag, whatever the policy.
func TestCluster(t *testing.T) {
	c := redistest.StartCluster(t).Client(t)
	t.Run("conformance", func(t *testing.T) { conformance(t, c) })
	t.Run("differential", func(t *testing.T) { differential(t, c) })
	t.Run("batch", func(t *testing.T) { batch(t, redisstore.MustNew(c), t.Name()) })
	t.Run("batch one by one", func(t *testing.T) { batchOneByOne(t, c) })
	t.Run("coalesced across the slots", func(t *testing.T) { coalescedAcross(t, c) })
	t.Run("tagged subjects spread", func(t *testing.T) { taggedSpread(t, c) })
	t.Run("every kind across the slots", func(t *testing.T) {
		s := redisstore.MustNew(c)
		ctx := context.Background()
		for _, text := range append([]string{strings.Join(eachKind, " & ")}, eachKind...) {
			l := limiter(t, s, text, newClock(t0))
			for _, subject := range []string{"a", "b", "c", "d", "{tag}e", "f"} {
				d, err := l.TryAcquire(ctx, subject, 1)
				require.NoError(t, err)
				require.True(t, d.Allowed)
				_, err = l.Peek(ctx, subject)
				require.NoError(t, err)
				require.NoError(t, l.Reset(ctx, subject))
			}
		}
	})
}

// coalescedAcross runs 32 goroutines on a cluster at once, with one round trip of acquires in
// flight, so that their checks go in batches that span the slots (one pipeline per node): no
// error, each cold subject admits its first, and the hot subject exactly its burst.
func coalescedAcross(t *testing.T, c redis.UniversalClient) {
	l := limiter(t, redisstore.MustNew(c, redisstore.WithCoalescing(1)), "gcra 1/h burst 20", newClock(t0))
	var hot, cold, failed atomic.Int64
	var wg sync.WaitGroup
	for g := range 32 {
		wg.Go(func() {
			for i := range 5 {
				subject := "hot"
				if i%2 == 1 {
					subject = fmt.Sprint("cold", g, "-", i)
				}
				d, err := l.TryAcquire(context.Background(), subject, 1)
				switch {
				case err != nil:
					failed.Add(1)
				case d.Allowed && subject == "hot":
					hot.Add(1)
				case d.Allowed:
					cold.Add(1)
				}
			}
		})
	}
	wg.Wait()
	require.Zero(t, failed.Load())
	require.Equal(t, int64(20), hot.Load())
	require.Equal(t, int64(32*2), cold.Load())
}

// taggedSpread checks 1,000 subjects {x}0 … {x}999, whose own hash tag would put them all in one
// slot: the store's tag spreads them over the cluster, each master holding a share near a third,
// and each subject is still one key.
func taggedSpread(t *testing.T, c *redis.ClusterClient) {
	ctx := context.Background()
	l := limiter(t, redisstore.MustNew(c, redisstore.WithMinTTL(time.Hour)), "gcra 1/h burst 5", newClock(t0))
	for i := range 1000 {
		d, err := l.TryAcquire(ctx, fmt.Sprint("{x}", i), 1)
		require.NoError(t, err)
		require.True(t, d.Allowed)
	}
	var mu sync.Mutex
	var sizes []int64
	require.NoError(t, c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		keys, err := m.Keys(ctx, "*:"+t.Name()+":*").Result()
		mu.Lock()
		sizes = append(sizes, int64(len(keys)))
		mu.Unlock()
		return err
	}))
	require.Len(t, sizes, 3)
	var total int64
	for _, n := range sizes {
		require.Greater(t, n, int64(250), "a master holds %d of the 1,000 keys: %v", n, sizes)
		total += n
	}
	require.Equal(t, int64(1000), total, "one key a subject")
}
