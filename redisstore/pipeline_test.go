package redisstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// batch checks ten subjects ten times each in one batch: each subject's first five are admitted.
func batch(t *testing.T, c redis.UniversalClient, s *redisstore.Store) []redisstore.Decision {
	t.Helper()
	checks := make([]redisstore.Check, 100)
	for i := range checks {
		checks[i] = redisstore.Check{Subject: fmt.Sprint("subject", i%10), Cost: 1}
	}
	ds, err := s.AcquireBatch(context.Background(), numerus.Must(redisstore.GCRA(numerus.PerHour(1), 5)), checks)
	require.NoError(t, err)
	for i, d := range ds {
		require.Equal(t, i/10 < 5, d.Allowed, "check %d", i)
		require.Equal(t, max(0, 4-int64(i/10)), d.Remaining, "check %d", i)
	}
	return ds
}

// TestBatch: a batch of 100 checks is one round trip of 100 EVALSHAs, in order; after a SCRIPT
// FLUSH, the refused checks go again as EVALs in a second round trip.
func TestBatch(t *testing.T) {
	srv := redistest.Start(t)
	c, hook := srv.Client(t), &sent{}
	c.AddHook(hook)
	_, err := store(t, c, newClock(t0)).Peek(context.Background(), eachKind[0], "load the script")
	require.NoError(t, err)
	hook.take()

	batch(t, c, store(t, c, newClock(t0), redisstore.WithNamespace("one trip")))
	names, trips := hook.take()
	require.Equal(t, 1, trips)
	require.Len(t, names, 100)
	for _, n := range names {
		require.Equal(t, "evalsha", n)
	}

	require.NoError(t, c.ScriptFlush(context.Background()).Err())
	hook.take()
	batch(t, c, store(t, c, newClock(t0), redisstore.WithNamespace("flushed")))
	names, trips = hook.take()
	require.Equal(t, 2, trips)
	require.Len(t, names, 200)
}

// TestBatchInvalid: an invalid check fails alone; the batch reports it and runs the others.
func TestBatchInvalid(t *testing.T) {
	srv := redistest.Start(t)
	s := store(t, srv.Client(t), newClock(t0))
	ds, err := s.AcquireBatch(context.Background(), eachKind[0], []redisstore.Check{{"a", 1}, {"b", 0}, {"c", 1}})
	require.ErrorIs(t, err, numerus.ErrInvalidArgument)
	require.ErrorContains(t, err, "1 of 3 checks failed, first check 1")
	require.True(t, ds[0].Allowed)
	require.False(t, ds[1].Allowed)
	require.True(t, ds[2].Allowed)
}

// TestQueue mixes queued checks with other commands on the caller's pipeline.
func TestQueue(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	s := store(t, c, newClock(t0), redisstore.WithMinTTL(time.Hour))
	ctx := context.Background()
	p := eachKind[0]
	_, err := s.Peek(ctx, p, "load the script")
	require.NoError(t, err)
	pipe := c.Pipeline()
	a := s.QueueAcquire(ctx, pipe, p, "alice", 2)
	incr := pipe.Incr(ctx, "counter")
	b := s.QueuePeek(ctx, pipe, p, "alice")
	_, err = pipe.Exec(ctx)
	require.NoError(t, err)
	da, err := a.Decision(ctx)
	require.NoError(t, err)
	require.Equal(t, redisstore.Decision{Allowed: true, Remaining: 1, Limit: 3,
		RetryAfter: redisstore.WaitFor(0), ResetAfter: redisstore.WaitFor(200e6)}, da)
	require.Equal(t, int64(1), incr.Val())
	db, err := b.Decision(ctx)
	require.NoError(t, err)
	require.Equal(t, da, db)

	require.NoError(t, c.ScriptFlush(ctx).Err())
	pipe = c.Pipeline()
	a = s.QueueAcquire(ctx, pipe, p, "alice", 1)
	_, err = pipe.Exec(ctx)
	require.True(t, redis.HasErrorPrefix(err, "NOSCRIPT"))
	da, err = a.Decision(ctx) // sends the script again
	require.NoError(t, err)
	require.True(t, da.Allowed)
	require.Equal(t, int64(0), da.Remaining)
}
