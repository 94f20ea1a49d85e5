package redisstore_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/memory"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
	"github.com/numerus-closus/numerus/typed"
	"github.com/redis/go-redis/v9"
)

// batch checks ten subjects ten times each in one batch, at t0: each subject's first five are
// admitted.
func batch(t *testing.T, s *redisstore.Store, ns string) []keyed.Decision {
	t.Helper()
	l, err := keyed.New(s, numerus.Must(typed.Parse("gcra 1/h burst 5")), keyed.StringKey{}, keyed.WithNamespace(ns))
	require.NoError(t, err)
	subjects := make([]string, 100)
	for i := range subjects {
		subjects[i] = fmt.Sprint("subject", i%10)
	}
	reqs := requests(l, 1, subjects...)
	for i := range reqs {
		reqs[i].At = t0
	}
	ds, err := s.AcquireBatch(context.Background(), reqs)
	require.NoError(t, err)
	for i, d := range ds {
		require.Equal(t, i/10 < 5, d.Allowed, "check %d", i)
		require.Equal(t, max(0, 4-int64(i/10)), d.Remaining, "check %d", i)
	}
	return ds
}

// TestBatch: on a single server, a batch of 100 checks of one policy is one round trip and one
// EVALSHA; after a SCRIPT FLUSH, it goes again as an EVAL in a second round trip. Checks of
// several policies are one EVALSHA each, in one round trip.
func TestBatch(t *testing.T) {
	srv := redistest.Start(t)
	c, hook := srv.Client(t), &sent{}
	c.AddHook(hook)
	s := redisstore.MustNew(c, redisstore.WithMinTTL(time.Hour))
	_, err := limiter(t, s, eachKind[0], nil).Peek(context.Background(), "load the script")
	require.NoError(t, err)
	hook.take()

	batch(t, s, t.Name()+"/one trip")
	names, trips := hook.take()
	require.Equal(t, 1, trips)
	require.Equal(t, []string{"evalsha"}, names)

	require.NoError(t, c.ScriptFlush(context.Background()).Err())
	hook.take()
	batch(t, s, t.Name()+"/flushed")
	names, trips = hook.take()
	require.Equal(t, 2, trips)
	require.Equal(t, []string{"evalsha", "eval"}, names)

	ds, err := s.AcquireBatch(context.Background(), nil)
	require.NoError(t, err)
	require.Empty(t, ds)
	names, _ = hook.take()
	require.Empty(t, names, "an empty batch sends nothing")

	a, b := limiter(t, s, "gcra 1/h burst 2", nil), limiter(t, s, "window 2/h", nil)
	reqs := append(requests(a, 1, "x", "y"), requests(b, 1, "z", "z", "z")...)
	ds, err = s.AcquireBatch(context.Background(), reqs)
	require.NoError(t, err)
	names, trips = hook.take()
	require.Equal(t, 1, trips)
	require.Equal(t, []string{"evalsha", "evalsha"}, names, "one batch script call per policy")
	for i, want := range []bool{true, true, true, true, false} {
		require.Equal(t, want, ds[i].Allowed, "check %d", i)
	}
}

// TestBatchLarge: a batch larger than one script call takes is split, still in one round trip.
func TestBatchLarge(t *testing.T) {
	srv := redistest.Start(t)
	c, hook := srv.Client(t), &sent{}
	c.AddHook(hook)
	s := redisstore.MustNew(c)
	l := limiter(t, s, "gcra 1/h burst 3", nil)
	_, err := l.Peek(context.Background(), "load the script")
	require.NoError(t, err)
	hook.take()
	subjects := make([]string, 1234)
	for i := range subjects {
		subjects[i] = fmt.Sprint(i % 617)
	}
	ds, err := s.AcquireBatch(context.Background(), requests(l, 1, subjects...))
	require.NoError(t, err)
	names, trips := hook.take()
	require.Equal(t, 1, trips)
	require.Equal(t, []string{"evalsha", "evalsha", "evalsha"}, names)
	for i, d := range ds {
		require.True(t, d.Allowed, "check %d", i)
		require.Equal(t, int64(2-i/617), d.Remaining, "check %d", i)
	}
}

// TestBatchKeyPerCall: WithKeyPerCall sends each check of a batch as its own script call, as for
// a proxy that spreads keys over servers, still in one round trip, deciding alike.
func TestBatchKeyPerCall(t *testing.T) {
	srv := redistest.Start(t)
	c, hook := srv.Client(t), &sent{}
	c.AddHook(hook)
	s := redisstore.MustNew(c, redisstore.WithKeyPerCall())
	l := limiter(t, s, "gcra 1/h burst 1", nil)
	_, err := l.Peek(context.Background(), "load the script")
	require.NoError(t, err)
	hook.take()
	ds, err := s.AcquireBatch(context.Background(), requests(l, 1, "a", "b", "a"))
	require.NoError(t, err)
	names, trips := hook.take()
	require.Equal(t, 1, trips)
	require.Equal(t, []string{"evalsha", "evalsha", "evalsha"}, names, "one script call a check")
	for i, want := range []bool{true, true, false} {
		require.Equal(t, want, ds[i].Allowed, "check %d", i)
	}
}

