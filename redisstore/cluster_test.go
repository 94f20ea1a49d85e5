package redisstore_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
)

// TestCluster runs the store on a Redis Cluster of three masters: one key per subject, so every
// check goes to one slot with no hash tag, whatever the policy.
func TestCluster(t *testing.T) {
	c := redistest.StartCluster(t).Client(t)
	t.Run("differential", func(t *testing.T) { differential(t, c) })
	t.Run("batch", func(t *testing.T) { batch(t, c, store(t, c, newClock(t0))) })
	t.Run("every kind across the slots", func(t *testing.T) {
		s := store(t, c, newClock(t0))
		ctx := context.Background()
		policies := append([]redisstore.Policy{mustTree(eachKind...)}, eachKind...)
		for _, p := range policies {
			for _, subject := range []string{"a", "b", "c", "d", "{tag}e", "f"} {
				d, err := s.Acquire(ctx, p, subject, 1)
				require.NoError(t, err)
				require.True(t, d.Allowed)
				_, err = s.Peek(ctx, p, subject)
				require.NoError(t, err)
				require.NoError(t, s.Reset(ctx, subject))
			}
		}
	})
}

func mustTree(ps ...redisstore.Policy) redisstore.Policy {
	p, err := redisstore.AllOf(ps...)
	if err != nil {
		panic(err)
	}
	return p
}
