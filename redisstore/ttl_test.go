package redisstore_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// monitor reads, on a connection of its own, the commands the server runs (scripts' included).
type monitor struct {
	conn net.Conn
	r    *bufio.Reader
}

func watch(t *testing.T, o *redis.Options) *monitor {
	t.Helper()
	conn, err := net.Dial("tcp", o.Addr)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
	m := &monitor{conn: conn, r: bufio.NewReader(conn)}
	if o.Password != "" {
		auth := []string{"AUTH", o.Password}
		if o.Username != "" {
			auth = []string{"AUTH", o.Username, o.Password}
		}
		m.send(auth...)
		_, err = m.r.ReadString('\n')
		require.NoError(t, err)
	}
	m.send("MONITOR")
	line, err := m.r.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "+OK\r\n", line)
	return m
}

// send writes a command in RESP.
func (m *monitor) send(args ...string) {
	fmt.Fprintf(m.conn, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(m.conn, "$%d\r\n%s\r\n", len(a), a)
	}
}

var quoted = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)

// ttl returns the key and the TTL in ms of the next command that sets one: PSETEX key ms value
// (a plain policy's string) or PEXPIRE key ms (a hash).
func (m *monitor) ttl(t *testing.T) (string, string) {
	t.Helper()
	for {
		line, err := m.r.ReadString('\n')
		require.NoError(t, err)
		var args []string
		for _, q := range quoted.FindAllStringSubmatch(line, -1) {
			args = append(args, q[1])
		}
		switch {
		case len(args) == 3 && strings.EqualFold(args[0], "pexpire"):
			return args[1], args[2]
		case len(args) == 4 && strings.EqualFold(args[0], "psetex"):
			return args[1], args[2]
		}
	}
}

// acquireTTL takes cost for subject with l and returns its decision, the TTL the script set (read
// from the server's MONITOR stream) and the key's PTTL read just after.
func acquireTTL(t *testing.T, l keyed.Limiter[string], c *redis.Client, subject string, cost int64) (keyed.Decision, time.Duration, time.Duration) {
	t.Helper()
	ctx := context.Background()
	m := watch(t, c.Options())
	d, err := l.TryAcquire(ctx, subject, cost)
	require.NoError(t, err)
	key, arg := m.ttl(t)
	require.Equal(t, redisstore.RedisKey(l.Key(subject)), key)
	ms, err := strconv.ParseInt(arg, 10, 64)
	require.NoError(t, err)
	return d, time.Duration(ms) * time.Millisecond, c.PTTL(ctx, redisstore.RedisKey(l.Key(subject))).Val()
}

// keep is how long the script keeps a key past the instant its subject is full again.
const keep = time.Millisecond

