package redisstore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
)

// TestCluster runs the store on one Redis Cluster of three masters: the keyed conformance suite,
// the differential test, batches, and every kind of policy on subjects spread over the slots. One
// key per subject, so every check goes to one slot with no hash tag, whatever the policy.
func TestCluster(t *testing.T) {
	c := redistest.StartCluster(t).Client(t)
	t.Run("conformance", func(t *testing.T) { conformance(t, c) })
	t.Run("differential", func(t *testing.T) { differential(t, c) })
	t.Run("batch", func(t *testing.T) { batch(t, redisstore.New(c), t.Name()) })
	t.Run("batch one by one", func(t *testing.T) { batchOneByOne(t, c) })
	t.Run("every kind across the slots", func(t *testing.T) {
		s := redisstore.New(c)
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
