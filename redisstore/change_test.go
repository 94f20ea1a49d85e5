package redisstore_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
	"github.com/numerus-closus/numerus/typed"
)

// step is one check in a policy-change table: at t0+at, under policy, cost tokens (0 = Peek).
type step struct {
	at            time.Duration
	policy        string
	cost          int64
	wantAllowed   bool
	wantRemaining int64
}

// runSteps runs the steps on one subject, in a namespace of the test's own, and returns the
// subject's key.
func runSteps(t *testing.T, c redis.UniversalClient, steps []step) string {
	t.Helper()
	clk := newClock(t0)
	s := redisstore.MustNew(c, redisstore.WithMinTTL(time.Hour))
	ctx := context.Background()
	var l keyed.Limiter[string]
	for i, st := range steps {
		clk.set(t0.Add(st.at))
		l = limiter(t, s, st.policy, clk)
		var d keyed.Decision
		var err error
		if st.cost == 0 {
			d, err = l.Peek(ctx, "s")
		} else {
			d, err = l.TryAcquire(ctx, "s", st.cost)
		}
		require.NoError(t, err, "step %d", i)
		require.Equal(t, st.wantAllowed, d.Allowed, "step %d: %s at +%v cost %d", i, st.policy, st.at, st.cost)
		require.Equal(t, st.wantRemaining, d.Remaining, "step %d: %s at +%v cost %d", i, st.policy, st.at, st.cost)
	}
	return redisstore.RedisKey(l.Key("s"))
}

