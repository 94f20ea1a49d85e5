package redisstore_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
	"github.com/numerus-closus/numerus/typed"
	"github.com/redis/go-redis/v9"
)

// TestServerRestart kills the server mid-run: every call fails with an error that wraps the
// network cause (never a decision, never a panic), batches and pipelines included; once the server
// is back (empty, without the script), the next call works.
func TestServerRestart(t *testing.T) {
	srv := redistest.Spawn(t)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr, MaxRetries: -1, DialerRetries: 1, DialTimeout: time.Second, ContextTimeoutEnabled: true})
	defer c.Close()
	s := redisstore.MustNew(c)
	l := limiter(t, s, eachKind[0], newClock(t0))
	ctx := context.Background()
	d, err := l.TryAcquire(ctx, "alice", 1)
	require.NoError(t, err)
	require.True(t, d.Allowed)

	srv.Kill(t)
	for range 3 {
		d, err = l.TryAcquire(ctx, "alice", 1)
		requireNetError(t, err)
		require.Equal(t, keyed.Decision{}, d)
		_, err = l.Peek(ctx, "alice")
		requireNetError(t, err)
		requireNetError(t, l.Reset(ctx, "alice"))
		ds, err := s.AcquireBatch(ctx, requests(l, 1, "a", "b"))
		requireNetError(t, err)
		require.Equal(t, []keyed.Decision{{}, {}}, ds)
		pipe := c.Pipeline()
		pd := s.QueueAcquire(ctx, pipe, requests(l, 1, "a")[0])
		_, err = pipe.Exec(ctx)
		requireNetError(t, err)
		_, err = pd.Decision(ctx)
		requireNetError(t, err)
	}

	srv.Restart(t)
	d, err = l.TryAcquire(ctx, "alice", 1)
	require.NoError(t, err)
	require.True(t, d.Allowed)
	require.Equal(t, int64(2), d.Remaining, "the restarted server is empty")
}

func requireNetError(t *testing.T, err error) {
	t.Helper()
	var ne net.Error
	require.Error(t, err)
	require.True(t, errors.As(err, &ne) || errors.Is(err, io.EOF), "want a network cause, got %v", err)
	require.NotErrorIs(t, err, redisstore.ErrCorrupt)
}

// TestDeadline: a context that is done fails the call with an error wrapping its cause.
func TestDeadline(t *testing.T) {
	l := limiter(t, redisstore.MustNew(redistest.Start(t).Client(t)), eachKind[0], newClock(t0))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := l.TryAcquire(ctx, "alice", 1)
	require.ErrorIs(t, err, context.Canceled)
	ctx, cancel = context.WithDeadline(context.Background(), t0)
	defer cancel()
	_, err = l.Peek(ctx, "alice")
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

// packed returns numbers as the script stores them: little-endian doubles.
func packed(nums ...float64) string {
	b := make([]byte, 0, 8*len(nums))
	for _, n := range nums {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(n))
	}
	return string(b)
}

// plain returns the string the script keeps for a plain policy: its encoding, a zero byte, and the
// state.
func plain(t *testing.T, policy string, nums ...float64) string {
	t.Helper()
	enc, err := redisstore.Encoding(typed.MustCompile(policy))
	require.NoError(t, err)
	return enc + "\x00" + packed(nums...)
}

