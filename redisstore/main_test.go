package redisstore_test

import (
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/typed"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// clock is a settable time for limiters built WithClock, safe for concurrent use.
type clock struct{ ns atomic.Int64 }

func newClock(t time.Time) *clock {
	c := &clock{}
	c.set(t)
	return c
}

func (c *clock) set(t time.Time)               { c.ns.Store(t.UnixNano()) }
func (c *clock) now() time.Time                { return time.Unix(0, c.ns.Load()).UTC() }
func (c *clock) add(d time.Duration) time.Time { return time.Unix(0, c.ns.Add(int64(d))).UTC() }

// limiter returns a keyed limiter on s of the policy written in text, in the test's namespace,
// with the clock c when c is not nil (and the server's clock otherwise).
func limiter(t testing.TB, s *redisstore.Store, text string, c *clock) keyed.Limiter[string] {
	t.Helper()
	sp, err := typed.Parse(text)
	if err != nil {
		t.Fatalf("typed.Parse(%q): %v", text, err)
	}
	return limiterOf(t, s, sp, c)
}

func limiterOf(t testing.TB, s keyed.Store, sp typed.Spec, c *clock) keyed.Limiter[string] {
	t.Helper()
	opts := []keyed.Option{keyed.WithNamespace(t.Name())}
	if c != nil {
		opts = append(opts, keyed.WithClock(c.now))
	}
	l, err := keyed.New(s, sp, keyed.StringKey{}, opts...)
	if err != nil {
		t.Fatalf("keyed.New(%v): %v", sp, err)
	}
	return l
}

// eachKind holds a policy of every algorithm, in the notation.
var eachKind = []string{
	"gcra 10/s burst 3",
	"token 10/s burst 3",
	"leaky 10/s burst 3",
	"finite 3",
	"window 3/s",
	"count 3/s",
	"sliding 3/s",
	"buckets 3/s in 4",
}

// policy compiles text, for direct store calls.
func policy(text string) typed.Policy { return typed.MustCompile(text) }

func mustParse(t testing.TB, text string) typed.Spec {
	t.Helper()
	sp, err := typed.Parse(text)
	if err != nil {
		t.Fatalf("typed.Parse(%q): %v", text, err)
	}
	return sp
}
