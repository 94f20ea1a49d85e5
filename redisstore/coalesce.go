package redisstore

import (
	"context"
	"sync"

	"github.com/numerus-closus/numerus/keyed"
)

// A coalescer merges the acquires of concurrent callers into batch script calls. At most limit
// round trips of acquires are in flight at once; an acquire that finds them all busy waits in a
// queue, and when a round trip ends, the caller that led it hands the whole queue to one of the
// waiting callers, which sends it as one batch (a batch script call per policy) and hands on the
// queue that formed meanwhile. The callers do all the work: there is no goroutine of its own.
//
// A serial caller always finds a round trip free and sends its acquire alone, as it would
// without coalescing. Under load, a batch costs the server far less than as many script calls
// (one command to parse, read and answer instead of one each), so throughput rises with the
// number of callers instead of stopping at the server's speed for single calls.
type coalescer struct {
	limit int
	mu    sync.Mutex
	busy  int       // round trips in flight
	queue []*waiter // acquires waiting for the next round trip, in arrival order
	pool  sync.Pool // of *waiter
}

// A waiter is one caller's acquire while it is coalesced. Its fields after c are guarded by the
// coalescer's mutex until done is signalled.
type waiter struct {
	c     call
	d     keyed.Decision
	err   error
	state waitState
	lead  []*waiter     // the batch this waiter was handed to send (state led)
	done  chan struct{} // signalled once, when the state becomes served or led
}

type waitState uint8

const (
	leading   waitState = iota // sending its own acquire, with what was queued
	queued                     // in the queue
	taken                      // in a batch in flight
	served                     // its decision is in d and err
	led                        // handed a batch to send, in lead
	abandoned                  // its caller's context ended while it was taken
)

func newCoalescer(limit int) *coalescer {
	return &coalescer{limit: limit, pool: sync.Pool{New: func() any { return &waiter{done: make(chan struct{}, 1)} }}}
}

// acquire runs the acquire c, alone or in a batch with others, and returns its decision.
func (co *coalescer) acquire(ctx context.Context, s *Store, c call) (keyed.Decision, error) {
	w := co.pool.Get().(*waiter)
	w.c = c
	co.mu.Lock()
	if co.busy < co.limit {
		co.busy++
		batch := append(co.take(), w)
		co.mu.Unlock()
		return co.finish(w, co.send(ctx, s, w, batch))
	}
	w.state = queued
	co.queue = append(co.queue, w)
	co.mu.Unlock()
	select {
	case <-w.done:
	case <-ctx.Done():
		if co.leave(w) {
			return keyed.Decision{}, c.fail(context.Cause(ctx))
		}
		<-w.done
	}
	if w.state == led { // read without the mutex: done was signalled after the write
		return co.finish(w, co.send(ctx, s, w, w.lead))
	}
	return co.finish(w, true)
}

// leave withdraws w, whose caller's context ended, and reports whether it did: a queued acquire
// leaves the queue unsent; one already sent is abandoned, and may have been applied. An acquire
// already served or handed a batch to send stays, for its caller to finish.
func (co *coalescer) leave(w *waiter) bool {
	co.mu.Lock()
	defer co.mu.Unlock()
	switch w.state {
	case queued:
		for i, q := range co.queue {
			if q == w {
				co.queue = append(co.queue[:i], co.queue[i+1:]...)
				break
			}
		}
		co.pool.Put(w)
		return true
	case taken:
		w.state = abandoned // never pooled: the batch in flight still writes its decision
		return true
	}
	return false
}

// finish returns w's decision and gives w back to the pool, when keep says its caller owns it.
func (co *coalescer) finish(w *waiter, keep bool) (keyed.Decision, error) {
	d, err := w.d, w.err
	if keep {
		*w = waiter{done: w.done}
		co.pool.Put(w)
	}
	return d, err
}

// take empties the queue, returning what it held, marked taken.
func (co *coalescer) take() []*waiter {
	q := co.queue
	co.queue = nil
	for _, w := range q {
		w.state = taken
	}
	return q
}

// send sends batch, which holds w, in one round trip, delivers each decision, and hands the
// queue that formed meanwhile to one of its callers, or frees the round trip. It reports true.
func (co *coalescer) send(ctx context.Context, s *Store, w *waiter, batch []*waiter) bool {
	if len(batch) == 1 {
		w.d, w.err = w.c.decision(s.exec(ctx, w.c))
	} else {
		b := newBatch(s, len(batch))
		for i, x := range batch {
			b.calls[i] = x.c
		}
		b.send(context.WithoutCancel(ctx)) // a batch is not one caller's to cancel
		for i, x := range batch {
			x.d, x.err = b.out[i], b.errs[i]
		}
	}
	co.mu.Lock()
	defer co.mu.Unlock()
	for _, x := range batch {
		if x != w && x.state == taken {
			x.state = served
			x.done <- struct{}{}
		}
	}
	next := co.take()
	if len(next) == 0 {
		co.busy--
		return true
	}
	next[0].state, next[0].lead = led, next
	next[0].done <- struct{}{}
	return true
}
