package redisstore_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/redis/go-redis/v9"
)

// blackHole listens on loopback, accepts every connection and never answers, until the test ends.
func blackHole(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// TestNoCallerWaitsPastItsDeadline points the store at a server that accepts connections and
// never answers, with go-redis's timeouts far longer than the callers' deadlines (30s reads):
// every call, alone or coalesced into batches by 20 goroutines, fails with an error matching
// context.DeadlineExceeded, its own deadline's, not the client's read timeout.
func TestNoCallerWaitsPastItsDeadline(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: blackHole(t), ContextTimeoutEnabled: true,
		ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second, MaxRetries: -1})
	defer c.Close()
	s, err := redisstore.New(c)
	require.NoError(t, err)
	l := limiter(t, s, eachKind[0], nil)
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range errs {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(100+10*i)*time.Millisecond)
			defer cancel()
			_, errs[i] = l.TryAcquire(ctx, "alice", 1)
		})
	}
	wg.Wait()
	for i, err := range errs {
		require.ErrorIs(t, err, context.DeadlineExceeded, "acquire %d: %v", i, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = l.Peek(ctx, "alice")
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

// TestNewRequiresContextTimeouts: a go-redis client that ignores its callers' deadlines (the
// default: ContextTimeoutEnabled false) would make a check wait out its read timeout, seconds
// past the caller's deadline, so New refuses it.
func TestNewRequiresContextTimeouts(t *testing.T) {
	for name, c := range map[string]redis.UniversalClient{
		"client":  redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}),
		"cluster": redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:1"}}),
		"ring":    redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": "127.0.0.1:1"}}),
	} {
		_, err := redisstore.New(c)
		require.Error(t, err, name)
		require.ErrorIs(t, err, numerus.ErrInvalidArgument, name)
		c.Close()
	}
}
