package redisstore_test

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// TestServerRestart kills the server mid-run: every call fails with an error that wraps the
// network cause (never a decision, never a panic), batches and pipelines included; once the server
// is back (empty, without the script), the next call works.
func TestServerRestart(t *testing.T) {
	srv := redistest.Spawn(t)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr, MaxRetries: -1, DialerRetries: 1, DialTimeout: time.Second})
	defer c.Close()
	s := redisstore.New(c)
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
		ds, err := s.AcquireBatch(ctx, redisstore.Requests(l, 1, "a", "b"))
		requireNetError(t, err)
		require.Equal(t, []keyed.Decision{{}, {}}, ds)
		pipe := c.Pipeline()
		pd := s.QueueAcquire(ctx, pipe, redisstore.Requests(l, 1, "a")[0])
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
	l := limiter(t, redisstore.New(redistest.Start(t).Client(t)), eachKind[0], newClock(t0))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := l.TryAcquire(ctx, "alice", 1)
	require.ErrorIs(t, err, context.Canceled)
	ctx, cancel = context.WithDeadline(context.Background(), t0)
	defer cancel()
	_, err = l.Peek(ctx, "alice")
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

// TestCorruptState damages keys in every way the script checks: each check then fails with
// ErrCorrupt and grants nothing, and Reset makes the subject usable again.
func TestCorruptState(t *testing.T) {
	srv := redistest.Start(t)
	c, clk := srv.Client(t), newClock(t0)
	s := redisstore.New(c, redisstore.WithMinTTL(time.Hour))
	ctx := context.Background()
	gcra, token, window := eachKind[0], eachKind[1], eachKind[4]
	for _, tc := range []struct {
		name   string
		policy string
		damage func(key string) error
	}{
		{"wrong type", gcra, func(k string) error { return c.Set(ctx, k, "x", 0).Err() }},
		{"list", gcra, func(k string) error { c.Del(ctx, k); return c.RPush(ctx, k, "x").Err() }},
		{"no policy field", gcra, func(k string) error { return c.HDel(ctx, k, "p").Err() }},
		{"unreadable policy", gcra, func(k string) error { return c.HSet(ctx, k, "p", "z9").Err() }},
		{"missing leaf", gcra + " & " + window, func(k string) error { return c.HDel(ctx, k, "2").Err() }},
		{"not a number", gcra, func(k string) error { return c.HSet(ctx, k, "1", "abc 0 0").Err() }},
		{"fraction", gcra, func(k string) error { return c.HSet(ctx, k, "1", "1.5 0 0").Err() }},
		{"too few numbers", gcra, func(k string) error { return c.HSet(ctx, k, "1", "5 0").Err() }},
		{"tokens above capacity", token, func(k string) error { return c.HSet(ctx, k, "1", "4000000 0").Err() }},
		{"negative tokens", token, func(k string) error { return c.HSet(ctx, k, "1", "-1 0").Err() }},
		{"count above limit", window, func(k string) error { return c.HSet(ctx, k, "1", "0 0 4 0").Err() }},
		{"negative instant", gcra, func(k string) error { return c.HSet(ctx, k, "1", "0 0 -5").Err() }},
		{"instant beyond 2^53", gcra, func(k string) error { return c.HSet(ctx, k, "1", "0 0 100000000000000000").Err() }},
		{"TAT beyond its burst", gcra, func(k string) error {
			return c.HSet(ctx, k, "1", "1767225700000000 0 1767225600000000").Err()
		}},
		{"log entry missing", "sliding 10/h", func(k string) error { return c.HDel(ctx, k, "1.0").Err() }},
		{"log count above limit", "sliding 10/h", func(k string) error {
			return c.HSet(ctx, k, "1", "0 3 0 1767225600000002 1767225600000002 99").Err()
		}},
		{"state beyond the old policy", gcra, func(k string) error { return c.HSet(ctx, k, "p", "g 1 100000 1").Err() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := limiter(t, s, tc.policy, clk)
			for i := range 3 { // three instants: a log holds two entry fields and its newest
				clk.set(t0.Add(time.Duration(i) * time.Microsecond))
				_, err := l.TryAcquire(ctx, tc.name, 1)
				require.NoError(t, err)
			}
			clk.set(t0.Add(3 * time.Microsecond))
			require.NoError(t, tc.damage(l.Key(tc.name)))
			d, err := l.TryAcquire(ctx, tc.name, 1)
			require.ErrorIs(t, err, redisstore.ErrCorrupt)
			require.Equal(t, keyed.Decision{}, d)
			_, err = l.Peek(ctx, tc.name)
			require.ErrorIs(t, err, redisstore.ErrCorrupt)
			require.NoError(t, l.Reset(ctx, tc.name))
			d, err = l.TryAcquire(ctx, tc.name, 1)
			require.NoError(t, err)
			require.True(t, d.Allowed)
		})
	}
}
