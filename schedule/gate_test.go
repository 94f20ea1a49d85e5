package schedule

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/clock"
)

// admission is one take that went through: who, and the instant it was charged at.
type admission struct {
	who int
	at  time.Duration // since the bubble started
}

// recorder collects admissions from many goroutines.
type recorder struct {
	mu   sync.Mutex
	list []admission
}

func (r *recorder) add(who int, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.list = append(r.list, admission{who, at.Sub(bubbleStart)})
}

func (r *recorder) all() []admission {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]admission(nil), r.list...)
}

// takeIn starts a goroutine that takes cost from g and records the instant charged as who's; it
// returns once the goroutine is blocked in the queue or done, so goroutines started one after
// another queue in that order. The channel receives Take's error, or an error if the instant
// charged is not the bubble's time when Take returned (time stands still while goroutines run).
func takeIn(ctx context.Context, g *Gate, r *recorder, who int, cost int64) <-chan error {
	done := make(chan error, 1)
	go func() {
		at, err := g.Take(ctx, cost)
		switch now := time.Now(); {
		case err == nil && !at.Equal(now):
			err = fmt.Errorf("charged at %v, returned at %v", at, now)
		case err == nil:
			r.add(who, at)
		case !at.IsZero():
			err = fmt.Errorf("failed with %w, but charged at %v", err, at)
		}
		done <- err
	}()
	synctest.Wait()
	return done
}

// queueTakers starts n takers of one token from g, who 0 to n-1, queued in that order (see takeIn),
// and returns their channels.
func queueTakers(ctx context.Context, g *Gate, r *recorder, n int) []<-chan error {
	dones := make([]<-chan error, n)
	for who := range n {
		dones[who] = takeIn(ctx, g, r, who, 1)
	}
	return dones
}

func TestGateTryTakeIsTight(t *testing.T) {
	f := clock.NewFake(t0)
	g := newGate(gcra(t, numerus.PerSecond(10), 2), f)
	for i := range 2 {
		from, ok := g.TryTake(1)
		require.True(t, ok, "take %d", i)
		assert.True(t, from.Equal(numerus.DebitableFrom(t0)))
	}
	from, ok := g.TryTake(1)
	require.False(t, ok)
	want := numerus.DebitableFrom(t0.Add(100 * time.Millisecond))
	assert.True(t, from.Equal(want), "from %v", from)

	f.Set(t0.Add(100*time.Millisecond - 1))
	_, ok = g.TryTake(1)
	assert.False(t, ok, "refused 1ns before")
	f.Set(t0.Add(100 * time.Millisecond))
	_, ok = g.TryTake(1)
	assert.True(t, ok, "admitted at the instant it said")

	from, ok = g.TryTake(3)
	assert.False(t, ok)
	assert.True(t, from.IsNever(), "more than the burst is never")
	assert.Equal(t, 0, f.Timers(), "TryTake arms nothing")
}

func TestGateServesWaitersInOrderAtTheirInstants(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := NewGate(drained(t, gcra(t, numerus.PerSecond(1), 1), time.Now()))
		var r recorder
		dones := queueTakers(t.Context(), g, &r, 5)
		_, ok := g.TryTake(1)
		assert.False(t, ok, "TryTake does not pass the waiters")
		for _, d := range dones {
			require.NoError(t, <-d)
		}
		want := []admission{{0, time.Second}, {1, 2 * time.Second}, {2, 3 * time.Second}, {3, 4 * time.Second}, {4, 5 * time.Second}}
		assert.Equal(t, want, r.all())
	})
}

// A take of the whole burst queued first is served when the bucket is full again, however many
// small takes keep coming behind it; without the queue they would keep the bucket from filling.
func TestGateLargeTakeIsNotStarved(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := NewGate(drained(t, gcra(t, numerus.PerSecond(10), 10), time.Now()))
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
		defer cancel()
		var r recorder
		big := takeIn(ctx, g, &r, -1, 10)
		var wg sync.WaitGroup
		for who := range 20 {
			wg.Go(func() {
				for {
					at, err := g.Take(ctx, 1)
					if err != nil {
						return
					}
					r.add(who, at)
				}
			})
		}
		require.NoError(t, <-big)
		wg.Wait()
		got := r.all()
		require.Equal(t, admission{-1, time.Second}, got[0], "the large take goes first, when the bucket is full")
		for i, a := range got[1:] {
			assert.Equal(t, time.Second+time.Duration(i+1)*100*time.Millisecond, a.at, "small take %d", i)
		}
		assert.Len(t, got, 1+19, "then one every 100ms until the deadline")
	})
}

