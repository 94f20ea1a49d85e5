package redisstore_test

import (
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/numerus-closus/numerus/redisstore"
	"github.com/redis/go-redis/v9"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// clock is a settable time for stores built WithClock, safe for concurrent use.
type clock struct{ ns atomic.Int64 }

func newClock(t time.Time) *clock {
	c := &clock{}
	c.set(t)
	return c
}

func (c *clock) set(t time.Time)               { c.ns.Store(t.UnixNano()) }
func (c *clock) now() time.Time                { return time.Unix(0, c.ns.Load()).UTC() }
func (c *clock) add(d time.Duration) time.Time { return time.Unix(0, c.ns.Add(int64(d))).UTC() }

// store returns a store on client in a namespace of the test's own, with the caller's clock c
// when c is not nil.
func store(t testing.TB, client redis.UniversalClient, c *clock, opts ...redisstore.Option) *redisstore.Store {
	t.Helper()
	opts = append([]redisstore.Option{redisstore.WithNamespace(t.Name())}, opts...)
	if c != nil {
		opts = append(opts, redisstore.WithClock(c.now))
	}
	return redisstore.New(client, opts...)
}
