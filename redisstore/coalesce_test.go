package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// gate holds each round trip of checks (script calls) of a client until the test lets it go, and records the commands.
// What the test sends on release says what the round trip does: go on, fail, or panic.
type gate struct {
	sent
	arrived chan struct{}
	release chan action
}

type action int

const (
	proceed action = iota
	fail
	crash
)

var errGate = errors.New("the gate failed the round trip")

func newGate() *gate {
	return &gate{arrived: make(chan struct{}, 100), release: make(chan action, 100)}
}

func (g *gate) hold(cmds ...redis.Cmder) error {
	if !slices.ContainsFunc(cmds, func(c redis.Cmder) bool { return strings.HasPrefix(c.Name(), "eval") }) {
		return nil // a connection's set-up, not a check
	}
	g.add(cmds...)
	g.arrived <- struct{}{}
	switch <-g.release {
	case fail:
		return errGate
	case crash:
		panic("the gate crashed the round trip")
	}
	return nil
}

func (g *gate) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if err := g.hold(cmd); err != nil {
			return err
		}
		return next(ctx, cmd)
	}
}

func (g *gate) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if err := g.hold(cmds...); err != nil {
			return err
		}
		return next(ctx, cmds)
	}
}

// gated returns a server, a store on it that keeps one round trip of acquires in flight, a
// limiter of policy on the store, and the gate that holds each of its round trips; the script is
// loaded.
func gated(t *testing.T, policy string) (*redistest.Server, *redisstore.Store, keyed.Limiter[string], *gate) {
	t.Helper()
	srv := redistest.Start(t)
	c, g := srv.Client(t), newGate()
	s := redisstore.MustNew(c, redisstore.WithCoalescing(1), redisstore.WithMinTTL(time.Hour))
	l := limiter(t, s, policy, nil)
	_, err := l.Peek(context.Background(), "load the script")
	require.NoError(t, err)
	c.AddHook(g)
	return srv, s, l, g
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
	_, s, l, g := gated(t, "gcra 1/h burst 10")
	ctx := context.Background()

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
	g.release <- proceed
	<-g.arrived // the queue, as one batch
	g.release <- proceed
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
	srv, s, l, g := gated(t, "gcra 1/h burst 1")
	ctx := context.Background()

	var wg sync.WaitGroup
	var first, kept, late error
	var keptD keyed.Decision
	wg.Go(func() { _, first = l.TryAcquire(ctx, "a", 1) })
	<-g.arrived
	queuedCtx, cancelQueued := context.WithCancel(ctx)
	var queuedErr error
	wg.Go(func() { _, queuedErr = l.TryAcquire(queuedCtx, "never sent", 1) })
	waitQueued(t, s, 1)
	cancelQueued()
	waitQueued(t, s, 0)

	lateCtx, cancelLate := context.WithCancel(ctx)
	lateDone := make(chan struct{})
	wg.Go(func() { keptD, kept = l.TryAcquire(ctx, "b", 1) })
	waitQueued(t, s, 1)
	wg.Go(func() { _, late = l.TryAcquire(lateCtx, "c", 1); close(lateDone) })
	waitQueued(t, s, 2)
	g.release <- proceed // the first ends; "b" leads the batch of "b" and "c"
	<-g.arrived
	cancelLate() // "c" is in flight: its caller stops waiting, before the batch ends
	select {
	case <-lateDone:
	case <-time.After(10 * time.Second):
		t.Fatal("an acquire in flight kept its caller waiting after its context ended")
	}
	g.release <- proceed
	wg.Wait()
	require.NoError(t, first)
	require.NoError(t, kept)
	require.True(t, keptD.Allowed)
	require.ErrorIs(t, late, context.Canceled)
	require.ErrorIs(t, queuedErr, context.Canceled)

	other := limiter(t, redisstore.MustNew(srv.Client(t)), "gcra 1/h burst 1", nil)
	d, err := other.Peek(ctx, "never sent")
	require.NoError(t, err)
	require.Equal(t, int64(1), d.Remaining, "a cancelled acquire that waited took nothing")
}

// endedCtx is a context that ends (Err) when told to, with no Done channel: its acquire stays
// queued until it is handed a batch, and only then finds its context ended.
type endedCtx struct {
	context.Context
	ended atomic.Bool
}

func (c *endedCtx) Err() error {
	if c.ended.Load() {
		return context.Canceled
	}
	return nil
}