// TestCorruptState damages keys in every way the script checks, in both layouts (a string for a
// plain policy, a hash for the others): each check then fails with ErrCorrupt and grants nothing,
// and Reset makes the subject usable again.
func TestCorruptState(t *testing.T) {
	srv := redistest.Start(t)
	c, clk := srv.Client(t), newClock(t0)
	s := redisstore.MustNew(c, redisstore.WithMinTTL(time.Hour))
	ctx := context.Background()
	gcra, token, window, tree, log := eachKind[0], eachKind[1], eachKind[4], eachKind[0]+" & "+eachKind[4], "sliding 10/h"
	now := float64(t0.UnixMicro())
	set := func(v string) func(string) error {
		return func(k string) error { return c.Set(ctx, k, v, 0).Err() }
	}
	for _, tc := range []struct {
		name   string
		policy string
		damage func(key string) error
	}{
		{"list", gcra, func(k string) error { c.Del(ctx, k); return c.RPush(ctx, k, "x").Err() }},
		{"list under a tree", tree, func(k string) error { c.Del(ctx, k); return c.RPush(ctx, k, "x").Err() }},
		{"a string without policy", gcra, set("x")},
		{"a string under a tree", tree, set("x")},
		{"unreadable policy", gcra, set("z9\x00" + packed(0, 0, 0))},
		{"state too short", gcra, set(plain(t, gcra, 0, 0))},
		{"not a number", gcra, set(plain(t, gcra, math.NaN(), 0, now))},
		{"infinite", gcra, set(plain(t, gcra, math.Inf(1), 0, now))},
		{"fraction", gcra, set(plain(t, gcra, now+1.5, 0, now))},
		{"tokens above capacity", token, set(plain(t, token, 4e6, now))},
		{"negative tokens", token, set(plain(t, token, -1, now))},
		{"count above limit", window, set(plain(t, window, now, 0, 4, now))},
		{"negative instant", gcra, set(plain(t, gcra, 0, 0, -5))},
		{"instant beyond 2^53", gcra, set(plain(t, gcra, 0, 0, 1e17))},
		// past 2^52 µs, the latest the store writes, sums of instants stop being exact: a TAT there
		// would never move on, and admit every check
		{"latest instant past 2^52", gcra, set(plain(t, gcra, 0, 0, 1<<53-1))},
		{"a token bucket's latest instant past 2^52", token, set(plain(t, token, 0, 1<<53-1))},
		{"a leaky bucket's latest instant past 2^52", eachKind[2], set(plain(t, eachKind[2], 0, 1<<53-1))},
		{"a window's latest instant past 2^52", window, set(plain(t, window, 0, 0, 0, 1<<53-1))},
		{"a counter's latest instant past 2^52", eachKind[5], set(plain(t, eachKind[5], 0, 0, 0, 1<<53-1))},
		{"a leaf's latest instant past 2^52", tree, func(k string) error { return c.HSet(ctx, k, "1", packed(0, 0, 1<<53-1)).Err() }},
		{"TAT beyond its burst", gcra, set(plain(t, gcra, now+1e8, 0, now))},
		{"state beyond the old policy", gcra, set(plain(t, "gcra 10/s burst 1", now+3e5, 0, now))},
		{"no policy field", tree, func(k string) error { return c.HDel(ctx, k, "p").Err() }},
		{"unreadable policy in a hash", tree, func(k string) error { return c.HSet(ctx, k, "p", "z9").Err() }},
		{"missing leaf", tree, func(k string) error { return c.HDel(ctx, k, "2").Err() }},
		{"leaf state not numbers", tree, func(k string) error { return c.HSet(ctx, k, "1", "abc 0 0").Err() }},
		{"log entry missing", log, func(k string) error { return c.HDel(ctx, k, "1.0").Err() }},
		{"a log's string", log, set(plain(t, log, 0, 3, 0, now, now, 3))}, // logs are kept in hashes only
		{"a tree's string", tree, set(plain(t, tree, now, 0, now))},
		{"another log's string", log, set(plain(t, "sliding 20/h", 0, 3, 0, now, now, 3))},
		{"a log's string under a gcra", gcra, set(plain(t, "sliding 20/h", 0, 3, 0, now, now, 3))},
		{"log count above limit", log, func(k string) error {
			return c.HSet(ctx, k, "1", packed(0, 3, 0, now+2, now+2, 99)).Err()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := limiter(t, s, tc.policy, clk)
			for i := range 3 { // three instants: a log holds two entry fields and its newest
				clk.set(t0.Add(time.Duration(i) * time.Microsecond))
				_, err := l.TryAcquire(ctx, tc.name, 1)
				require.NoError(t, err)
			}
			clk.set(t0.Add(3 * time.Microsecond))
			require.NoError(t, tc.damage(redisstore.RedisKey(l.Key(tc.name))))
			d, err := l.TryAcquire(ctx, tc.name, 1)
			require.ErrorIs(t, err, redisstore.ErrCorrupt)
			require.Equal(t, keyed.Decision{}, d)
			_, err = l.Peek(ctx, tc.name)
			require.ErrorIs(t, err, redisstore.ErrCorrupt)
			reqs := requests(l, 1, tc.name)
			reqs[0].At = clk.now()
			_, err = s.AcquireBatch(ctx, reqs)
			require.ErrorIs(t, err, redisstore.ErrCorrupt)
			require.NoError(t, l.Reset(ctx, tc.name))
			d, err = l.TryAcquire(ctx, tc.name, 1)
			require.NoError(t, err)
			require.True(t, d.Allowed)
		})
	}
}