// TestPolicyChange walks through the carry-over rules of typed.Policy.Continue (which the
// differential test checks at random against keyed's memory store).
func TestPolicyChange(t *testing.T) {
	c := redistest.Start(t).Client(t)
	hourly := func(burst int) string { return "gcra 1/h burst " + strconv.Itoa(burst) }
	window := func(n int) string { return "window " + strconv.Itoa(n) + "/h" }
	and := func(a, b string) string { return a + " & " + b }
	log, thirds := "sliding 5/s", "gcra 3/s burst 3"

	t.Run("bucket: the lesser of tokens and capacity, never refilled", func(t *testing.T) {
		runSteps(t, c, []step{
			{0, hourly(10), 7, true, 3},
			{0, hourly(5), 0, true, 3},  // 3 of 5: the Peek keeps it
			{0, hourly(10), 0, true, 3}, // no refill from a larger capacity
			{0, hourly(2), 0, true, 2},  // 2 of 2 is full: the Peek does not keep it
			{0, hourly(4), 0, true, 3},  // so burst 4 carries burst 10's 3, not 2
			{0, hourly(10), 0, true, 3}, // no refill from a larger capacity
			{0, hourly(2), 1, true, 1},  // min(3, 2) - 1
			{0, hourly(10), 0, true, 1},
			{0, hourly(10), 0, true, 1}, // re-applying the same policy changes nothing
			{0, "gcra 2/2h burst 10", 0, true, 1},
			{0, hourly(1), 0, true, 1},
			{0, hourly(10), 1, true, 0},
			{0, hourly(10), 1, false, 0},
		})
	})

	t.Run("window: the count carried, capped at the new limit", func(t *testing.T) {
		runSteps(t, c, []step{
			{0, window(10), 3, true, 7},
			{0, window(5), 1, true, 1},   // 3 counted of 5, then 1 more
			{0, window(10), 0, true, 1},  // no refill from a larger limit
			{0, window(2), 1, false, 0},  // 9 counted, over a limit of 2
			{0, window(10), 1, false, 0}, // the refusal kept the count it carried: 2 of 2
			{time.Hour, window(10), 1, true, 9},
		})
	})

	t.Run("a change of shape carries the most used leaf", func(t *testing.T) {
		runSteps(t, c, []step{
			{0, hourly(10), 4, true, 6},
			{0, and(hourly(10), window(8)), 1, true, 3},  // the gcra holds 6, the window 8-4
			{0, and(hourly(10), window(3)), 0, false, 0}, // the gcra kept, 5 counted in 3
			{0, hourly(10), 0, false, 0},                 // the least remaining
		})
	})

	// A key written when a burst left to its default was the count holds the burst it was
	// written under, as "gcra 10/h burst 10" writes it now: read under "gcra 10/h" (burst 1) it is
	// a policy change, carried over to the lesser of its tokens and 1, never above the capacity.
	t.Run("a burst written under the old default is carried over to the new one", func(t *testing.T) {
		for was, now := range map[string]string{"gcra 10/h burst 10": "gcra 10/h", "token 10/h burst 10": "token 10/h",
			"leaky 10/h burst 10": "leaky 10/h"} {
			t.Run(now, func(t *testing.T) {
				old, err := redisstore.Encoding(policy(was))
				require.NoError(t, err)
				require.Equal(t, string(was[0])+" 1 360000000 10", old, "what the old default wrote for %q", now)
				runSteps(t, c, []step{
					{0, was, 3, true, 7},
					{0, now, 0, true, 1}, // min(7, 1)
					{0, now, 1, true, 0},
					{0, now, 1, false, 0},
					{0, was, 0, false, 0}, // and back: no refill from a larger capacity
				})
			})
		}
		t.Run("tree", func(t *testing.T) {
			runSteps(t, c, []step{
				{0, and("gcra 10/h burst 10", window(5)), 2, true, 3},
				{0, and("gcra 10/h", window(5)), 1, true, 0}, // the gcra holds min(8, 1)
				{0, and("gcra 10/h", window(5)), 1, false, 0},
			})
		})
	})

	t.Run("a subject full again under its old policy starts afresh", func(t *testing.T) {
		runSteps(t, c, []step{
			{0, "gcra 1/s burst 2", 2, true, 0},
			{time.Second, "gcra 1/s burst 2", 0, true, 1},
			{2 * time.Second, hourly(10), 0, true, 10},
			{2 * time.Second, hourly(10), 10, true, 0},
		})
	})

	t.Run("the key's layout follows the policy", func(t *testing.T) {
		ctx := context.Background()
		s, clk := redisstore.MustNew(c, redisstore.WithMinTTL(time.Hour)), newClock(t0)
		plainL, treeL := limiter(t, s, hourly(10), clk), limiter(t, s, and(hourly(10), window(8)), clk)
		for i, step := range []struct {
			l         keyed.Limiter[string]
			layout    string
			remaining int64
		}{
			{plainL, "string", 9}, // a plain policy keeps a string
			{treeL, "hash", 6},    // a tree, a hash: the gcra holds 9, the window 8 less 1 used, less 1
			{plainL, "string", 5}, // back: the least remaining, 6, less 1
			{plainL, "string", 4},
		} {
			d, err := step.l.TryAcquire(ctx, "s", 1)
			require.NoError(t, err)
			require.True(t, d.Allowed, "step %d", i)
			require.Equal(t, step.remaining, d.Remaining, "step %d", i)
			require.Equal(t, step.layout, c.Type(ctx, redisstore.RedisKey(plainL.Key("s"))).Val(), "step %d", i)
		}
	})

	t.Run("an identical leaf keeps its exact state", func(t *testing.T) {
		// thirds is spent at +0 and its tokens come back at +333.33ms and +666.67ms. Had the
		// change at +400ms rebuilt it from its whole remaining token, the second would come at
		// +1066.67ms - 333.33ms·2 instead.
		runSteps(t, c, []step{
			{0, and(thirds, window(100)), 3, true, 0},
			{400 * time.Millisecond, and(thirds, window(50)), 0, true, 1},
			{667 * time.Millisecond, and(thirds, window(50)), 0, true, 2},
		})
	})

	t.Run("an identical log keeps its entries through a rewrite", func(t *testing.T) {
		key := runSteps(t, c, []step{
			{0, and(log, hourly(100)), 1, true, 4},
			{100 * time.Millisecond, and(log, hourly(100)), 2, true, 2},
			{200 * time.Millisecond, and(log, hourly(100)), 1, true, 1},
			{300 * time.Millisecond, and(log, hourly(50)), 1, true, 0},
			{time.Second, and(log, hourly(50)), 0, true, 1},
			{1100 * time.Millisecond, and(log, hourly(50)), 0, true, 3},
			{1300 * time.Millisecond, and(log, hourly(50)), 0, true, 5},
		})
		fields, err := c.HKeys(context.Background(), key).Result()
		require.NoError(t, err)
		require.ElementsMatch(t, []string{"p", "1", "2", "1.0", "1.1", "1.2"}, fields)
	})

	t.Run("a log becomes one entry of what it used", func(t *testing.T) {
		runSteps(t, c, []step{
			{0, log, 1, true, 4},
			{100 * time.Millisecond, log, 2, true, 2},
			// The Peek keeps what it carried: one entry of the 3 used, at +200ms.
			{200 * time.Millisecond, "sliding 4/2s", 0, true, 1},
			{300 * time.Millisecond, "sliding 4/2s", 1, true, 0},
			{2199 * time.Millisecond, "sliding 4/2s", 0, false, 0},
			{2200 * time.Millisecond, "sliding 4/2s", 0, true, 3},
			{2300 * time.Millisecond, "sliding 4/2s", 0, true, 4},
		})
	})
}

