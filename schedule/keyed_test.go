package schedule

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/memory"
	"github.com/numerus-closus/numerus/typed"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keyedLimiter returns a limiter of the policy text on a memory store of the bubble's clock.
func keyedLimiter(t *testing.T, store keyed.Store, text string) keyed.Limiter[string] {
	t.Helper()
	sp, err := typed.Parse(text)
	require.NoError(t, err)
	l, err := keyed.New(store, sp, keyed.StringKey{})
	require.NoError(t, err)
	return l
}

func TestAcquireSleepsOutEachRefusal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := keyedLimiter(t, memory.New(), "gcra 2/s burst 1")
		var at []time.Duration
		for range 4 {
			d, err := Acquire(t.Context(), l, "a", 1)
			require.NoError(t, err)
			require.True(t, d.Allowed)
			at = append(at, elapsed())
		}
		assert.Equal(t, []time.Duration{0, 500 * time.Millisecond, time.Second, 1500 * time.Millisecond}, at)
		d, err := Acquire(t.Context(), l, "b", 1)
		require.NoError(t, err)
		assert.True(t, d.Allowed, "another subject has its own limit")
		assert.Equal(t, 1500*time.Millisecond, elapsed())
	})
}

// TestAcquireManyWaiters: goroutines sharing one subject are admitted no faster than the policy,
// all of them in the end, and none outlives its call (synctest.Test waits for every goroutine).
func TestAcquireManyWaiters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := keyedLimiter(t, memory.New(), "gcra 10/s burst 5")
		var mu sync.Mutex
		var at []time.Duration
		var wg sync.WaitGroup
		for range 25 {
			wg.Go(func() {
				d, err := Acquire(t.Context(), l, "shared", 1)
				assert.NoError(t, err)
				assert.True(t, d.Allowed)
				mu.Lock()
				at = append(at, elapsed())
				mu.Unlock()
			})
		}
		wg.Wait()
		require.Len(t, at, 25)
		for i, a := range at { // by a, at most 5 + 10·a admitted
			n := 0
			for _, b := range at {
				if b <= a {
					n++
				}
			}
			require.LessOrEqual(t, n, 5+int(a*10/time.Second), "admission %d at %v", i, a)
		}
		assert.Equal(t, 2*time.Second, elapsed(), "the 25th token comes at 2s")
	})
}

func TestAcquireReturnsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		finite := keyedLimiter(t, memory.New(), "finite 1")
		_, err := Acquire(ctx, finite, "a", 1)
		require.NoError(t, err)
		d, err := Acquire(ctx, finite, "a", 1)
		require.ErrorIs(t, err, ErrNever)
		assert.True(t, d.RetryAfter.IsNever())

		slow := keyedLimiter(t, memory.New(), "gcra 1/s burst 1")
		_, err = Acquire(ctx, slow, "a", 1)
		require.NoError(t, err)
		short, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		defer cancel()
		_, err = Acquire(short, slow, "a", 1)
		var late *DeadlineError
		require.ErrorAs(t, err, &late)
		assert.True(t, bubbleStart.Add(time.Second).Equal(late.At), "%v", late.At)
		require.ErrorIs(t, err, context.DeadlineExceeded)

		_, err = Acquire(ctx, slow, "a", 0)
		require.ErrorIs(t, err, numerus.ErrInvalidArgument)
		require.NotErrorIs(t, err, ErrNever, "a cost below 1 is invalid, not never admitted")
		_, err = Acquire(ctx, slow, "a", 2) // above the capacity: never, as Wait and Take say
		require.ErrorIs(t, err, ErrNever)
		require.ErrorIs(t, err, numerus.ErrInvalidArgument)
		_, err = Acquire(ctx, keyedLimiter(t, failing{}, "1/s"), "a", 1)
		require.ErrorIs(t, err, errDown)
		done, stop := context.WithCancel(ctx)
		stop()
		_, err = Acquire(done, slow, "b", 1)
		require.ErrorIs(t, err, context.Canceled)
		_, err = Acquire(ctx, keyedLimiter(t, faulty{}, "1/s"), "a", 1)
		require.ErrorIs(t, err, ErrNever, "a refusal with no wait is not spun on")
		assert.Zero(t, elapsed(), "nothing above slept")
	})
}

// TestAcquireCancelledWhileSleeping: a cancelled wait returns ctx.Err() when it is cancelled and
// takes nothing.
func TestAcquireCancelledWhileSleeping(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := keyedLimiter(t, memory.New(), "gcra 1/s burst 1")
		_, err := Acquire(t.Context(), l, "a", 1)
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(300*time.Millisecond, cancel)
		_, err = Acquire(ctx, l, "a", 1)
		require.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, 300*time.Millisecond, elapsed())
		time.Sleep(700 * time.Millisecond)
		d, err := l.TryAcquire(t.Context(), "a", 1)
		require.NoError(t, err)
		assert.True(t, d.Allowed, "the cancelled wait took nothing")
	})
}

var errDown = errors.New("store down")

// failing is a store whose backend is down.
type failing struct{}

func (failing) Acquire(context.Context, keyed.Request) (keyed.Decision, error) {
	return keyed.Decision{}, errDown
}
func (failing) Peek(context.Context, keyed.Request) (keyed.Decision, error) {
	return keyed.Decision{}, errDown
}
func (failing) Reset(context.Context, keyed.Request) error { return errDown }

// faulty is a store that refuses with no wait, which no lawful store does.
type faulty struct{ failing }

func (faulty) Acquire(context.Context, keyed.Request) (keyed.Decision, error) {
	return keyed.Decision{RetryAfter: keyed.DurationOf(0)}, nil
}

// TestAcquireZeroLimiterIsNotNever: the zero keyed Limiter's error is not a cost above the
// capacity, so it does not match ErrNever.
func TestAcquireZeroLimiterIsNotNever(t *testing.T) {
	_, err := Acquire(context.Background(), keyed.Limiter[string]{}, "a", 1)
	require.ErrorIs(t, err, numerus.ErrInvalidArgument)
	require.NotErrorIs(t, err, ErrNever)
}
