package redisstore_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus/redisstore"
	"github.com/redis/go-redis/v9"
)

func TestWait(t *testing.T) {
	var zero redisstore.Wait
	require.True(t, zero.IsNever(), "the zero Wait is Never")
	require.Equal(t, redisstore.Never(), zero)
	require.Equal(t, "never", zero.String())
	d, ok := redisstore.WaitFor(-time.Second).Duration()
	require.True(t, ok)
	require.Zero(t, d)
	require.Equal(t, "1.5s", redisstore.WaitFor(1500*time.Millisecond).String())
}

// TestFailOpenClosed: the helpers pass decisions through and turn a failure into the caller's
// choice; with an unreachable server, FailOpen admits and FailClosed refuses.
func TestFailOpenClosed(t *testing.T) {
	d := redisstore.Decision{Remaining: 3, Limit: 5, RetryAfter: redisstore.WaitFor(time.Second)}
	require.Equal(t, d, redisstore.FailOpen(d, nil))
	require.Equal(t, d, redisstore.FailClosed(d, nil, time.Minute))
	boom := errors.New("boom")
	require.True(t, redisstore.FailOpen(d, boom).Allowed)
	closed := redisstore.FailClosed(d, boom, time.Minute)
	require.False(t, closed.Allowed)
	require.Equal(t, redisstore.WaitFor(time.Minute), closed.RetryAfter)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialerRetries: 1})
	defer c.Close()
	s := store(t, c, nil)
	got, err := s.Acquire(context.Background(), eachKind[0], "alice", 1)
	require.Error(t, err)
	require.True(t, redisstore.FailOpen(got, err).Allowed)
	require.False(t, redisstore.FailClosed(got, err, time.Second).Allowed)
}
