package redisstore_test

import (
	"context"
	"math"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/keyed"
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

// TestOneCommandPerCheck counts, on the client (a hook) and on the server (INFO commandstats),
// the commands behind each TryAcquire, Peek and Reset once the script is loaded: exactly one
// EVALSHA and one round trip, for a fresh key as for an existing one, a refusal as an admission.
func TestOneCommandPerCheck(t *testing.T) {
	srv := redistest.Start(t)
	c, hook := srv.Client(t), &sent{}
	c.AddHook(hook)
	s := redisstore.MustNew(c, redisstore.WithMinTTL(time.Hour))
	clk := newClock(t0)
	ctx := context.Background()
	tree := eachKind[0] + " & (" + strings.Join(eachKind[4:], " | ") + ")"
	_, err := limiter(t, s, tree, clk).Peek(ctx, "warm-up") // loads the script
	require.NoError(t, err)
	require.NoError(t, c.ConfigResetStat(ctx).Err())
	hook.take()
	checks := 0
	for i, text := range append(eachKind, tree) {
		l, subject := limiter(t, s, text, clk), "subject"+strconv.Itoa(i)
		for _, call := range []func() error{
			func() error { _, err := l.Peek(ctx, subject); return err },          // fresh key
			func() error { _, err := l.TryAcquire(ctx, subject, 2); return err }, // fresh key
			func() error { _, err := l.TryAcquire(ctx, subject, 2); return err }, // refused
			func() error { _, err := l.Peek(ctx, subject); return err },
			func() error { return l.Reset(ctx, subject) },
		} {
			require.NoError(t, call())
			names, trips := hook.take()
			require.Equal(t, []string{"evalsha"}, names, "%s, call %d", text, checks)
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
	l := limiter(t, redisstore.MustNew(c, redisstore.WithMinTTL(time.Hour)), eachKind[0], newClock(t0))
	ctx := context.Background()
	for i := range 3 {
		require.NoError(t, c.ScriptFlush(ctx).Err())
		hook.take()
		d, err := l.TryAcquire(ctx, "alice", 1)
		require.NoError(t, err)
		require.True(t, d.Allowed)
		require.Equal(t, int64(2-i), d.Remaining)
		names, _ := hook.take()
		require.Equal(t, []string{"evalsha", "eval"}, names)
	}
	_, err := l.Peek(ctx, "alice")
	require.NoError(t, err)
	names, _ := hook.take()
	require.Equal(t, []string{"evalsha"}, names)
}

// TestPipelinedBatchAfterScriptFlush: a batch sent as one script call a check (WithKeyPerCall,
// as on a cluster) after the server lost its scripts loads them again, and decides as ever.
func TestPipelinedBatchAfterScriptFlush(t *testing.T) {
	c := redistest.Start(t).Client(t)
	s := redisstore.MustNew(c, redisstore.WithKeyPerCall(), redisstore.WithMinTTL(time.Hour))
	ctx := context.Background()
	l := limiter(t, s, "gcra 1/h burst 2", nil)
	_, err := l.Peek(ctx, "load")
	require.NoError(t, err)
	require.NoError(t, c.ScriptFlush(ctx).Err())
	ds, err := s.AcquireBatch(ctx, requests(l, 1, "a", "a", "a", "b"))
	require.NoError(t, err)
	require.Equal(t, []bool{true, true, false, true}, []bool{ds[0].Allowed, ds[1].Allowed, ds[2].Allowed, ds[3].Allowed})
}

// TestValidatedBeforeAnyCall sends invalid requests to a store whose server does not exist: the
// errors match numerus.ErrInvalidArgument and no command is sent.
func TestValidatedBeforeAnyCall(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	c, hook := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, ContextTimeoutEnabled: true}), &sent{}
	defer c.Close()
	c.AddHook(hook)
	s := redisstore.MustNew(c)
	ctx := context.Background()
	p := policy(eachKind[0]) // a capacity of 3
	req := func(cost int64, at time.Time) keyed.Request {
		return keyed.Request{Key: []byte("k"), Policy: p, Cost: cost, At: at}
	}
	for name, call := range map[string]func() error{
		"zero policy":    func() error { _, err := s.Acquire(ctx, keyed.Request{Key: []byte("k"), Cost: 1}); return err },
		"peek zero":      func() error { _, err := s.Peek(ctx, keyed.Request{Key: []byte("k"), Cost: 1}); return err },
		"zero cost":      func() error { _, err := s.Acquire(ctx, req(0, time.Time{})); return err },
		"negative cost":  func() error { _, err := s.Acquire(ctx, req(-1, time.Time{})); return err },
		"above capacity": func() error { _, err := s.Acquire(ctx, req(4, time.Time{})); return err },
		"before 1970":    func() error { _, err := s.Acquire(ctx, req(1, time.Unix(-1, 0))); return err },
		"after 2112":     func() error { _, err := s.Peek(ctx, req(1, time.Date(2113, 1, 1, 0, 0, 0, 0, time.UTC))); return err },
		"a µs past 2^52": func() error { _, err := s.Acquire(ctx, req(1, time.UnixMicro(1<<52+1))); return err },
		// past the year 294,246, µs since the epoch overflow int64 and wrap to 1970 or below
		"µs that wrap to 1970": func() error { _, err := s.Acquire(ctx, req(1, time.Unix(18446744073709, 551616000+5000))); return err },
		"µs that wrap below 0": func() error { _, err := s.Acquire(ctx, req(1, time.Unix(9300000000000, 0))); return err },
		"the year 300,000": func() error {
			_, err := s.Acquire(ctx, req(1, time.Date(300000, 1, 1, 0, 0, 0, 0, time.UTC)))
			return err
		},
		"queued": func() error {
			_, err := s.QueueAcquire(ctx, c.Pipeline(), req(-1, time.Time{})).Decision(ctx)
			return err
		},
		"queued peek": func() error { _, err := s.QueuePeek(ctx, c.Pipeline(), keyed.Request{}).Decision(ctx); return err },
		"cost in a batch": func() error {
			_, err := s.AcquireBatch(ctx, []keyed.Request{req(math.MaxInt64, time.Time{})})
			return err
		},
	} {
		require.ErrorIs(t, call(), numerus.ErrInvalidArgument, name)
	}
	names, _ := hook.take()
	require.Empty(t, names)
}

// TestBatchReadsEachKeyOnce: a batch of 100 checks of a plain policy on a single server, 98 of
// them on keys that do not exist, reads every key once, with the batch's MGET: no GET follows for
// a key MGET found absent (it took one each), and each new key is written with SET NX, which a
// key of another type refuses.
func TestBatchReadsEachKeyOnce(t *testing.T) {
	c := redistest.Start(t).Client(t)
	s := redisstore.MustNew(c, redisstore.WithMinTTL(time.Hour))
	ctx := context.Background()
	l := limiter(t, s, "gcra 10/s burst 3", newClock(t0))
	subjects := make([]string, 100)
	for i := range subjects {
		subjects[i] = "s" + strconv.Itoa(i)
	}
	_, err := s.AcquireBatch(ctx, requests(l, 1, subjects[:2]...)) // two keys exist
	require.NoError(t, err)
	require.NoError(t, c.ConfigResetStat(ctx).Err())
	ds, err := s.AcquireBatch(ctx, requests(l, 1, subjects...))
	require.NoError(t, err)
	for i, d := range ds {
		require.True(t, d.Allowed, "subject %d", i)
	}
	calls := serverCalls(t, c)
	require.Equal(t, 1, calls["mget"])
	require.Zero(t, calls["get"], "a key MGET found absent is not read again")
	require.Equal(t, 98, calls["set"])
	require.Equal(t, 2, calls["psetex"])
}
