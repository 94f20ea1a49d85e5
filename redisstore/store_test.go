package redisstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
	"github.com/numerus-closus/numerus/typed"
)

func TestAcquireGCRA(t *testing.T) {
	srv := redistest.Start(t)
	c := newClock(t0)
	s := redisstore.MustNew(srv.Client(t), redisstore.WithMinTTL(time.Hour)) // time stands still
	l := limiter(t, s, "gcra 10/s burst 3", c)
	ctx := context.Background()
	for i := range 3 {
		d, err := l.TryAcquire(ctx, "alice", 1)
		require.NoError(t, err)
		require.True(t, d.Allowed, "take %d", i)
		require.Equal(t, int64(2-i), d.Remaining)
		require.Equal(t, int64(3), d.Limit)
	}
	d, err := l.TryAcquire(ctx, "alice", 1)
	require.NoError(t, err)
	require.False(t, d.Allowed)
	require.Equal(t, keyed.DurationOf(100*time.Millisecond), d.RetryAfter)
	require.Equal(t, keyed.DurationOf(300*time.Millisecond), d.FullAfter)
	c.add(100 * time.Millisecond)
	d, err = l.TryAcquire(ctx, "alice", 1)
	require.NoError(t, err)
	require.True(t, d.Allowed)
}

// TestCallerTimeRounding: the caller's instant is truncated to the microsecond for the decision,
// and waits are measured from the instant itself, so they end on the microsecond the script
// answered.
func TestCallerTimeRounding(t *testing.T) {
	s := redisstore.MustNew(redistest.Start(t).Client(t), redisstore.WithMinTTL(time.Hour))
	p, ctx := policy("gcra 1/3us burst 1"), context.Background()
	at := t0.Add(999 * time.Nanosecond) // decided at t0
	d, err := s.Acquire(ctx, keyed.Request{Key: []byte(t.Name()), Policy: p, Cost: 1, At: at})
	require.NoError(t, err)
	require.True(t, d.Allowed)
	require.Equal(t, keyed.DurationOf(0), d.RetryAfter)
	require.Equal(t, keyed.DurationOf(3*time.Microsecond-999), d.FullAfter, "full at t0+3µs")
	d, err = s.Acquire(ctx, keyed.Request{Key: []byte(t.Name()), Policy: p, Cost: 1, At: at})
	require.NoError(t, err)
	require.False(t, d.Allowed)
	require.Equal(t, keyed.DurationOf(3*time.Microsecond-999), d.RetryAfter)
}

// TestDeepestTree runs a tree of the deepest nesting package typed allows through the script.
func TestDeepestTree(t *testing.T) {
	sp := mustParse(t, eachKind[0])
	for range 32 {
		sp = typed.Spec{Algo: typed.AlgoAnd, Of: []typed.Spec{sp, mustParse(t, eachKind[1])}}
	}
	s := redisstore.MustNew(redistest.Start(t).Client(t))
	d, err := limiterOf(t, s, sp, newClock(t0)).TryAcquire(context.Background(), "deep", 1)
	require.NoError(t, err)
	require.True(t, d.Allowed)
	require.Equal(t, int64(2), d.Remaining)
	sp = typed.Spec{Algo: typed.AlgoAnd, Of: []typed.Spec{sp, mustParse(t, eachKind[1])}}
	_, err = keyed.New(s, sp, keyed.StringKey{})
	require.ErrorIs(t, err, numerus.ErrInvalidArgument, "33 levels")
}

// TestClockBack: instants before the latest one a subject admitted count as that one, so a clock
// that steps back, or repeats an instant, credits nothing.
func TestClockBack(t *testing.T) {
	c := newClock(t0.Add(10 * time.Second))
	s := redisstore.MustNew(redistest.Start(t).Client(t), redisstore.WithMinTTL(time.Hour))
	ctx := context.Background()
	for _, text := range append([]string{eachKind[1] + " & " + eachKind[6]}, eachKind...) {
		l := limiter(t, s, text, c)
		admitted := 0
		for back := range 50 {
			c.set(t0.Add(10*time.Second - time.Duration(back)*200*time.Millisecond))
			d, err := l.TryAcquire(ctx, text, 1)
			require.NoError(t, err)
			if d.Allowed {
				admitted++
			}
		}
		require.Equal(t, 3, admitted, text)
	}
}

// TestRetryIsTight: after a refusal, the same check is refused 1µs before the answer and admitted
// at it.
func TestRetryIsTight(t *testing.T) {
	c := newClock(t0)
	s := redisstore.MustNew(redistest.Start(t).Client(t), redisstore.WithMinTTL(time.Hour))
	ctx := context.Background()
	for _, text := range append([]string{eachKind[1] + " & " + eachKind[6], eachKind[4] + " | " + eachKind[5]}, eachKind...) {
		l := limiter(t, s, text, c)
		c.set(t0.Add(123456 * time.Microsecond))
		var d keyed.Decision
		for d.Allowed = true; d.Allowed; {
			var err error
			d, err = l.TryAcquire(ctx, text, 2)
			require.NoError(t, err)
		}
		wait, ok := d.RetryAfter.Duration()
		if !ok {
			require.Equal(t, "finite 3", text)
			continue
		}
		at := c.now()
		c.set(at.Add(wait - time.Microsecond))
		early, err := l.TryAcquire(ctx, text, 2)
		require.NoError(t, err)
		require.False(t, early.Allowed, "%s: admitted 1µs before the answer", text)
		c.set(at.Add(wait))
		d, err = l.TryAcquire(ctx, text, 2)
		require.NoError(t, err)
		require.True(t, d.Allowed, "%s: refused at the answer", text)
	}
}

// TestKeysAreTheLimiters: the store keeps a subject at the key the keyed Limiter framed.
func TestKeysAreTheLimiters(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	l := limiter(t, redisstore.MustNew(c), "gcra 1/h burst 2", nil)
	_, err := l.TryAcquire(context.Background(), "a:b", 1)
	require.NoError(t, err)
	keys, err := c.Keys(context.Background(), "*"+t.Name()+"*").Result()
	require.NoError(t, err)
	require.Equal(t, []string{redisstore.RedisKey(l.Key("a:b"))}, keys)
	require.True(t, strings.HasSuffix(keys[0], ":a:b"))
}