// TestCorruptWindowStart: a window's (or counter's) state whose window start is off the policy's
// grid, or after the latest instant it admitted, cannot have been written by the script. The fast
// path must not decide on it (it would see the window as stale, and grant a fresh one): the check
// fails with ErrCorrupt, alone and in a batch, and grants nothing.
func TestCorruptWindowStart(t *testing.T) {
	srv := redistest.Start(t)
	c, clk := srv.Client(t), newClock(t0)
	s := redisstore.MustNew(c, redisstore.WithMinTTL(time.Hour))
	ctx := context.Background()
	now := float64(t0.UnixMicro()) // on the grid of 1s windows
	for _, tc := range []struct {
		name, policy string
		state        []float64 // start, prev, cur, last
	}{
		{"window off the grid", "window 3/s", []float64{now - 1, 0, 3, now}},
		{"window after last", "window 3/s", []float64{now + 1e6, 0, 3, now}},
		{"counter off the grid", "count 3/s", []float64{now - 1, 3, 3, now}},
		{"counter after last", "count 3/s", []float64{now + 1e6, 3, 3, now}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			requireCorrupt(t, s, limiter(t, s, tc.policy, clk), "s", func(k string) error {
				return c.Set(ctx, k, plain(t, tc.policy, tc.state...), 0).Err()
			})
		})
	}
}

// TestCorruptEntriesAndRemainders: damage the script checks for that TestCorruptState cannot
// reach: a log entry counting more than the log's running count (read once the oldest entry
// expires: it would make the count negative, and admit past the limit), and a GCRA remainder of
// N or more, in a string (the plain path) and in a hash (the engine).
func TestCorruptEntriesAndRemainders(t *testing.T) {
	c, clk := redistest.Start(t).Client(t), newClock(t0)
	s := redisstore.MustNew(c, redisstore.WithMinTTL(time.Hour))
	ctx := context.Background()
	now := float64(t0.UnixMicro())
	for _, tc := range []struct {
		name, policy string
		damage       func(k string) error
	}{
		{"log entry counting more than the log", "sliding 3/h", func(k string) error {
			return c.HSet(ctx, k, "1.0", packed(0, 99)).Err()
		}},
		{"gcra remainder of N", "gcra 3/s burst 3", func(k string) error {
			return c.Set(ctx, k, plain(t, "gcra 3/s burst 3", now, 1e6, now), 0).Err()
		}},
		{"gcra remainder of N in a tree", "gcra 3/s burst 3 & window 9/h", func(k string) error {
			return c.HSet(ctx, k, "1", packed(now, 1e6, now)).Err()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := limiter(t, s, tc.policy, clk)
			for i := range 3 {
				clk.set(t0.Add(time.Duration(i) * time.Microsecond))
				_, err := l.TryAcquire(ctx, tc.name, 1)
				require.NoError(t, err)
			}
			clk.set(t0.Add(time.Hour)) // the log's oldest entry has just expired
			require.NoError(t, tc.damage(redisstore.RedisKey(l.Key(tc.name))))
			d, err := l.TryAcquire(ctx, tc.name, 1)
			require.ErrorIs(t, err, redisstore.ErrCorrupt)
			require.Equal(t, keyed.Decision{}, d)
		})
	}
}

