package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
)

// TestCorruptWindowStart: a window's (or counter's) state whose window start is off the policy's
// grid, or after the latest instant it admitted, cannot have been written by the script. The fast
// path must not decide on it (it would see the window as stale, and grant a fresh one): the check
// fails with ErrCorrupt, alone and in a batch, and grants nothing.
func TestCorruptWindowStart(t *testing.T) {
	srv := redistest.Start(t)
	c, clk := srv.Client(t), newClock(t0)
	s := redisstore.New(c, redisstore.WithMinTTL(time.Hour))
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
			l := limiter(t, s, tc.policy, clk)
			require.NoError(t, c.Set(ctx, l.Key("s"), plain(t, tc.policy, tc.state...), 0).Err())
			d, err := l.TryAcquire(ctx, "s", 1)
			require.ErrorIs(t, err, redisstore.ErrCorrupt)
			require.Equal(t, keyed.Decision{}, d)
			_, err = l.Peek(ctx, "s")
			require.ErrorIs(t, err, redisstore.ErrCorrupt)
			reqs := redisstore.Requests(l, 1, "s")
			reqs[0].At = clk.now()
			_, err = s.AcquireBatch(ctx, reqs)
			require.ErrorIs(t, err, redisstore.ErrCorrupt)
		})
	}
}
