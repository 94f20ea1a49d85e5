package redisstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// gate holds each round trip of a client until the test lets it go, and records the commands.
type gate struct {
	sent
	arrived chan struct{}
	release chan struct{}
}

func newGate() *gate {
	return &gate{arrived: make(chan struct{}, 100), release: make(chan struct{}, 100)}
}

func (g *gate) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		g.add(cmd)
		g.arrived <- struct{}{}
		<-g.release
		return next(ctx, cmd)
	}
}

func (g *gate) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		g.add(cmds...)
		g.arrived <- struct{}{}
		<-g.release
		return next(ctx, cmds)
	}
}

// waitQueued waits until n acquires of s wait for a round trip.
func waitQueued(t *testing.T, s *redisstore.Store, n int) {
	t.Helper()
	require.Eventually(t, func() bool { return redisstore.Queued(s) == n }, 10*time.Second, time.Millisecond)
}

// TestCoalescing: acquires made while the one round trip allowed is in flight go together in the
// next, as one batch script call, and decide as if made one by one: the hot subject admits
// exactly its burst, every cold subject its first.
func TestCoalescing(t *testing.T) {
	srv := redistest.Start(t)
	c, g := srv.Client(t), newGate()
	s := redisstore.New(c, redisstore.WithCoalescing(1), redisstore.WithMinTTL(time.Hour))
	l := limiter(t, s, "gcra 1/h burst 10", nil)
	ctx := context.Background()
	_, err := l.Peek(ctx, "load the script")
	require.NoError(t, err)
	c.AddHook(g)

	type answer struct {
		d   keyed.Decision
		err error
	}
	const n = 40
	answers := make([]answer, n)
	var wg sync.WaitGroup
	wg.Go(func() { answers[0].d, answers[0].err = l.TryAcquire(ctx, "hot", 1) })
	<-g.arrived // the first acquire is in flight, alone
	for i := 1; i < n; i++ {
		subject := "hot"
		if i%2 == 0 {
			subject = fmt.Sprint("cold", i)
		}
		wg.Go(func() { answers[i].d, answers[i].err = l.TryAcquire(ctx, subject, 1) })
	}
	waitQueued(t, s, n-1)
	g.release <- struct{}{}
	<-g.arrived // the queue, as one batch
	g.release <- struct{}{}
	wg.Wait()

	names, trips := g.take()
	require.Equal(t, []string{"evalsha", "evalsha"}, names)
	require.Equal(t, 2, trips)
	hot, cold := 0, 0
	for i, a := range answers {
		require.NoError(t, a.err, "acquire %d", i)
		switch {
		case a.d.Allowed && i%2 == 0 && i > 0:
			cold++
		case a.d.Allowed:
			hot++
		}
	}
	require.Equal(t, 10, hot, "the hot subject admits its burst, no more")
	require.Equal(t, n/2-1, cold, "each cold subject admits its first")
}

// TestCoalescedCancel: an acquire whose context ends while it waits leaves the queue unsent (its
// subject keeps its token); one whose context ends while its batch is in flight returns the
// context's error at once; the others of the batch get their decisions, and no goroutine is left.
func TestCoalescedCancel(t *testing.T) {
	srv := redistest.Start(t)
	c, g := srv.Client(t), newGate()
	s := redisstore.New(c, redisstore.WithCoalescing(1), redisstore.WithMinTTL(time.Hour))
	l := limiter(t, s, "gcra 1/h burst 1", nil)
	ctx := context.Background()
	_, err := l.Peek(ctx, "load the script")
	require.NoError(t, err)
	c.AddHook(g)

	var wg sync.WaitGroup
	var first, kept, late error
	var keptD keyed.Decision
	wg.Go(func() { _, first = l.TryAcquire(ctx, "a", 1) })
	<-g.arrived
	queuedCtx, cancelQueued := context.WithCancel(ctx)
	wg.Go(func() { _, err := l.TryAcquire(queuedCtx, "never sent", 1); require.ErrorIs(t, err, context.Canceled) })
	waitQueued(t, s, 1)
	cancelQueued()
	waitQueued(t, s, 0)

	lateCtx, cancelLate := context.WithCancel(ctx)
	lateDone := make(chan struct{})
	wg.Go(func() { keptD, kept = l.TryAcquire(ctx, "b", 1) })
	waitQueued(t, s, 1)
	wg.Go(func() { _, late = l.TryAcquire(lateCtx, "c", 1); close(lateDone) })
	waitQueued(t, s, 2)
	g.release <- struct{}{} // the first ends; "b" leads the batch of "b" and "c"
	<-g.arrived
	cancelLate() // "c" is in flight: its caller stops waiting, before the batch ends
	select {
	case <-lateDone:
	case <-time.After(10 * time.Second):
		t.Fatal("an acquire in flight kept its caller waiting after its context ended")
	}
	g.release <- struct{}{}
	wg.Wait()
	require.NoError(t, first)
	require.NoError(t, kept)
	require.True(t, keptD.Allowed)
	require.ErrorIs(t, late, context.Canceled)

	other := limiter(t, redisstore.New(srv.Client(t)), "gcra 1/h burst 1", nil)
	d, err := other.Peek(ctx, "never sent")
	require.NoError(t, err)
	require.Equal(t, int64(1), d.Remaining, "a cancelled acquire that waited took nothing")
}
