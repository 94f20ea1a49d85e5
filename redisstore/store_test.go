package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
)

func TestAcquireGCRA(t *testing.T) {
	srv := redistest.Start(t)
	c := newClock(t0)
	s := store(t, srv.Client(t), c)
	ctx := context.Background()
	p := numerus.Must(redisstore.GCRA(numerus.PerSecond(10), 3))
	for i := range 3 {
		d, err := s.Acquire(ctx, p, "alice", 1)
		require.NoError(t, err)
		require.True(t, d.Allowed, "take %d", i)
		require.Equal(t, int64(2-i), d.Remaining)
		require.Equal(t, int64(3), d.Limit)
	}
	d, err := s.Acquire(ctx, p, "alice", 1)
	require.NoError(t, err)
	require.False(t, d.Allowed)
	w, ok := d.RetryAfter.Duration()
	require.True(t, ok)
	require.Equal(t, 100*time.Millisecond, w)
	r, _ := d.ResetAfter.Duration()
	require.Equal(t, 300*time.Millisecond, r)
	c.add(100 * time.Millisecond)
	d, err = s.Acquire(ctx, p, "alice", 1)
	require.NoError(t, err)
	require.True(t, d.Allowed)
	d, err = s.Acquire(ctx, p, "alice", 4)
	require.NoError(t, err)
	require.False(t, d.Allowed)
	require.True(t, d.RetryAfter.IsNever())
}

// TestDeepestTree runs a tree of the deepest nesting a Policy allows through the script.
func TestDeepestTree(t *testing.T) {
	p := eachKind[0]
	for range 32 {
		p = numerus.Must(redisstore.AllOf(p, eachKind[1]))
	}
	s := store(t, redistest.Start(t).Client(t), newClock(t0))
	d, err := s.Acquire(context.Background(), p, "deep", 1)
	require.NoError(t, err)
	require.True(t, d.Allowed)
	require.Equal(t, int64(2), d.Remaining)
}