// TestCorruptOnePastTheBounds: states one step past what the script can write — a GCRA
// remainder of exactly N, a TAT one µs or one 1/N µs past its burst, a token bucket one unit
// over its capacity, a finite bucket one token over its size, a fixed window with a previous
// count, a state with a byte too many, a log whose newest entry, or an older one, lies after
// its latest instant or whose tail lies before its head — fail with ErrCorrupt in a string (the
// plain path) and in a tree's hash (the engine), and grant nothing. The finite bucket
// would otherwise hand out a token more than its size, for good.
func TestCorruptOnePastTheBounds(t *testing.T) {
	c, clk := redistest.Start(t).Client(t), newClock(t0)
	s := redisstore.MustNew(c, redisstore.WithMinTTL(time.Hour))
	ctx := context.Background()
	now := float64(t0.UnixMicro())                  // on the grid of 1s windows
	gcra, lq := "gcra 3/s burst 1", float64(333333) // 3 per 10^6 µs: the TAT runs 333333 + 1/3 µs ahead at most
	for _, tc := range []struct {
		name, policy string
		state        string // the leaf's state, as the script packs it
	}{
		{"gcra remainder of exactly N", gcra, packed(now, 3, now)},
		{"gcra TAT one µs past its burst", gcra, packed(now+lq+1, 0, now)},
		{"gcra TAT 1/N µs past its burst", gcra, packed(now+lq, 2, now)},
		{"tokens one unit above capacity", "token 10/s burst 3", packed(3e5+1, now)},
		{"finite bucket one above its size", "finite 3", packed(4)},
		{"fixed window with a previous count", "window 3/s", packed(now, 1, 0, now)},
		{"a byte too many", gcra, packed(now, 0, now) + "x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree := tc.policy + " & " + tc.policy
			enc, err := redisstore.Encoding(typed.MustCompile(tc.policy))
			require.NoError(t, err)
			encTree, err := redisstore.Encoding(typed.MustCompile(tree))
			require.NoError(t, err)
			requireCorrupt(t, s, limiter(t, s, tc.policy, clk), "plain", func(k string) error {
				return c.Set(ctx, k, enc+"\x00"+tc.state, 0).Err()
			})
			requireCorrupt(t, s, limiter(t, s, tree, clk), "tree", func(k string) error {
				return c.HSet(ctx, k, "p", encTree, "1", tc.state, "2", tc.state).Err()
			})
		})
	}
	for _, tc := range []struct {
		name  string
		state []string // the hash's fields and values, but p
	}{
		{"log's newest entry after its latest instant", []string{"1", packed(0, 1, 0, now, now+1, 1)}},
		{"log's tail before its head", []string{"1", packed(1, 0, 0, now, now-1e6, 1)}}, // its entries expired: none read
		{"log entry after the newest", []string{"1", packed(0, 2, 0, now, now, 2), "1.0", packed(now+1, 1)}},
		{"log entry with a byte too many", []string{"1", packed(0, 2, 0, now, now, 2), "1.0", packed(now, 1) + "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			enc, err := redisstore.Encoding(typed.MustCompile("sliding 3/s"))
			require.NoError(t, err)
			requireCorrupt(t, s, limiter(t, s, "sliding 3/s", clk), "log", func(k string) error {
				return c.HSet(ctx, k, append([]string{"p", enc}, tc.state...)).Err()
			})
		})
	}
}

// requireCorrupt damages the key of subject under l and requires an acquire, a Peek and a batch
// of it to fail with ErrCorrupt, granting nothing.
func requireCorrupt(t *testing.T, s *redisstore.Store, l keyed.Limiter[string], subject string, damage func(key string) error) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, damage(redisstore.RedisKey(l.Key(subject))))
	d, err := l.TryAcquire(ctx, subject, 1)
	require.ErrorIs(t, err, redisstore.ErrCorrupt)
	require.Equal(t, keyed.Decision{}, d)
	_, err = l.Peek(ctx, subject)
	require.ErrorIs(t, err, redisstore.ErrCorrupt)
	_, err = s.AcquireBatch(ctx, requests(l, 1, subject))
	require.ErrorIs(t, err, redisstore.ErrCorrupt)
}

