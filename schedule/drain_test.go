package schedule

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jobLog records the jobs a drain ran and the instants their tokens were charged at, which in a
// bubble are the instants they ran at (time stands still while goroutines run).
type jobLog struct {
	mu   sync.Mutex
	jobs []int
	at   []time.Duration
}

func (r *jobLog) do(fail func(int) bool) func(context.Context, int, time.Time) error {
	return func(_ context.Context, j int, at time.Time) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		if !at.Equal(time.Now()) {
			return fmt.Errorf("job %d charged at %v, run at %v", j, at, time.Now())
		}
		r.jobs = append(r.jobs, j)
		r.at = append(r.at, at.Sub(bubbleStart))
		if fail != nil && fail(j) {
			return fmt.Errorf("job %d failed", j)
		}
		return nil
	}
}

func succeed(int) bool { return false }

func TestDrainRunsJobsAtThePlannersInstants(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := gcra(t, numerus.PerSecond(4), 2)
		var want []time.Duration
		for at := range numerus.Admissions(l, bubbleStart, 1) {
			if want = append(want, at.Sub(bubbleStart)); len(want) == 7 {
				break
			}
		}
		var r jobLog
		require.NoError(t, Drain(t.Context(), NewGate(l), slices.Values([]int{0, 1, 2, 3, 4, 5, 6}), r.do(nil)))
		assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6}, r.jobs)
		assert.Equal(t, want, r.at)
		assert.Equal(t, []time.Duration{0, 0, 250 * time.Millisecond, 500 * time.Millisecond}, r.at[:4])
	})
}

func TestDrainStopsAtTheFirstError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := NewGate(gcra(t, numerus.PerSecond(10), 1))
		var r jobLog
		err := Drain(t.Context(), g, slices.Values([]int{0, 1, 2, 3}), r.do(func(j int) bool { return j == 1 }))
		require.EqualError(t, err, "job 1 failed", "the job's error, as it is")
		assert.Equal(t, []int{0, 1}, r.jobs)
		from, _ := g.TryTake(1)
		assert.True(t, from.Equal(numerus.DebitableFrom(bubbleStart.Add(200*time.Millisecond))), "the failed job consumed its token: %v", from)
	})
}

func TestDrainContinueOnErrorJoinsThemAll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var r jobLog
		err := Drain(t.Context(), NewGate(numerus.AlwaysAllow()), slices.Values([]int{0, 1, 2, 3, 4}),
			r.do(func(j int) bool { return j%2 == 1 }), ContinueOnError())
		require.EqualError(t, err, "job 1 failed\njob 3 failed")
		assert.Equal(t, []int{0, 1, 2, 3, 4}, r.jobs)

		err = Drain(t.Context(), NewGate(numerus.AlwaysAllow()), slices.Values([]int{0}), r.do(succeed), ContinueOnError())
		require.NoError(t, err)
	})
}

func TestDrainStopsWhenATakeFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var r jobLog
		g := NewGate(numerus.Must(numerus.FiniteBucket(2)))
		err := Drain(t.Context(), g, slices.Values([]int{0, 1, 2, 3}), r.do(func(j int) bool { return j == 0 }), ContinueOnError())
		require.ErrorIs(t, err, ErrNever)
		assert.ErrorContains(t, err, "job 0 failed")
		assert.Equal(t, []int{0, 1}, r.jobs)

		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(time.Second+time.Millisecond, cancel)
		r = jobLog{}
		g = NewGate(gcra(t, numerus.PerSecond(1), 1))
		err = Drain(ctx, g, slices.Values([]int{0, 1, 2, 3}), r.do(succeed))
		require.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, []int{0, 1}, r.jobs)
		assert.Equal(t, time.Second+time.Millisecond, elapsed(), "it stopped when cancelled")
		_, ok := g.TryTake(1)
		assert.False(t, ok)
		from, _ := g.TryTake(1)
		assert.True(t, from.Equal(numerus.DebitableFrom(bubbleStart.Add(2*time.Second))), "the cancelled take consumed nothing")
	})
}

func TestDrainChan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		jobs := make(chan int)
		go func() {
			defer close(jobs)
			for j := range 5 {
				jobs <- j
			}
		}()
		var r jobLog
		require.NoError(t, DrainChan(t.Context(), NewGate(gcra(t, numerus.PerSecond(10), 1)), jobs, r.do(nil)))
		assert.Equal(t, []int{0, 1, 2, 3, 4}, r.jobs)
		assert.Equal(t, 400*time.Millisecond, r.at[4])
	})
}

func TestDrainChanStopsWhenCancelledWhileIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		jobs := make(chan int, 1)
		jobs <- 7
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(time.Minute, cancel)
		var r jobLog
		err := DrainChan(ctx, NewGate(numerus.AlwaysAllow()), jobs, r.do(func(int) bool { return true }), ContinueOnError())
		require.ErrorIs(t, err, context.Canceled)
		assert.ErrorContains(t, err, "job 7 failed")
		assert.Equal(t, time.Minute, elapsed())
	})
}

// Workers draining one channel through one gate share its pace: the pool runs at the policy's
// rate, not at the rate times the workers.
func TestDrainChanWorkersShareTheGate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		jobs := make(chan int)
		go func() {
			defer close(jobs)
			for j := range 40 {
				jobs <- j
			}
		}()
		g := NewGate(gcra(t, numerus.PerSecond(10), 5))
		var r jobLog
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() { assert.NoError(t, DrainChan(t.Context(), g, jobs, r.do(nil))) })
		}
		wg.Wait()
		slices.Sort(r.jobs)
		assert.Equal(t, 40, len(r.jobs))
		assert.Equal(t, 3500*time.Millisecond, slices.Max(r.at), "5 at once, then 35 at 10/s")
	})
}

func TestDrainErrorPolicyIsPerCall(t *testing.T) {
	var errs []error
	for _, opts := range [][]Option{nil, {ContinueOnError()}} {
		err := Drain(context.Background(), NewGate(numerus.AlwaysAllow()), slices.Values([]int{1, 2}),
			func(context.Context, int, time.Time) error { return errors.New("x") }, opts...)
		errs = append(errs, err)
	}
	assert.EqualError(t, errs[0], "x")
	assert.EqualError(t, errs[1], "x\nx")
}

// TestContinueOnErrorOneError: with ContinueOnError, a drain in which one job fails returns that
// job's error as it is, as the option says.
func TestContinueOnErrorOneError(t *testing.T) {
	errX := errors.New("x")
	err := Drain(context.Background(), NewGate(numerus.AlwaysAllow()), slices.Values([]int{1, 2}),
		func(_ context.Context, j int, _ time.Time) error {
			if j == 1 {
				return errX
			}
			return nil
		}, ContinueOnError())
	require.Same(t, errX, err)
}
