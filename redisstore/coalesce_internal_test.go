package redisstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus/typed"
)

// refuser fails every command without sending it, and records their arguments.
type refuser struct {
	mu   sync.Mutex
	args []string
}

func (r *refuser) DialHook(next redis.DialHook) redis.DialHook { return next }

func (r *refuser) ProcessHook(redis.ProcessHook) redis.ProcessHook {
	return func(_ context.Context, cmd redis.Cmder) error { return r.refuse(cmd) }
}

func (r *refuser) ProcessPipelineHook(redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(_ context.Context, cmds []redis.Cmder) error { return r.refuse(cmds...) }
}

func (r *refuser) refuse(cmds ...redis.Cmder) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, cmd := range cmds {
		for _, a := range cmd.Args() {
			r.args = append(r.args, fmt.Sprint(a))
		}
		cmd.SetErr(errors.New("refused by the test"))
	}
	return errors.New("refused by the test")
}

// TestAbandonedBeforeSent: an acquire whose caller gives up after it left the queue but before
// its batch is sent is dropped from the batch; the one handed the batch sends the rest, and the
// round trip is freed after.
func TestAbandonedBeforeSent(t *testing.T) {
	rec := &refuser{}
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", ContextTimeoutEnabled: true}) // never dialled: rec answers
	t.Cleanup(func() { _ = client.Close() })
	client.AddHook(rec)
	s, err := New(client, WithCoalescing(1))
	if err != nil {
		t.Fatal(err)
	}
	co := s.co
	pr, err := s.program(typed.MustCompile("gcra 1/h burst 1"))
	require.NoError(t, err)
	queue := func(key string) *waiter {
		w := co.pool.Get().(*waiter)
		w.c, w.state = call{op: opAcquire, key: key, pr: pr, nums: costs[1]}, queued
		co.queue = append(co.queue, w)
		return w
	}
	co.busy = 1 // an acquire in flight, which ends now
	b, c := queue("subject-b"), queue("subject-c")
	co.mu.Lock()
	co.handOn(nil)
	co.mu.Unlock()
	<-b.done
	require.Equal(t, led, b.state)
	require.True(t, co.leave(c), "c's caller gives up before the batch is sent")

	_, err = co.lead(context.Background(), s, b)
	require.ErrorContains(t, err, "refused by the test")
	require.Contains(t, rec.args, "subject-b")
	require.NotContains(t, rec.args, "subject-c")
	require.Zero(t, co.busy)
	require.Empty(t, co.queue)
}
