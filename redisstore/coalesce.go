package redisstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/numerus-closus/numerus/keyed"
)

// A coalescer merges the acquires of concurrent callers into batch script calls. At most limit
// round trips of acquires are in flight at once; an acquire that finds them all busy waits in a
// queue, and when a round trip ends, the caller that sent it hands the whole queue to one of the
// waiting callers, which sends it as one batch and hands on the queue that formed meanwhile. The
// callers do all the work: there is no goroutine of its own.
//
// A serial caller always finds a round trip free and sends its acquire alone, as it would
// without coalescing. Under load, a batch costs the server far less than as many script calls
// (one command to parse, run and answer instead of one each), so throughput rises with the
// number of callers instead of stopping at the server's speed for single calls.
type coalescer struct {
	limit int
	mu    sync.Mutex
	busy  int       // round trips in flight, or handed to a waiter to send
	queue []*waiter // acquires waiting for the next round trip, in arrival order
	pool  sync.Pool // of *waiter
}

// A waiter is one caller's queued acquire. Its state and lead are guarded by the coalescer's
// mutex. Its decision (d, err) is written by the caller that sends its batch, before it signals
// done, and read by its own caller after receiving from done.
type waiter struct {
	c        call
	deadline time.Time // its caller's context's, or zero for none
	d        keyed.Decision
	err      error
	state    waitState
	lead     []*waiter     // the batch this waiter was handed to send (state led)
	done     chan struct{} // signalled once, when the state becomes served or led
}

type waitState uint8

const (
	queued    waitState = iota // in the queue
	taken                      // in a batch handed to a waiter, not yet sent
	sent                       // in a batch in flight
	served                     // its decision is in d and err
	led                        // handed a batch to send, in lead
	abandoned                  // its caller's context ended after it left the queue
)

// withCause returns err, matching too the cause of ctx when ctx is done: a check that failed
// because its deadline passed (a read cut short at it) says so.
func withCause(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); err != nil && cause != nil && !errors.Is(err, cause) {
		return fmt.Errorf("%w (%w)", err, cause)
	}
	return err
}

// errInterrupted is the error of the acquires of a batch whose sender panicked.
var errInterrupted = errors.New("redisstore: the call sending this acquire's batch panicked")

func newCoalescer(limit int) *coalescer {
	return &coalescer{limit: limit, pool: sync.Pool{New: func() any { return &waiter{done: make(chan struct{}, 1)} }}}
}

// acquire runs the acquire c, alone or in a batch with others, and returns its decision.
func (co *coalescer) acquire(ctx context.Context, s *Store, c call) (keyed.Decision, error) {
	co.mu.Lock()
	if co.busy < co.limit { // then the queue is empty: a queue forms only when all are busy
		co.busy++
		co.mu.Unlock()
		defer co.end()
		d, err := c.decision(s.exec(ctx, c))
		return d, withCause(ctx, err)
	}
	w := co.pool.Get().(*waiter)
	w.c, w.state = c, queued
	w.deadline, _ = ctx.Deadline()
	co.queue = append(co.queue, w)
	co.mu.Unlock()
	select {
	case <-w.done:
	case <-ctx.Done():
		if co.leave(w) {
			return keyed.Decision{}, c.fail(context.Cause(ctx))
		}
		<-w.done // served or led meanwhile
	}
	if w.state == led { // read without the mutex: done was signalled after the write
		d, err := co.lead(ctx, s, w)
		return d, withCause(ctx, err)
	}
	d, err := co.finish(w)
	return d, withCause(ctx, err)
}

// leave withdraws w, whose caller's context ended, and reports whether it did. An acquire not yet
// sent is never sent; one in flight is abandoned, and may have been applied. An acquire already
// served or handed a batch to send stays, for its caller to finish.
func (co *coalescer) leave(w *waiter) bool {
	co.mu.Lock()
	defer co.mu.Unlock()
	switch w.state {
	case queued:
		co.queue = slices.DeleteFunc(co.queue, func(q *waiter) bool { return q == w })
		co.put(w)
		return true
	case taken, sent:
		w.state = abandoned // never pooled: the batch holds it until it is sent or dropped
		return true
	}
	return false
}

// lead sends the batch handed to w, unless w's caller is gone: it then hands the batch on to the
// next of its acquires, or drops it.
func (co *coalescer) lead(ctx context.Context, s *Store, w *waiter) (keyed.Decision, error) {
	co.mu.Lock()
	batch := slices.DeleteFunc(w.lead, func(x *waiter) bool { return x.state == abandoned || x == w })
	if err := context.Cause(ctx); err != nil {
		co.handOn(batch)
		co.mu.Unlock()
		c := w.c
		co.put(w)
		return keyed.Decision{}, c.fail(err)
	}
	batch = append(batch, w)
	for _, x := range batch {
		x.state, x.err = sent, errInterrupted // until the round trip answers
	}
	co.mu.Unlock()
	defer co.deliver(batch, w)
	b := newBatch(s, len(batch))
	for i, x := range batch {
		b.calls[i] = x.c
	}
	// A batch is not one caller's to cancel, but its sender must not wait past its own deadline,
	// the latest of the batch's (see handOn): those of earlier deadlines have left by then.
	bctx := context.WithoutCancel(ctx)
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		bctx, cancel = context.WithDeadline(bctx, dl)
		defer cancel()
	}
	b.send(bctx)
	for i, x := range batch {
		x.d, x.err = b.out[i], b.errs[i]
	}
	return w.d, w.err
}

// deliver signals the decision of each acquire of batch but its sender's, w, and hands on the
// queue. It runs even if sending panicked: each acquire then fails with errInterrupted.
func (co *coalescer) deliver(batch []*waiter, w *waiter) {
	co.mu.Lock()
	for _, x := range batch {
		if x != w && x.state == sent {
			x.state = served
			x.done <- struct{}{}
		}
	}
	co.handOn(nil)
	co.mu.Unlock()
	co.put(w)
}

// end ends the round trip of an acquire sent alone.
func (co *coalescer) end() {
	co.mu.Lock()
	co.handOn(nil)
	co.mu.Unlock()
}

// handOn ends a round trip: it hands batch, or if empty the queue, to one of its acquires, to
// send next, or frees the round trip when there is none. The caller holds the mutex.
func (co *coalescer) handOn(batch []*waiter) {
	if len(batch) == 0 {
		batch, co.queue = co.queue, nil
	}
	if len(batch) == 0 {
		co.busy--
		return
	}
	for _, x := range batch {
		x.state = taken
	}
	next := latest(batch)
	next.state, next.lead = led, batch
	next.done <- struct{}{}
}

// latest returns the acquire of batch whose caller's deadline is the latest (none is the
// latest), to send it: no caller of the batch then waits for it past its own deadline, and
// every one whose deadline has not passed gets its decision.
func latest(batch []*waiter) *waiter {
	next := batch[0]
	for _, x := range batch[1:] {
		if !next.deadline.IsZero() && (x.deadline.IsZero() || x.deadline.After(next.deadline)) {
			next = x
		}
	}
	return next
}

// finish returns the decision of w, served, and gives w back to the pool.
func (co *coalescer) finish(w *waiter) (keyed.Decision, error) {
	d, err := w.d, w.err
	co.put(w)
	return d, err
}

// put gives w back to the pool, cleared. Its done channel is empty: each signal is received.
func (co *coalescer) put(w *waiter) {
	*w = waiter{done: w.done}
	co.pool.Put(w)
}