// TestPolicyChangeMintsNothing alternates, at one instant, between two random policies of up to
// three leaves, with acquisitions and peeks. Once the subject is written (its first admission),
// the balance an admission leaves never rises, and no decision reports more than the last one,
// so no sequence of changes hands out a token that was not left. (Refusals and peeks write the
// state they carried over, unless it is full: then they show the new policy's view of the stored
// state, and write nothing.)
func TestPolicyChangeMintsNothing(t *testing.T) {
	s := redisstore.MustNew(redistest.Start(t).Client(t), redisstore.WithMinTTL(time.Hour)) // time stands still
	ctx := context.Background()
	rapid.Check(t, func(rt *rapid.T) {
		ps := []typed.Policy{typed.MustCompile(genSpec(rt, 1).String()), typed.MustCompile(genSpec(rt, 1).String())}
		key := []byte("m" + strconv.FormatInt(subjects.Add(1), 10))
		last := int64(-1)
		for i := range rapid.IntRange(1, 30).Draw(rt, "steps") {
			p := ps[rapid.IntRange(0, 1).Draw(rt, "policy")]
			r := keyed.Request{Key: key, Policy: p, Cost: rapid.Int64Range(0, 4).Draw(rt, "cost"), At: t0}
			var d keyed.Decision
			var err error
			if r.Cost == 0 {
				d, err = s.Peek(ctx, r)
			} else {
				r.Cost = min(r.Cost, p.Status(p.Fresh(), t0).Limit)
				d, err = s.Acquire(ctx, r)
			}
			name := fmt.Sprintf("step %d under %s", i, p)
			if err != nil {
				rt.Fatalf("%s: %v", name, err)
			}
			if last >= 0 && d.Remaining > last {
				rt.Fatalf("%s: remaining rose from %d to %d", name, last, d.Remaining)
			}
			if r.Cost > 0 && d.Allowed {
				last = d.Remaining
			}
		}
	})
}

// TestChangeOfTwoGCRAsToOne: of two changed leaves that were GCRAs, only one still is: it
// continues from the most used old leaf, not from the GCRA at its place (typed.Policy.Continue:
// "both are the only changed leaves of their algorithm in their trees"), as in process.
func TestChangeOfTwoGCRAsToOne(t *testing.T) {
	s := redisstore.MustNew(redistest.Start(t).Client(t), redisstore.WithMinTTL(time.Hour))
	old := typed.MustCompile("gcra 10/h burst 10 | gcra 1/h burst 2")
	next := typed.MustCompile("gcra 10/h burst 9 | token 1/h burst 2")
	requireLikeMemory(t, s, "kinds", []check{{old, 0, 2}, {next, 0, 0}, {next, 0, 1}})
}

// TestChangeOfOneGCRAToTwo, the converse: of two changed leaves, one was a GCRA and both now
// are. The GCRA at its place is not the only changed GCRA of the new tree, so it continues from
// the most used old leaf too, as in process.
func TestChangeOfOneGCRAToTwo(t *testing.T) {
	s := redisstore.MustNew(redistest.Start(t).Client(t), redisstore.WithMinTTL(time.Hour))
	old := typed.MustCompile("gcra 10/h burst 10 | token 1/h burst 2")
	next := typed.MustCompile("gcra 10/h burst 9 | gcra 1/h burst 2")
	requireLikeMemory(t, s, "kinds", []check{{old, 0, 2}, {next, 0, 0}, {next, 0, 1}})
}
