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

	"github.com/numerus-closus/numerus"
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

// next returns the arguments of the next command named name that the server runs.
func (m *monitor) next(t *testing.T, name string) []string {
	t.Helper()
	for {
		line, err := m.r.ReadString('\n')
		require.NoError(t, err)
		var args []string
		for _, q := range quoted.FindAllStringSubmatch(line, -1) {
			args = append(args, q[1])
		}
		if len(args) > 0 && strings.EqualFold(args[0], name) {
			return args[1:]
		}
	}
}

// acquireTTL runs Acquire and returns its decision, the TTL the script set (read from the
// server's MONITOR stream, as the PEXPIRE argument) and the key's PTTL read just after.
func acquireTTL(t *testing.T, s *redisstore.Store, c *redis.Client, p redisstore.Policy, subject string, cost int64) (redisstore.Decision, time.Duration, time.Duration) {
	t.Helper()
	ctx := context.Background()
	m := watch(t, c.Options())
	d, err := s.Acquire(ctx, p, subject, cost)
	require.NoError(t, err)
	args := m.next(t, "pexpire")
	require.Equal(t, s.Key(subject), args[0])
	ms, err := strconv.ParseInt(args[1], 10, 64)
	require.NoError(t, err)
	return d, time.Duration(ms) * time.Millisecond, c.PTTL(ctx, s.Key(subject)).Val()
}

// TestTTL checks the TTL the script sets on every write: the time until the subject is full
// again, rounded up to the millisecond and at least 1ms; the key never lacks one. Refusals and
// peeks leave it alone, an expired key is a fresh one, and a spent finite bucket keeps its key for
// centuries.
func TestTTL(t *testing.T) {
	srv := redistest.Start(t)
	c, clk := srv.Client(t), newClock(t0)
	s := store(t, c, clk)
	ctx := context.Background()
	_, err := s.Peek(ctx, eachKind[0], "load the script")
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		policy redisstore.Policy
		cost   int64
		full   time.Duration // until full: the decision's ResetAfter
		ttl    time.Duration
	}{
		{"gcra 10/s", numerus.Must(redisstore.GCRA(numerus.PerSecond(10), 5)), 2, 200 * time.Millisecond, 200 * time.Millisecond},
		{"gcra uneven", numerus.Must(redisstore.GCRA(numerus.PerSecond(3), 5)), 1, 333334 * time.Microsecond, 334 * time.Millisecond},
		{"sub-millisecond", numerus.Must(redisstore.GCRA(numerus.Every(300*time.Microsecond), 1)), 1, 300 * time.Microsecond, time.Millisecond},
		{"just above 100ms", numerus.Must(redisstore.TokenBucket(1, numerus.Every(100001*time.Microsecond))), 1, 100001 * time.Microsecond, 101 * time.Millisecond},
		{"leaky", numerus.Must(redisstore.LeakyBucket(4, numerus.PerSecond(2))), 3, 1500 * time.Millisecond, 1500 * time.Millisecond},
		{"window", numerus.Must(redisstore.FixedWindow(time.Second, 3, t0.Add(-250*time.Millisecond))), 1, 750 * time.Millisecond, 750 * time.Millisecond},
		{"counter", numerus.Must(redisstore.SlidingWindowCount(time.Second, 3, t0)), 1, 2 * time.Second, 2 * time.Second},
		{"log", numerus.Must(redisstore.SlidingWindow(time.Second, 3)), 1, time.Second, time.Second},
		{"and", numerus.Must(redisstore.AllOf(eachKind[0], eachKind[6])), 1, time.Second, time.Second},
		{"or", numerus.Must(redisstore.AnyOf(eachKind[0], eachKind[6])), 1, time.Second, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk.set(t0)
			d, ttl, pttl := acquireTTL(t, s, c, tc.policy, tc.name, tc.cost)
			require.True(t, d.Allowed)
			require.Equal(t, redisstore.WaitFor(tc.full), d.ResetAfter)
			require.Equal(t, tc.ttl, ttl)
			require.LessOrEqual(t, pttl, ttl)
			require.NotEqual(t, time.Duration(-1), pttl, "a key without TTL") // -2: gone already
		})
	}

	t.Run("refusals and peeks keep the TTL", func(t *testing.T) {
		p := numerus.Must(redisstore.GCRA(numerus.PerHour(1), 1))
		clk.set(t0)
		_, ttl, _ := acquireTTL(t, s, c, p, "kept", 1)
		require.Equal(t, time.Hour, ttl)
		clk.set(t0.Add(30 * time.Minute))
		d, err := s.Acquire(ctx, p, "kept", 1)
		require.NoError(t, err)
		require.False(t, d.Allowed)
		pttl := c.PTTL(ctx, s.Key("kept")).Val()
		require.Greater(t, pttl, 59*time.Minute)
		require.LessOrEqual(t, pttl, time.Hour)
		_, err = s.Peek(ctx, p, "kept")
		require.NoError(t, err)
		require.Positive(t, c.PTTL(ctx, s.Key("kept")).Val())
	})

	t.Run("an expired key is fresh", func(t *testing.T) {
		p := numerus.Must(redisstore.GCRA(numerus.PerHour(1), 2))
		clk.set(t0)
		for range 2 {
			d, err := s.Acquire(ctx, p, "expired", 1)
			require.NoError(t, err)
			require.True(t, d.Allowed)
		}
		require.NoError(t, c.PExpireAt(ctx, s.Key("expired"), time.Unix(1, 0)).Err())
		d, err := s.Acquire(ctx, p, "expired", 1)
		require.NoError(t, err)
		require.Equal(t, int64(1), d.Remaining)
	})

	t.Run("a spent finite bucket", func(t *testing.T) {
		clk.set(t0)
		d, ttl, _ := acquireTTL(t, s, c, eachKind[3], "finite", 1)
		require.True(t, d.ResetAfter.IsNever())
		require.Greater(t, ttl, 200*365*24*time.Hour)
	})
}

// TestServerTime lets the script read the server's clock (no WithClock).
func TestServerTime(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	s := store(t, c, nil)
	ctx := context.Background()
	p := numerus.Must(redisstore.GCRA(numerus.PerHour(1), 2))
	for i := range 2 {
		d, err := s.Acquire(ctx, p, "alice", 1)
		require.NoError(t, err)
		require.True(t, d.Allowed)
		require.Equal(t, int64(1-i), d.Remaining)
	}
	d, err := s.Acquire(ctx, p, "alice", 1)
	require.NoError(t, err)
	require.False(t, d.Allowed)
	retry, ok := d.RetryAfter.Duration()
	require.True(t, ok)
	require.InDelta(t, float64(time.Hour), float64(retry), float64(slack))
	reset, _ := d.ResetAfter.Duration()
	require.InDelta(t, float64(2*time.Hour), float64(reset), float64(slack))
	require.Zero(t, retry%time.Microsecond, "the script counts microseconds")
	ttl := c.PTTL(ctx, s.Key("alice")).Val()
	require.InDelta(t, float64(2*time.Hour), float64(ttl), float64(slack))
}

// slack bounds the real time that passes between the script's TIME and the test's reading.
const slack = time.Second