// The gate arms one timer, for the head of the queue, and each firing wakes exactly the waiters it
// admits: a hundred waiters, a hundred wake-ups, one at a time.
func TestGateWakesOnlyWhomItAdmits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := clock.NewFake(t0)
		g := newGate(drained(t, gcra(t, numerus.PerSecond(10), 1), t0), f)
		var mu sync.Mutex
		woken := 0
		for range 100 {
			go func() {
				at, err := g.Take(t.Context(), 1)
				assert.NoError(t, err)
				assert.True(t, at.Equal(f.Now()), "charged at %v, the clock reads %v", at, f.Now())
				mu.Lock()
				woken++
				mu.Unlock()
			}()
		}
		synctest.Wait()
		require.Equal(t, 100, queued(g))
		for i := 1; i <= 100; i++ {
			require.Equal(t, 1, f.Timers(), "one timer, for the head")
			f.Advance(100 * time.Millisecond)
			synctest.Wait()
			mu.Lock()
			require.Equal(t, i, woken, "after %d intervals", i)
			mu.Unlock()
		}
		assert.Equal(t, 0, f.Timers(), "no timer is left once no one waits")
	})
}

func TestGateCancelledWaiterTakesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := NewGate(drained(t, gcra(t, numerus.PerSecond(1), 1), time.Now()))
		var r recorder
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(500*time.Millisecond, cancel)
		a := takeIn(t.Context(), g, &r, 0, 1)
		b := takeIn(ctx, g, &r, 1, 1)
		c := takeIn(t.Context(), g, &r, 2, 1)
		require.ErrorIs(t, <-b, context.Canceled)
		assert.Equal(t, 500*time.Millisecond, elapsed(), "it left when cancelled")
		require.NoError(t, <-a)
		require.NoError(t, <-c)
		assert.Equal(t, []admission{{0, time.Second}, {2, 2 * time.Second}}, r.all(), "the next waiter got its place")
		from, ok := g.TryTake(1)
		assert.False(t, ok)
		assert.True(t, from.Equal(numerus.DebitableFrom(bubbleStart.Add(3*time.Second))), "two were taken, not three: %v", from)
	})
}

func TestGateCancelledHeadUnblocksTheQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := NewGate(drained(t, gcra(t, numerus.PerSecond(10), 10), time.Now()))
		var r recorder
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(250*time.Millisecond, cancel)
		big := takeIn(ctx, g, &r, 0, 10)
		small := takeIn(t.Context(), g, &r, 1, 2)
		require.ErrorIs(t, <-big, context.Canceled)
		require.NoError(t, <-small)
		assert.Equal(t, []admission{{1, 250 * time.Millisecond}}, r.all(), "served as soon as the head left")
	})
}

func TestGateFailsFastBehindTheQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := NewGate(drained(t, gcra(t, numerus.PerSecond(1), 1), time.Now()))
		var r recorder
		a := takeIn(t.Context(), g, &r, 0, 1)
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		defer cancel()
		at, err := g.Take(ctx, 1)
		require.True(t, at.IsZero(), "nothing charged")
		var de *DeadlineError
		require.ErrorAs(t, err, &de)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.True(t, de.At.Equal(bubbleStart.Add(2*time.Second)), "behind the waiter: %v", de.At)
		assert.Zero(t, elapsed(), "at once")
		assert.Equal(t, 1, queued(g), "not queued")

		_, err = g.Take(t.Context(), 2)
		require.ErrorIs(t, err, ErrNever)
		assert.Zero(t, elapsed(), "at once")
		require.NoError(t, <-a)
		assert.Equal(t, []admission{{0, time.Second}}, r.all())
	})
}

func TestGatePauseKeepsTheLimiterState(t *testing.T) {
	f := clock.NewFake(t0)
	g := newGate(numerus.Must(numerus.FiniteBucket(5)), f)
	_, ok := g.TryTake(2)
	require.True(t, ok)
	g.RetryAfter(10 * time.Second)
	g.Pause(t0.Add(5 * time.Second)) // an earlier instant does not shorten the pause
	from, ok := g.TryTake(1)
	require.False(t, ok)
	assert.True(t, from.Equal(numerus.DebitableFrom(t0.Add(10*time.Second))), "from %v", from)

	f.Set(t0.Add(10*time.Second - 1))
	_, ok = g.TryTake(1)
	assert.False(t, ok, "paused until the instant")
	f.Set(t0.Add(10 * time.Second))
	_, ok = g.TryTake(3)
	assert.True(t, ok, "the three left before the pause are there")
	from, ok = g.TryTake(1)
	assert.False(t, ok)
	assert.True(t, from.IsNever(), "and no more: the pause minted nothing")
}

func TestGatePauseHoldsWaitersInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := NewGate(gcra(t, numerus.PerSecond(10), 3))
		var r recorder
		g.RetryAfter(2 * time.Second)
		dones := queueTakers(t.Context(), g, &r, 5)
		time.AfterFunc(time.Second, func() { g.RetryAfter(2 * time.Second) }) // extends to 3s
		for _, d := range dones {
			require.NoError(t, <-d)
		}
		s := 3 * time.Second
		want := []admission{{0, s}, {1, s}, {2, s}, {3, s + 100*time.Millisecond}, {4, s + 200*time.Millisecond}}
		got := r.all()
		slices.SortFunc(got, func(a, b admission) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.who, b.who)) })
		assert.Equal(t, want, got, "the burst after the pause, then the rate (goroutines woken at one instant record in any order)")
	})
}

// TestGatePauseFailsLateWaitersAtOnce queues four waiters on a drained 1/s GCRA, then pauses the
// gate for 10s. A (deadline 2s) and C (whose turn moves to 11s, past its 10.5s deadline) fail at
// once with a *DeadlineError naming their turn, as Take would have failed had they come then. B
// and D move up without them, and a take asked after the pause is forecast behind B and D only.
func TestGatePauseFailsLateWaitersAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := NewGate(drained(t, gcra(t, numerus.PerSecond(1), 1), time.Now()))
		deadlines := []time.Duration{2 * time.Second, 11500 * time.Millisecond, 10500 * time.Millisecond, 20 * time.Second}
		var dones []chan error
		for _, d := range deadlines {
			ctx, cancel := context.WithTimeout(t.Context(), d)
			defer cancel()
			done := make(chan error, 1)
			go func() { _, err := g.Take(ctx, 1); done <- err }()
			synctest.Wait()
			dones = append(dones, done)
		}
		require.Equal(t, 4, queued(g))

		g.RetryAfter(10 * time.Second)
		for i, turn := range map[int]time.Duration{0: 10 * time.Second, 2: 11 * time.Second} {
			var de *DeadlineError
			require.ErrorAs(t, <-dones[i], &de, "waiter %d", i)
			require.True(t, de.At.Equal(bubbleStart.Add(turn)), "waiter %d: at %v, want its turn after the pause", i, de.At)
			require.True(t, de.Deadline.Equal(bubbleStart.Add(deadlines[i])), "waiter %d: deadline %v", i, de.Deadline)
			require.Zero(t, elapsed(), "waiter %d told at once", i)
		}
		require.Equal(t, 2, queued(g))
		from, ok := g.TryTake(1)
		require.False(t, ok)
		require.True(t, from.Equal(numerus.DebitableFrom(bubbleStart.Add(12*time.Second))), "%v: behind B at 10s and D at 11s", from)

		require.NoError(t, <-dones[1])
		require.Equal(t, 10*time.Second, elapsed(), "B at the end of the pause")
		require.NoError(t, <-dones[3])
		require.Equal(t, 11*time.Second, elapsed(), "D a second later")
	})
}

func TestZeroGateAdmitsNothing(t *testing.T) {
	var g Gate
	from, ok := g.TryTake(1)
	assert.False(t, ok)
	assert.True(t, from.IsNever())
	at, err := g.Take(context.Background(), 1)
	require.ErrorIs(t, err, ErrNever)
	assert.True(t, at.IsZero())
	assert.Equal(t, "deny", g.Limiter().String())
	_, err = NewGate(nil).Take(context.Background(), 1)
	require.ErrorIs(t, err, ErrNever)
}

func TestGateTakeWithDoneContextTakesNothing(t *testing.T) {
	f := clock.NewFake(t0)
	g := newGate(gcra(t, numerus.PerSecond(1), 1), f)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := g.Take(ctx, 1)
	require.ErrorIs(t, err, context.Canceled)
	_, ok := g.TryTake(1)
	assert.True(t, ok, "the token is still there")
}

