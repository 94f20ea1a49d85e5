package redisstore_test

import (
	"context"
	"net"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/redis/go-redis/v9"
)

// TestUnreachableServer: a check on a server that does not answer returns an error and the zero
// Decision (a refusal), never a decision made up in its place.
func TestUnreachableServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialerRetries: 1, ContextTimeoutEnabled: true})
	defer c.Close()
	got, err := limiter(t, redisstore.MustNew(c), eachKind[0], nil).TryAcquire(context.Background(), "alice", 1)
	require.Error(t, err)
	require.Equal(t, keyed.Decision{}, got)
}
