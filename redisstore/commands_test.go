package redisstore_test

import (
	"context"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// sent records the commands a client sends, and its round trips (a pipeline is one).
type sent struct {
	mu    sync.Mutex
	names []string
	trips int
}

func (c *sent) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *sent) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.add(cmd)
		return next(ctx, cmd)
	}
}

func (c *sent) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.add(cmds...)
		return next(ctx, cmds)
	}
}

func (c *sent) add(cmds ...redis.Cmder) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.trips++
	for _, cmd := range cmds {
		c.names = append(c.names, cmd.Name())
	}
}

// take returns the commands sent since the last take and the round trips they took.
func (c *sent) take() ([]string, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	names, trips := c.names, c.trips
	c.names, c.trips = nil, 0
	return names, trips
}

// serverCalls returns how many times the server ran each command since CONFIG RESETSTAT, from
// INFO commandstats (commands run inside scripts included).
func serverCalls(t *testing.T, c *redis.Client) map[string]int {
	t.Helper()
	info, err := c.Info(context.Background(), "commandstats").Result()
	require.NoError(t, err)
	calls := map[string]int{}
	for line := range strings.SplitSeq(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":calls=")
		if !ok {
			continue
		}
		n, _ := strconv.Atoi(strings.SplitN(rest, ",", 2)[0])
		calls[strings.TrimPrefix(name, "cmdstat_")] = n
	}
	return calls
}

var eachKind = []redisstore.Policy{
	numerus.Must(redisstore.GCRA(numerus.PerSecond(10), 3)),
	numerus.Must(redisstore.TokenBucket(3, numerus.PerSecond(10))),
	numerus.Must(redisstore.LeakyBucket(3, numerus.PerSecond(10))),
	numerus.Must(redisstore.FiniteBucket(3)),
	numerus.Must(redisstore.FixedWindow(time.Second, 3, t0)),
	numerus.Must(redisstore.SlidingWindowCount(time.Second, 3, t0)),
	numerus.Must(redisstore.SlidingWindow(time.Second, 3)),
	numerus.Must(redisstore.SlidingWindowBucketed(time.Second, 4, 3)),
}

// TestOneCommandPerCheck counts, on the client (a hook) and on the server (INFO commandstats),
// the commands behind each Acquire, Peek and Reset once the script is loaded: exactly one EVALSHA
// and one round trip, for a fresh key as for an existing one, a refusal as an admission.
func TestOneCommandPerCheck(t *testing.T) {
	srv := redistest.Start(t)
	c, hook := srv.Client(t), &sent{}
	c.AddHook(hook)
	s := store(t, c, newClock(t0))
	ctx := context.Background()
	tree := numerus.Must(redisstore.AllOf(eachKind[0], numerus.Must(redisstore.AnyOf(eachKind[4:]...))))
	_, err := s.Peek(ctx, tree, "warm-up") // loads the script
	require.NoError(t, err)
	require.NoError(t, c.ConfigResetStat(ctx).Err())
	hook.take()
	checks := 0
	for i, p := range append(eachKind, tree) {
		subject := "subject" + strconv.Itoa(i)
		for _, call := range []func() error{
			func() error { _, err := s.Peek(ctx, p, subject); return err },       // fresh key
			func() error { _, err := s.Acquire(ctx, p, subject, 2); return err }, // fresh key
			func() error { _, err := s.Acquire(ctx, p, subject, 2); return err }, // refused
			func() error { _, err := s.Peek(ctx, p, subject); return err },
			func() error { return s.Reset(ctx, subject) },
		} {
			require.NoError(t, call())
			names, trips := hook.take()
			require.Equal(t, []string{"evalsha"}, names, "%s, call %d", p, checks)
			require.Equal(t, 1, trips)
			checks++
		}
	}
	calls := serverCalls(t, c)
	require.Equal(t, checks, calls["evalsha"])
	require.Zero(t, calls["eval"])
}

// TestScriptFlush flushes the server's scripts mid-run: the next check falls back to EVAL (which
// loads the script again) and succeeds, and the one after is a single EVALSHA again.
func TestScriptFlush(t *testing.T) {
	srv := redistest.Start(t)
	c, hook := srv.Client(t), &sent{}
	c.AddHook(hook)
	s := store(t, c, newClock(t0), redisstore.WithMinTTL(time.Hour))
	ctx := context.Background()
	p := eachKind[0]
	for i := range 3 {
		require.NoError(t, c.ScriptFlush(ctx).Err())
		hook.take()
		d, err := s.Acquire(ctx, p, "alice", 1)
		require.NoError(t, err)
		require.True(t, d.Allowed)
		require.Equal(t, int64(2-i), d.Remaining)
		names, _ := hook.take()
		require.Equal(t, []string{"evalsha", "eval"}, names)
	}
	_, err := s.Peek(ctx, p, "alice")
	require.NoError(t, err)
	names, _ := hook.take()
	require.Equal(t, []string{"evalsha"}, names)
}

// TestValidatedBeforeAnyCall checks invalid arguments against a store whose server does not
// exist: the errors match numerus.ErrInvalidArgument and no command is sent.
func TestValidatedBeforeAnyCall(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	c, hook := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1}), &sent{}
	defer c.Close()
	c.AddHook(hook)
	ctx := context.Background()
	p := eachKind[0]
	early := newClock(time.Unix(-1, 0))
	for name, call := range map[string]func() error{
		"zero policy": func() error { _, err := store(t, c, nil).Acquire(ctx, redisstore.Policy{}, "a", 1); return err },
		"zero cost":   func() error { _, err := store(t, c, nil).Acquire(ctx, p, "a", 0); return err },
		"before 1970": func() error { _, err := store(t, c, early).Acquire(ctx, p, "a", 1); return err },
		"peek zero":   func() error { _, err := store(t, c, nil).Peek(ctx, redisstore.Policy{}, "a"); return err },
		"queued": func() error {
			_, err := store(t, c, nil).QueueAcquire(ctx, c.Pipeline(), p, "a", -1).Decision(ctx)
			return err
		},
	} {
		require.ErrorIs(t, call(), numerus.ErrInvalidArgument, name)
	}
	names, _ := hook.take()
	require.Empty(t, names)
}
