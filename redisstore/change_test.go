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
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// step is one check in a policy-change table: at t0+at, under policy, cost tokens (0 = Peek).
type step struct {
	at            time.Duration
	policy        redisstore.Policy
	cost          int64
	wantAllowed   bool
	wantRemaining int64
}

func runSteps(t *testing.T, c redis.UniversalClient, subject string, steps []step) {
	t.Helper()
	clk := newClock(t0)
	s := store(t, c, clk, redisstore.WithMinTTL(time.Hour))
	ctx := context.Background()
	for i, st := range steps {
		clk.set(t0.Add(st.at))
		var d redisstore.Decision
		var err error
		if st.cost == 0 {
			d, err = s.Peek(ctx, st.policy, subject)
		} else {
			d, err = s.Acquire(ctx, st.policy, subject, st.cost)
		}
		require.NoError(t, err, "step %d", i)
		require.Equal(t, st.wantAllowed, d.Allowed, "step %d: %s at +%v cost %d", i, st.policy, st.at, st.cost)
		require.Equal(t, st.wantRemaining, d.Remaining, "step %d: %s at +%v cost %d", i, st.policy, st.at, st.cost)
	}
}

func TestPolicyChange(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	hourly := func(burst int64) redisstore.Policy {
		return numerus.Must(redisstore.GCRA(numerus.PerHour(1), burst))
	}
	window := func(n int64) redisstore.Policy {
		return numerus.Must(redisstore.FixedWindow(time.Hour, n, t0))
	}
	log := numerus.Must(redisstore.SlidingWindow(time.Second, 5))
	thirds := numerus.Must(redisstore.GCRA(numerus.PerSecond(3), 3))

	t.Run("bucket: the lesser of tokens and capacity, never refilled", func(t *testing.T) {
		runSteps(t, c, "bucket", []step{
			{0, hourly(10), 7, true, 3},
			{0, hourly(5), 0, true, 3}, // a peek converts in memory only
			{0, hourly(10), 0, true, 3},
			{0, hourly(2), 0, true, 2},
			{0, hourly(5), 1, true, 2}, // the stored state is still burst 10's: min(3, 5) - 1
			{0, hourly(10), 0, true, 2},
			{0, hourly(10), 1, true, 1},
			{0, hourly(10), 0, true, 1}, // re-applying the same policy changes nothing
			{0, hourly(1), 0, true, 1},
			{0, hourly(10), 1, true, 0},
			{0, hourly(10), 1, false, 0},
		})
	})

	t.Run("window: remaining carried, count capped at the new limit", func(t *testing.T) {
		runSteps(t, c, "window", []step{
			{0, window(10), 3, true, 7},
			{0, window(5), 1, true, 4},
			{0, window(10), 0, true, 4}, // no refill from a larger limit
			{0, window(2), 2, true, 0},
			{0, window(10), 1, false, 0},
			{time.Hour, window(10), 1, true, 9}, // the next window starts from full
		})
	})

	t.Run("a change of shape carries the tree's remaining", func(t *testing.T) {
		runSteps(t, c, "shape", []step{
			{0, hourly(10), 4, true, 6},
			{0, numerus.Must(redisstore.AllOf(hourly(10), window(3))), 0, true, 3},
			{0, numerus.Must(redisstore.AllOf(hourly(10), window(8))), 1, true, 5},
			{0, hourly(10), 0, true, 5},
		})
	})

	t.Run("an identical leaf keeps its exact state", func(t *testing.T) {
		// thirds is spent at +0 and its tokens come back at +333.33ms and +666.67ms. Had the
		// change at +400ms rebuilt it from its whole remaining token, the second would come at
		// +1066.67ms - 333.33ms·2 instead.
		runSteps(t, c, "identical", []step{
			{0, numerus.Must(redisstore.AllOf(thirds, window(100))), 3, true, 0},
			{400 * time.Millisecond, numerus.Must(redisstore.AllOf(thirds, window(50))), 0, true, 1},
			{667 * time.Millisecond, numerus.Must(redisstore.AllOf(thirds, window(50))), 0, true, 2},
		})
	})

	t.Run("an identical log keeps its entries through a rewrite", func(t *testing.T) {
		runSteps(t, c, "log", []step{
			{0, numerus.Must(redisstore.AllOf(log, hourly(100))), 1, true, 4},
			{100 * time.Millisecond, numerus.Must(redisstore.AllOf(log, hourly(100))), 2, true, 2},
			{200 * time.Millisecond, numerus.Must(redisstore.AllOf(log, hourly(100))), 1, true, 1},
			{300 * time.Millisecond, numerus.Must(redisstore.AllOf(log, hourly(50))), 1, true, 0},
			{time.Second, numerus.Must(redisstore.AllOf(log, hourly(50))), 0, true, 1},
			{1100 * time.Millisecond, numerus.Must(redisstore.AllOf(log, hourly(50))), 0, true, 3},
			{1300 * time.Millisecond, numerus.Must(redisstore.AllOf(log, hourly(50))), 0, true, 5},
		})
		key := store(t, c, nil).Key("log")
		fields, err := c.HKeys(context.Background(), key).Result()
		require.NoError(t, err)
		require.ElementsMatch(t, []string{"p", "1", "2", "1.0", "1.1", "1.2"}, fields)
	})

	t.Run("a log becomes one entry of what it used", func(t *testing.T) {
		runSteps(t, c, "log to log", []step{
			{0, log, 1, true, 4},
			{100 * time.Millisecond, log, 2, true, 2},
			{200 * time.Millisecond, numerus.Must(redisstore.SlidingWindow(2*time.Second, 4)), 0, true, 2},
			// The peek converted in memory only: the change is written by this acquisition, as one
			// entry of 2 at +300ms, merged with the token it takes.
			{300 * time.Millisecond, numerus.Must(redisstore.SlidingWindow(2*time.Second, 4)), 1, true, 1},
			{2299 * time.Millisecond, numerus.Must(redisstore.SlidingWindow(2*time.Second, 4)), 0, true, 1},
			{2300 * time.Millisecond, numerus.Must(redisstore.SlidingWindow(2*time.Second, 4)), 0, true, 4},
		})
	})
}

