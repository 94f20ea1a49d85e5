package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
)

func TestAcquireGCRA(t *testing.T) {
	srv := redistest.Start(t)
	c := newClock(t0)
	s := store(t, srv.Client(t), c, redisstore.WithMinTTL(time.Hour)) // time stands still
	ctx := context.Background()
	p := numerus.Must(redisstore.GCRA(numerus.PerSecond(10), 3))
	for i := range 3 {
		d, err := s.Acquire(ctx, p, "alice", 1)
		require.NoError(t, err)
		require.True(t, d.Allowed, "take %d", i)
		require.Equal(t, int64(2-i), d.Remaining)
		require.Equal(t, int64(3), d.Limit)
	}
	d, err := s.Acquire(ctx, p, "alice", 1)
	require.NoError(t, err)
	require.False(t, d.Allowed)
	w, ok := d.RetryAfter.Duration()
	require.True(t, ok)
	require.Equal(t, 100*time.Millisecond, w)
	r, _ := d.ResetAfter.Duration()
	require.Equal(t, 300*time.Millisecond, r)
	c.add(100 * time.Millisecond)
	d, err = s.Acquire(ctx, p, "alice", 1)
	require.NoError(t, err)
	require.True(t, d.Allowed)
	d, err = s.Acquire(ctx, p, "alice", 4)
	require.NoError(t, err)
	require.False(t, d.Allowed)
	require.True(t, d.RetryAfter.IsNever())
}

// TestDeepestTree runs a tree of the deepest nesting a Policy allows through the script.
func TestDeepestTree(t *testing.T) {
	p := eachKind[0]
	for range 32 {
		p = numerus.Must(redisstore.AllOf(p, eachKind[1]))
	}
	s := store(t, redistest.Start(t).Client(t), newClock(t0))
	d, err := s.Acquire(context.Background(), p, "deep", 1)
	require.NoError(t, err)
	require.True(t, d.Allowed)
	require.Equal(t, int64(2), d.Remaining)
}

// TestClockBack: instants before the latest one a subject admitted count as that one, so a clock
// that steps back, or repeats an instant, credits nothing.
func TestClockBack(t *testing.T) {
	c := newClock(t0.Add(10 * time.Second))
	s := store(t, redistest.Start(t).Client(t), c, redisstore.WithMinTTL(time.Hour))
	ctx := context.Background()
	for _, p := range append([]redisstore.Policy{mustTree(eachKind[1], eachKind[6])}, eachKind...) {
		subject := p.String()
		admitted := 0
		for back := range 50 {
			c.set(t0.Add(10*time.Second - time.Duration(back)*200*time.Millisecond))
			d, err := s.Acquire(ctx, p, subject, 1)
			require.NoError(t, err)
			if d.Allowed {
				admitted++
			}
		}
		require.Equal(t, 3, admitted, p.String())
	}
}

// TestRetryIsTight: after a refusal, the same check is refused 1µs before the answer and admitted
// at it.
func TestRetryIsTight(t *testing.T) {
	c := newClock(t0)
	s := store(t, redistest.Start(t).Client(t), c, redisstore.WithMinTTL(time.Hour))
	ctx := context.Background()
	for _, p := range append([]redisstore.Policy{mustTree(eachKind[1], eachKind[6]),
		numerus.Must(redisstore.AnyOf(eachKind[4], eachKind[5]))}, eachKind...) {
		subject := p.String()
		c.set(t0.Add(123456 * time.Microsecond))
		var d redisstore.Decision
		for d.Allowed = true; d.Allowed; {
			var err error
			d, err = s.Acquire(ctx, p, subject, 2)
			require.NoError(t, err)
		}
		wait, ok := d.RetryAfter.Duration()
		if !ok {
			require.Equal(t, "finite 3", p.String())
			continue
		}
		at := c.now()
		c.set(at.Add(wait - time.Microsecond))
		early, err := s.Acquire(ctx, p, subject, 2)
		require.NoError(t, err)
		require.False(t, early.Allowed, "%s: admitted 1µs before the answer", p)
		c.set(at.Add(wait))
		d, err = s.Acquire(ctx, p, subject, 2)
		require.NoError(t, err)
		require.True(t, d.Allowed, "%s: refused at the answer", p)
	}
}