func TestGatePanicsOnCostBelowOne(t *testing.T) {
	g := NewGate(numerus.AlwaysAllow())
	assert.Panics(t, func() { g.TryTake(0) })
	assert.Panics(t, func() { _, _ = g.Take(context.Background(), -1) })
	assert.Panics(t, func() { g.Admissions(0) })
}

// TestGatePauseFailsAWaiterDueAtItsDeadline: a pause that moves a waiter's turn exactly onto its
// deadline fails it at once with a *DeadlineError (a turn at the deadline is too late, as
// Take's own check says), rather than leaving it queued until the deadline.
func TestGatePauseFailsAWaiterDueAtItsDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := NewGate(drained(t, gcra(t, numerus.PerSecond(1), 1), time.Now()))
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		done := make(chan error, 1)
		go func() { _, err := g.Take(ctx, 1); done <- err }()
		synctest.Wait()
		require.Equal(t, 1, queued(g))

		g.RetryAfter(10 * time.Second) // its turn: the end of the pause, its deadline
		var de *DeadlineError
		require.ErrorAs(t, <-done, &de)
		require.True(t, de.At.Equal(bubbleStart.Add(10*time.Second)), "at %v", de.At)
		require.Zero(t, elapsed(), "told at once")
		require.Equal(t, 0, queued(g))
	})
}

// TestGateReadsTheSteadyClock: a gate reads the wall clock once and then the monotonic clock, so
// that setting the wall clock back does not hold every take for the length of the step (a test
// cannot set the system's clock; clock.TestSteadyInABubble shows the steady clock itself).
func TestGateReadsTheSteadyClock(t *testing.T) {
	g := NewGate(numerus.AlwaysAllow())
	_, steady := g.clk.(clock.Steady)
	require.True(t, steady, "%T", g.clk)
	var zero Gate
	zero.TryTake(1)
	_, steady = zero.clk.(clock.Steady)
	require.True(t, steady, "the zero Gate: %T", zero.clk)
}

// steadyLike is the gate's steady clock driven by a fake: its instants carry a wall and a
// monotonic reading that move together, as clock.Steady's do; its timers are the fake's.
type steadyLike struct {
	*clock.Fake
	base time.Time // a reading of time.Now(): it has a monotonic reading
}

func (c steadyLike) Now() time.Time { return c.base.Add(c.Fake.Now().Sub(t0)) }

// wallShifted returns at with its wall reading moved by d (whole seconds) and its monotonic
// reading kept: what time.Now() reads, beside a steady clock, after the machine was suspended for
// d or its wall clock set by d. Only time.Time's layout allows that split without setting the
// system's clock: with a monotonic reading, wall holds the seconds since 1885 in bits 30 to 62.
func wallShifted(t *testing.T, at time.Time, d time.Duration) time.Time {
	type layout struct {
		wall uint64
		ext  int64
		loc  *time.Location
	}
	s := at
	r := (*layout)(unsafe.Pointer(&s))
	require.NotZero(t, r.wall&(1<<63), "needs a monotonic reading")
	r.wall = uint64(int64(r.wall) + int64(d/time.Second)<<30)
	require.Zero(t, s.Sub(at), "the same monotonic reading")
	require.Equal(t, d, s.Round(0).Sub(at.Round(0)), "the wall moved by d")
	return s
}

// TestGatePauseAfterWallStep: a pause until time.Now()+5s, read after the wall clock moved an
// hour away from the gate's steady clock, lasts 5s on the gate's timeline: the gate goes on at
// the policy's pace after it, neither stalling for the hour nor charging its limiter an hour
// ahead (found by a review of the steady clock).
func TestGatePauseAfterWallStep(t *testing.T) {
	for _, step := range []time.Duration{0, time.Hour, -time.Hour} {
		t.Run(step.String(), func(t *testing.T) {
			f := clock.NewFake(t0)
			clk := steadyLike{f, time.Now()}
			g := newGate(drained(t, gcra(t, numerus.PerSecond(10), 1), clk.Now()), clk)
			callerNow := wallShifted(t, clk.Now(), step)
			g.Pause(callerNow.Add(5 * time.Second))
			_, w, err := g.enqueue(1, time.Time{})
			require.NoError(t, err)
			require.NotNil(t, w)
			f.Advance(5 * time.Second)
			runTaken(t, g, w, clk.Now()) // the pause is over and the limiter full: the waiter goes
			f.Advance(time.Second)
			from, ok := g.TryTake(1)
			at, _ := from.Time()
			require.True(t, ok, "a second later the gate admits; it forecasts %v from now", at.Sub(clk.Now()))
		})
	}
}