// TestTTL checks the TTL the script sets on every write: the time until the subject is full
// again, rounded up to the millisecond, and one millisecond more (the SLACK of plain.lua, for the
// servers that count a script's TTL from its start), at least the store's least TTL; the key never
// lacks one. Refusals and
// peeks leave it alone, an expired key is a fresh one, and a spent finite bucket keeps its key for
// centuries.
func TestTTL(t *testing.T) {
	srv := redistest.Start(t)
	c, clk := srv.Client(t), newClock(t0)
	s := redisstore.MustNew(c)
	ctx := context.Background()
	_, err := limiter(t, s, eachKind[0], clk).Peek(ctx, "load the script")
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		policy string
		cost   int64
		full   time.Duration // until full: the decision's FullAfter
		ttl    time.Duration // full rounded up to the millisecond; the script adds the slack
	}{
		{"gcra 10/s", "gcra 10/s burst 5", 2, 200 * time.Millisecond, 200 * time.Millisecond},
		{"gcra uneven", "gcra 3/s burst 5", 1, 333334 * time.Microsecond, 334 * time.Millisecond},
		{"sub-millisecond", "gcra 1/300us burst 1", 1, 300 * time.Microsecond, time.Millisecond},
		{"token sub-millisecond", "token 1/300us burst 1", 1, 300 * time.Microsecond, time.Millisecond},
		{"window sub-millisecond", "window 1/500us", 1, 500 * time.Microsecond, time.Millisecond},
		{"just above 100ms", "token 1/100001us burst 1", 1, 100001 * time.Microsecond, 101 * time.Millisecond},
		{"leaky", "leaky 2/s burst 4", 3, 1500 * time.Millisecond, 1500 * time.Millisecond},
		{"window", "window 3/s", 1, time.Second, time.Second},
		{"counter", "count 3/s", 1, 2 * time.Second, 2 * time.Second},
		{"log", "sliding 3/s", 1, time.Second, time.Second},
		{"and", eachKind[0] + " & " + eachKind[6], 1, time.Second, time.Second},
		{"or", eachKind[0] + " | " + eachKind[6], 1, time.Second, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk.set(t0)
			d, ttl, pttl := acquireTTL(t, limiter(t, s, tc.policy, clk), c, tc.name, tc.cost)
			require.True(t, d.Allowed)
			require.Equal(t, keyed.DurationOf(tc.full), d.FullAfter)
			require.Equal(t, tc.ttl+keep, ttl)
			require.LessOrEqual(t, pttl, ttl)
			require.NotEqual(t, time.Duration(-1), pttl, "a key without TTL") // -2: gone already
		})
	}

	t.Run("refusals and peeks keep the TTL", func(t *testing.T) {
		l := limiter(t, s, "gcra 1/h burst 1", clk)
		clk.set(t0)
		_, ttl, _ := acquireTTL(t, l, c, "kept", 1)
		require.Equal(t, time.Hour+keep, ttl)
		clk.set(t0.Add(30 * time.Minute))
		d, err := l.TryAcquire(ctx, "kept", 1)
		require.NoError(t, err)
		require.False(t, d.Allowed)
		pttl := c.PTTL(ctx, redisstore.RedisKey(l.Key("kept"))).Val()
		require.Greater(t, pttl, 59*time.Minute)
		require.LessOrEqual(t, pttl, time.Hour+keep)
		_, err = l.Peek(ctx, "kept")
		require.NoError(t, err)
		require.Positive(t, c.PTTL(ctx, redisstore.RedisKey(l.Key("kept"))).Val())
	})

	t.Run("an expired key is fresh", func(t *testing.T) {
		l := limiter(t, s, "gcra 1/h burst 2", clk)
		clk.set(t0)
		for range 2 {
			d, err := l.TryAcquire(ctx, "expired", 1)
			require.NoError(t, err)
			require.True(t, d.Allowed)
		}
		require.NoError(t, c.PExpireAt(ctx, redisstore.RedisKey(l.Key("expired")), time.Unix(1, 0)).Err())
		d, err := l.TryAcquire(ctx, "expired", 1)
		require.NoError(t, err)
		require.Equal(t, int64(1), d.Remaining)
	})

	t.Run("a spent finite bucket", func(t *testing.T) {
		clk.set(t0)
		d, ttl, _ := acquireTTL(t, limiter(t, s, "finite 3", clk), c, "finite", 1)
		require.True(t, d.FullAfter.IsNever())
		require.Greater(t, ttl, 200*365*24*time.Hour)
	})

	t.Run("at least the minimum", func(t *testing.T) {
		clk.set(t0)
		l := limiter(t, redisstore.MustNew(c, redisstore.WithMinTTL(1500*time.Microsecond)), "gcra 10/s burst 5", clk)
		_, ttl, _ := acquireTTL(t, l, c, "short", 1)
		require.Equal(t, 100*time.Millisecond+keep, ttl)
		l = limiter(t, redisstore.MustNew(c, redisstore.WithMinTTL(2500*time.Microsecond)), "gcra 1/300us burst 1", clk)
		_, ttl, _ = acquireTTL(t, l, c, "rounded up", 1)
		require.Equal(t, 3*time.Millisecond, ttl, "2.5ms rounded up, above the 1ms+keep until full")
		l = limiter(t, redisstore.MustNew(c, redisstore.WithMinTTL(time.Hour)), "gcra 10/s burst 5", clk)
		_, ttl, _ = acquireTTL(t, l, c, "long", 1)
		require.Equal(t, time.Hour, ttl)
	})
}

// TestServerTime lets the script read the server's clock (no keyed.WithClock).
func TestServerTime(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	l := limiter(t, redisstore.MustNew(c), "gcra 1/h burst 2", nil)
	ctx := context.Background()
	for i := range 2 {
		d, err := l.TryAcquire(ctx, "alice", 1)
		require.NoError(t, err)
		require.True(t, d.Allowed)
		require.Equal(t, int64(1-i), d.Remaining)
	}
	d, err := l.TryAcquire(ctx, "alice", 1)
	require.NoError(t, err)
	require.False(t, d.Allowed)
	retry, ok := d.RetryAfter.Duration()
	require.True(t, ok)
	require.InDelta(t, float64(time.Hour), float64(retry), float64(slack))
	reset, _ := d.FullAfter.Duration()
	require.InDelta(t, float64(2*time.Hour), float64(reset), float64(slack))
	require.Zero(t, retry%time.Microsecond, "the script counts microseconds")
	ttl := c.PTTL(ctx, redisstore.RedisKey(l.Key("alice"))).Val()
	require.InDelta(t, float64(2*time.Hour), float64(ttl), float64(slack))
}

// slack bounds the real time that passes between the script's TIME and the test's reading.
const slack = time.Second

// TestTTLGeneralEngine: the engine (trees, logs) sets the TTL as the plain path does: the
// time until full rounded UP to the millisecond, plus the slack. TestTTL's trees and log are full
// again after whole seconds, where rounding down is no different; here they are not.
func TestTTLGeneralEngine(t *testing.T) {
	srv := redistest.Start(t)
	c, clk := srv.Client(t), newClock(t0)
	s := redisstore.MustNew(c)
	for _, tc := range []struct {
		name, policy string
		full, ttl    time.Duration
	}{
		{"and", "gcra 3/s burst 5 & token 3/s burst 5", 333334 * time.Microsecond, 334 * time.Millisecond},
		{"or", "gcra 3/s burst 5 | leaky 3/s burst 5", 333334 * time.Microsecond, 334 * time.Millisecond},
		{"log", "sliding 3/1500us", 1500 * time.Microsecond, 2 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk.set(t0)
			d, ttl, pttl := acquireTTL(t, limiter(t, s, tc.policy, clk), c, tc.name, 1)
			require.True(t, d.Allowed)
			require.Equal(t, keyed.DurationOf(tc.full), d.FullAfter)
			require.Equal(t, tc.ttl+keep, ttl)
			require.LessOrEqual(t, pttl, ttl)
		})
	}
}
