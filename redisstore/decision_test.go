package redisstore_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/redis/go-redis/v9"
)

// TestFailOpenClosed: the helpers pass decisions through and turn a failure into the caller's
// choice; with an unreachable server, FailOpen admits and FailClosed refuses.
func TestFailOpenClosed(t *testing.T) {
	d := keyed.Decision{Remaining: 3, Limit: 5, RetryAfter: keyed.DurationOf(time.Second)}
	require.Equal(t, d, redisstore.FailOpen(d, nil))
	require.Equal(t, d, redisstore.FailClosed(d, nil, time.Minute))
	boom := errors.New("boom")
	open := redisstore.FailOpen(d, boom)
	require.True(t, open.Allowed)
	require.Equal(t, [3]keyed.Duration{keyed.DurationOf(0), keyed.DurationOf(0), keyed.DurationOf(0)}, [3]keyed.Duration{open.RetryAfter, open.FullAfter, open.RefillAfter})
	closed := redisstore.FailClosed(d, boom, time.Minute)
	require.False(t, closed.Allowed)
	minute := keyed.DurationOf(time.Minute)
	require.Equal(t, [3]keyed.Duration{minute, minute, minute}, [3]keyed.Duration{closed.RetryAfter, closed.FullAfter, closed.RefillAfter})

	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialerRetries: 1, ContextTimeoutEnabled: true})
	defer c.Close()
	got, err := limiter(t, redisstore.MustNew(c), eachKind[0], nil).TryAcquire(context.Background(), "alice", 1)
	require.Error(t, err)
	require.Equal(t, keyed.Decision{}, got)
	require.True(t, redisstore.FailOpen(got, err).Allowed)
	require.False(t, redisstore.FailClosed(got, err, time.Second).Allowed)
}