// TestBatchCorrupt: a corrupt subject fails alone in a batch; the others are decided.
func TestBatchCorrupt(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	s := redisstore.MustNew(c)
	for _, text := range []string{"gcra 1/h burst 3", "sliding 3/h"} { // the plain path, the engine
		l := limiter(t, s, text, nil)
		require.NoError(t, c.Set(context.Background(), redisstore.RedisKey(l.Key("bad")), "x", 0).Err())
		ds, err := s.AcquireBatch(context.Background(), requests(l, 1, "a", "bad", "b"))
		require.ErrorIs(t, err, redisstore.ErrCorrupt, text)
		require.ErrorContains(t, err, "1 of 3 checks failed, first check 1")
		require.True(t, ds[0].Allowed)
		require.Equal(t, keyed.Decision{}, ds[1])
		require.True(t, ds[2].Allowed)
	}
}

// TestBatchDecidesAsOneByOne runs random batches of one policy or two (a policy change, with
// calls of both on one subject in a batch), with the caller's times, and requires each decision
// to be the one keyed's memory store makes for the same requests one by one, in order.
func TestBatchDecidesAsOneByOne(t *testing.T) {
	batchOneByOne(t, redistest.Start(t).Client(t))
}

func batchOneByOne(t *testing.T, client redis.UniversalClient) {
	s := redisstore.MustNew(client, redisstore.WithMinTTL(time.Hour))
	ctx := context.Background()
	rapid.Check(t, func(rt *rapid.T) {
		var ps []typed.Policy
		limit := int64(5)
		for range rapid.IntRange(1, 2).Draw(rt, "policies") {
			p, err := typed.Compile(genSpec(rt, 1))
			require.NoError(rt, err)
			ps, limit = append(ps, p), min(limit, p.Status(p.Fresh(), t0).Limit)
		}
		ref := memory.New(memory.WithGrace(1000 * time.Hour))
		run := strconv.FormatInt(subjects.Add(1), 10)
		at := t0
		for range rapid.IntRange(1, 4).Draw(rt, "batches") {
			var reqs []keyed.Request
			for range rapid.IntRange(1, 30).Draw(rt, "checks") {
				at = at.Add(time.Duration(rapid.Int64Range(-2, 5).Draw(rt, "dt")) * time.Millisecond)
				reqs = append(reqs, keyed.Request{Key: []byte(run + ":" + rapid.SampledFrom([]string{"a", "b", "c"}).Draw(rt, "subject")),
					Policy: rapid.SampledFrom(ps).Draw(rt, "policy"), Cost: rapid.Int64Range(1, limit).Draw(rt, "cost"), At: at})
			}
			ds, err := s.AcquireBatch(ctx, reqs)
			require.NoError(rt, err)
			for i, r := range reqs {
				want, _ := ref.Acquire(ctx, r)
				want.RetryAfter, want.FullAfter, want.RefillAfter = ceilMicro(want.RetryAfter), ceilMicro(want.FullAfter), ceilMicro(want.RefillAfter)
				require.Equal(rt, want, ds[i], "check %d under %s", i, r.Policy)
			}
		}
	})
}

// TestBatchInvalid: an invalid check fails alone; the batch reports it and runs the others.
func TestBatchInvalid(t *testing.T) {
	s := redisstore.MustNew(redistest.Start(t).Client(t))
	reqs := requests(limiter(t, s, eachKind[0], nil), 1, "a", "b", "c")
	reqs[1].Cost = 0
	ds, err := s.AcquireBatch(context.Background(), reqs)
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
	s := redisstore.MustNew(c, redisstore.WithMinTTL(time.Hour))
	ctx := context.Background()
	l := limiter(t, s, eachKind[0], nil)
	_, err := l.Peek(ctx, "load the script")
	require.NoError(t, err)
	r := requests(l, 2, "alice")[0]
	r.At = t0
	pipe := c.Pipeline()
	a := s.QueueAcquire(ctx, pipe, r)
	incr := pipe.Incr(ctx, t.Name())
	b := s.QueuePeek(ctx, pipe, r)
	_, err = pipe.Exec(ctx)
	require.NoError(t, err)
	da, err := a.Decision(ctx)
	require.NoError(t, err)
	require.Equal(t, keyed.Decision{Allowed: true, Remaining: 1, Limit: 3,
		RetryAfter: keyed.DurationOf(0), FullAfter: keyed.DurationOf(200 * time.Millisecond), RefillAfter: keyed.DurationOf(100 * time.Millisecond)}, da)
	require.Equal(t, int64(1), incr.Val())
	db, err := b.Decision(ctx)
	require.NoError(t, err)
	require.Equal(t, da, db)

	require.NoError(t, c.ScriptFlush(ctx).Err())
	pipe = c.Pipeline()
	r.Cost = 1
	a = s.QueueAcquire(ctx, pipe, r)
	_, err = pipe.Exec(ctx)
	require.True(t, redis.HasErrorPrefix(err, "NOSCRIPT"))
	da, err = a.Decision(ctx) // sends the script again
	require.NoError(t, err)
	require.True(t, da.Allowed)
	require.Equal(t, int64(0), da.Remaining)
}

