package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/memory"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
)

// TestLogExpiryBoundaryInBisect: a log entry exactly one width old has expired, also when the
// expiry search finds it by bisection rather than by the gallop from the head. Six entries at
// t0+0..5µs of a 10µs log, checked at t0+12µs (cut at t0+2µs): the gallop passes the entries at
// 0 and 1 and stops at 3, so the bisection decides the entry at 2, which is dead: 3 are live.
// The store must agree with keyed's memory store.
func TestLogExpiryBoundaryInBisect(t *testing.T) {
	s := redisstore.MustNew(redistest.Start(t).Client(t), redisstore.WithMinTTL(time.Hour))
	ref := memory.New(memory.WithGrace(1000 * time.Hour))
	p, ctx := policy("sliding 10/10us"), context.Background()
	key := []byte(t.Name())
	for i := range 6 {
		r := keyed.Request{Key: key, Policy: p, Cost: 1, At: t0.Add(time.Duration(i) * time.Microsecond)}
		d, err := s.Acquire(ctx, r)
		require.NoError(t, err)
		require.True(t, d.Allowed)
		_, _ = ref.Acquire(ctx, r)
	}
	r := keyed.Request{Key: key, Policy: p, Cost: 1, At: t0.Add(12 * time.Microsecond)}
	d, err := s.Peek(ctx, r)
	require.NoError(t, err)
	want, _ := ref.Peek(ctx, r)
	require.Equal(t, int64(7), want.Remaining, "the reference: entries at 3, 4 and 5 live")
	require.Equal(t, want, d)
	r.Cost = 7
	d, err = s.Acquire(ctx, r)
	require.NoError(t, err)
	want, _ = ref.Acquire(ctx, r)
	require.True(t, want.Allowed)
	require.Equal(t, want, d)
}

// TestLogDropsExpiredFields: a log's hash holds its policy, its state and one field for each
// live entry but the newest (kept inline): entries that expire are deleted as they go, so a
// subject checked steadily keeps a bounded hash, not one field for every check it ever passed.
func TestLogDropsExpiredFields(t *testing.T) {
	c := redistest.Start(t).Client(t)
	clk := newClock(t0)
	l := limiter(t, redisstore.MustNew(c, redisstore.WithMinTTL(time.Hour)), "sliding 100/3us", clk)
	ctx := context.Background()
	for i := range 50 {
		clk.set(t0.Add(time.Duration(i) * time.Microsecond))
		d, err := l.TryAcquire(ctx, "s", 1)
		require.NoError(t, err)
		require.True(t, d.Allowed)
		require.Equal(t, int64(100-min(i+1, 3)), d.Remaining)
	}
	// live at +49µs: the entries at 47, 48 and 49; fields p, 1, and the entries at 47 and 48.
	fields, err := c.HKeys(ctx, redisstore.RedisKey(l.Key("s"))).Result()
	require.NoError(t, err)
	require.Len(t, fields, 4, "fields %v", fields)
}

// TestLogRebasesItsRunningCount: a log of the largest limit (2^50) kept full for 40 widths'
// worth of steps never empties, so its running count would pass 2^53, where odd sums are no
// longer exact, unless the script rebases it. Each µs takes a quarter of the limit less one
// token (odd) and peeks; the store must agree with keyed's memory store at every step.
func TestLogRebasesItsRunningCount(t *testing.T) {
	s := redisstore.MustNew(redistest.Start(t).Client(t), redisstore.WithMinTTL(time.Hour))
	p := policy("sliding 1125899906842624/4us") // 2^50 in 4µs
	var checks []check
	for i := range 160 {
		at := time.Duration(i) * time.Microsecond
		checks = append(checks, check{p, at, 1<<48 - 1}, check{p, at, 0})
	}
	requireLikeMemory(t, s, t.Name(), checks)
}