// TestCorruptPolicyOnePastTheBounds: a key whose stored policy lies one step past what the script
// accepts — a window's origin at its width, a bucket whose capacity and rate pass 2^53, a counter
// whose limit·width does, a sub-window that does not divide its window, a tree nested 33 deep or
// of 1001 children, a token left over — holding states that are valid for it, is corrupt: a check
// under another policy, which would carry the subject over from it, fails with ErrCorrupt.
func TestCorruptPolicyOnePastTheBounds(t *testing.T) {
	c, clk := redistest.Start(t).Client(t), newClock(t0)
	s := redisstore.MustNew(c, redisstore.WithMinTTL(time.Hour))
	ctx := context.Background()
	now := float64(t0.UnixMicro())
	kids := []string{"& 1001"}
	for range 1001 {
		kids = append(kids, "f 3")
	}
	for _, tc := range []struct {
		name, policy string
		states       []string // the state of each leaf
	}{
		{"window origin at its width", "w 10 3 10", []string{packed(0, 0, 0, now)}},
		{"bucket past 2^53", "g 2 4503599627370496 2", []string{packed(0, 0, now)}},
		{"counter past 2^53", "c 4 2251799813685249 0", []string{packed(0, 0, 0, now)}},
		{"sub-window not dividing its window", "b 10 3 3", []string{packed(0, 0, 0, now, 0, 0)}},
		{"33 levels", strings.Repeat("& 1 ", 33) + "f 3", []string{packed(3)}},
		{"1001 children", strings.Join(kids, " "), slices.Repeat([]string{packed(3)}, 1001)},
		{"a token left over", "f 3 3", []string{packed(3)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			requireCorrupt(t, s, limiter(t, s, "finite 5", clk), "s", func(k string) error {
				fields := []string{"p", tc.policy}
				for i, st := range tc.states {
					fields = append(fields, strconv.Itoa(i+1), st)
				}
				return c.HSet(ctx, k, fields).Err()
			})
		})
	}
}

// TestForeignKeyIsCorrupt: a hash at a subject's key that the store did not write (HSET key
// owner x balance 42) is corrupt under every policy, in single checks, peeks and batches: the
// check fails with ErrCorrupt, and the hash is left as it was, with no field of the store's mixed
// in and no TTL set. (It was taken for a fresh subject: admitted, and overwritten or mixed into.)
// In a batch the other subjects are decided as ever.
func TestForeignKeyIsCorrupt(t *testing.T) {
	c, clk := redistest.Start(t).Client(t), newClock(t0)
	s := redisstore.MustNew(c, redisstore.WithMinTTL(time.Hour))
	ctx := context.Background()
	foreign := map[string]string{"owner": "x", "balance": "42"}
	for _, text := range append(slices.Clone(eachKind), eachKind[0]+" & "+eachKind[6], eachKind[4]+" | "+eachKind[3]) {
		t.Run(text, func(t *testing.T) {
			l := limiter(t, s, text, clk)
			key := redisstore.RedisKey(l.Key("theirs"))
			requireCorrupt(t, s, l, "theirs", func(k string) error { return c.HSet(ctx, k, foreign).Err() })
			got, err := c.HGetAll(ctx, key).Result()
			require.NoError(t, err)
			require.Equal(t, foreign, got, "the hash is as its owner wrote it")
			require.Equal(t, time.Duration(-1), c.TTL(ctx, key).Val(), "and has no TTL")

			reqs := requests(l, 1, "a", "theirs", "b")
			ds, err := s.AcquireBatch(ctx, reqs)
			require.ErrorIs(t, err, redisstore.ErrCorrupt)
			require.True(t, ds[0].Allowed)
			require.Equal(t, keyed.Decision{}, ds[1])
			require.True(t, ds[2].Allowed)
		})
	}
}