// requests returns l.Request(subject, cost) for each subject, as a batch of them.
func requests[S any](l keyed.Limiter[S], cost int64, subjects ...S) []keyed.Request {
	reqs := make([]keyed.Request, len(subjects))
	for i, subject := range subjects {
		reqs[i] = l.Request(subject, cost)
	}
	return reqs
}

// TestRequests: the requests of a limiter's subjects carry its keys, its policy and the cost, and
// its clock's instant, or none for a limiter without a clock.
func TestRequests(t *testing.T) {
	c := newClock(t0)
	for _, clk := range []*clock{nil, c} {
		l := limiter(t, redisstore.MustNew(nil), eachKind[0], clk)
		reqs := requests(l, 2, "a", "b")
		require.Len(t, reqs, 2)
		for i, s := range []string{"a", "b"} {
			require.Equal(t, l.Key(s), string(reqs[i].Key))
			require.Equal(t, l.Policy(), reqs[i].Policy)
			require.Equal(t, int64(2), reqs[i].Cost)
			if clk == nil {
				require.True(t, reqs[i].At.IsZero())
			} else {
				require.True(t, reqs[i].At.Equal(t0), "the limiter's clock: %v", reqs[i].At)
			}
		}
	}
}

// TestBatchKeepsTheLimitersClock: a batch of a limiter with a clock decides at the clock's
// instants, as the limiter's own checks do, not at the server's.
func TestBatchKeepsTheLimitersClock(t *testing.T) {
	ctx := context.Background()
	s := redisstore.MustNew(redistest.Start(t).Client(t), redisstore.WithMinTTL(time.Hour))
	c := newClock(t0) // long past: by the server's clock every window below is over
	l := limiter(t, s, "window 1/h", c)
	ds, err := s.AcquireBatch(ctx, requests(l, 1, "a", "b"))
	require.NoError(t, err)
	require.True(t, ds[0].Allowed && ds[1].Allowed)
	d, err := l.TryAcquire(ctx, "a", 1)
	require.NoError(t, err)
	require.False(t, d.Allowed, "the batch's token was taken in the clock's window")
	c.add(time.Hour)
	ds, err = s.AcquireBatch(ctx, requests(l, 1, "a", "b"))
	require.NoError(t, err)
	require.True(t, ds[0].Allowed && ds[1].Allowed, "the clock's next window")
	ds, err = s.AcquireBatch(ctx, requests(l, 1, "a"))
	require.NoError(t, err)
	require.False(t, ds[0].Allowed)
}

// TestBatchPerCallNumbers: the checks of one batch script call keep their own costs and instants,
// deciding as the memory store decides them one by one (a fixed case beside the random
// TestBatchDecidesAsOneByOne).
func TestBatchPerCallNumbers(t *testing.T) {
	ctx := context.Background()
	s := redisstore.MustNew(redistest.Start(t).Client(t), redisstore.WithMinTTL(time.Hour))
	reqs := requests(limiter(t, s, "gcra 1/s burst 5", nil), 1, "a", "a", "a", "b", "a")
	ref := memory.New(memory.WithGrace(time.Hour))
	for i, c := range []int64{2, 3, 2, 5, 1} {
		reqs[i].Cost, reqs[i].At = c, t0.Add(time.Duration(i)*time.Second/2)
	}
	got, err := s.AcquireBatch(ctx, reqs)
	require.NoError(t, err)
	for i, r := range reqs {
		want, err := ref.Acquire(ctx, r)
		require.NoError(t, err)
		require.Equal(t, want, got[i], "check %d", i)
	}
	require.Equal(t, []bool{true, true, false, true, true}, []bool{got[0].Allowed, got[1].Allowed,
		got[2].Allowed, got[3].Allowed, got[4].Allowed})
}