// TestCoalescedLeaderCancel: a caller handed a batch to send whose context has ended hands the
// batch on to the next of its acquires and returns at once, its own acquire unsent.
func TestCoalescedLeaderCancel(t *testing.T) {
	srv, s, l, g := gated(t, "gcra 1/h burst 1")
	ctx := context.Background()

	var wg sync.WaitGroup
	var first, kept error
	var keptD keyed.Decision
	wg.Go(func() { _, first = l.TryAcquire(ctx, "a", 1) })
	<-g.arrived
	leadCtx := &endedCtx{Context: ctx}
	leadDone := make(chan error, 1)
	wg.Go(func() { _, err := l.TryAcquire(leadCtx, "leader", 1); leadDone <- err })
	waitQueued(t, s, 1)
	wg.Go(func() { keptD, kept = l.TryAcquire(ctx, "kept", 1) })
	waitQueued(t, s, 2)
	leadCtx.ended.Store(true)
	g.release <- proceed // the first ends and hands "leader" the batch of "leader" and "kept"
	<-g.arrived          // "leader" handed it on: "kept" sends itself
	select {
	case err := <-leadDone:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("the caller whose context ended waited for the batch it handed on")
	}
	names, _ := g.take()
	require.Equal(t, []string{"evalsha", "evalsha"}, names, "the first, then kept's alone")
	g.release <- proceed
	wg.Wait()
	require.NoError(t, first)
	require.NoError(t, kept)
	require.True(t, keptD.Allowed)

	other := limiter(t, redisstore.MustNew(srv.Client(t)), "gcra 1/h burst 1", nil)
	d, err := other.Peek(ctx, "leader")
	require.NoError(t, err)
	require.Equal(t, int64(1), d.Remaining, "the cancelled acquire took nothing")
}

// TestCoalescedFailure: a batch whose round trip fails fails each of its acquires with an error,
// never a decision; one whose sender panics fails them with an error too, and the store goes on.
func TestCoalescedFailure(t *testing.T) {
	_, s, l, g := gated(t, "gcra 1/h burst 5")
	ctx := context.Background()

	for _, a := range []action{fail, crash} {
		var wg sync.WaitGroup
		errs := make([]error, 3)
		wg.Go(func() { _, errs[0] = l.TryAcquire(ctx, "first", 1) })
		<-g.arrived
		for i := 1; i < len(errs); i++ {
			wg.Go(func() {
				defer func() {
					if r := recover(); r != nil {
						errs[i] = fmt.Errorf("panicked: %v", r)
					}
				}()
				_, errs[i] = l.TryAcquire(ctx, fmt.Sprint("batched", i), 1)
			})
		}
		waitQueued(t, s, len(errs)-1)
		g.release <- proceed
		<-g.arrived
		g.release <- a
		wg.Wait()
		require.NoError(t, errs[0])
		for i := 1; i < len(errs); i++ {
			require.Error(t, errs[i], "action %d, acquire %d", a, i)
		}
		g.release <- proceed // the store is not stalled: the next acquire goes alone
		d, err := l.TryAcquire(ctx, "after", 1)
		<-g.arrived
		require.NoError(t, err)
		require.True(t, d.Allowed)
	}
}

// TestCoalescingScope: without coalescing, an acquire made while another is in flight goes at
// once, on its own round trip; with it, a Peek or a Reset made then goes at once too, never queued.
func TestCoalescingScope(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		opts   []redisstore.Option
		second func(l keyed.Limiter[string]) error
	}{
		{"acquire, coalescing off", []redisstore.Option{redisstore.WithCoalescing(0)},
			func(l keyed.Limiter[string]) error { _, err := l.TryAcquire(ctx, "b", 1); return err }},
		{"peek", []redisstore.Option{redisstore.WithCoalescing(1)},
			func(l keyed.Limiter[string]) error { _, err := l.Peek(ctx, "b"); return err }},
		{"reset", []redisstore.Option{redisstore.WithCoalescing(1)},
			func(l keyed.Limiter[string]) error { return l.Reset(ctx, "b") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, g := srv.Client(t), newGate()
			l := limiter(t, redisstore.MustNew(c, tc.opts...), "gcra 1/h burst 3", nil)
			_, err := l.Peek(ctx, "load the script")
			require.NoError(t, err)
			c.AddHook(g)
			var wg sync.WaitGroup
			var first, second error
			wg.Go(func() { _, first = l.TryAcquire(ctx, "a", 1) })
			<-g.arrived // the first acquire is in flight, held
			wg.Go(func() { second = tc.second(l) })
			select {
			case <-g.arrived: // the second call went while the first was held
			case <-time.After(10 * time.Second):
				t.Fatal("the second call waited for the round trip in flight")
			}
			g.release <- proceed
			g.release <- proceed
			wg.Wait()
			require.NoError(t, first)
			require.NoError(t, second)
		})
	}
}

// TestBatchOutlivesItsSendersContext: the acquire whose goroutine sends a batch has its context
// cancelled while the batch is in flight. The batch is not its own to cancel: every other
// acquire in it gets its decision.
func TestBatchOutlivesItsSendersContext(t *testing.T) {
	_, s, l, g := gated(t, "gcra 1/h burst 10")
	ctx := context.Background()
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = l.TryAcquire(ctx, "a", 1) })
	<-g.arrived
	sender, cancel := context.WithCancel(ctx)
	wg.Go(func() { _, _ = l.TryAcquire(sender, "a", 1) })
	waitQueued(t, s, 1)
	ds, errs := make([]keyed.Decision, 3), make([]error, 3)
	for i := range 3 {
		wg.Go(func() { ds[i], errs[i] = l.TryAcquire(ctx, "a", 1) })
	}
	waitQueued(t, s, 4)
	g.release <- proceed
	<-g.arrived // the batch, sent by the first acquire queued
	cancel()
	g.release <- proceed
	wg.Wait()
	for i := range 3 {
		require.NoError(t, errs[i], "acquire %d of the batch", i)
		require.True(t, ds[i].Allowed)
	}
}