// TestPolicyChangeMintsNothing alternates, at one instant, between two random policies of up to
// three leaves, with acquisitions and peeks. Once the subject is written (its first admission),
// the balance an acquisition leaves never rises, and no decision reports more than it, so no
// sequence of changes hands out a token that was not left. (A peek writes nothing: under another
// policy it shows that policy's view of the stored state, and the stored policy's own view after.)
func TestPolicyChangeMintsNothing(t *testing.T) {
	srv := redistest.Start(t)
	s := store(t, srv.Client(t), newClock(t0), redisstore.WithMinTTL(time.Hour)) // time stands still
	ctx := context.Background()
	rapid.Check(t, func(rt *rapid.T) {
		ps := []redisstore.Policy{genPolicy(rt, 1).store, genPolicy(rt, 1).store}
		subject := "m" + strconv.FormatInt(subjects.Add(1), 10)
		last := int64(-1)
		for i := range rapid.IntRange(1, 30).Draw(rt, "steps") {
			p := ps[rapid.IntRange(0, 1).Draw(rt, "policy")]
			var d redisstore.Decision
			var err error
			cost := rapid.Int64Range(0, 4).Draw(rt, "cost")
			if cost == 0 {
				d, err = s.Peek(ctx, p, subject)
			} else {
				d, err = s.Acquire(ctx, p, subject, cost)
			}
			name := fmt.Sprintf("step %d under %s", i, p)
			if err != nil {
				rt.Fatalf("%s: %v", name, err)
			}
			if last >= 0 && d.Remaining > last {
				rt.Fatalf("%s: remaining rose from %d to %d", name, last, d.Remaining)
			}
			if cost > 0 && (last >= 0 || d.Allowed) {
				last = d.Remaining
			}
		}
	})
}
