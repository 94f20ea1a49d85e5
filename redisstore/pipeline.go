package redisstore

import (
	"context"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/redis/go-redis/v9"
)

// Pending is a check queued on a pipeline. Its Decision is ready once the pipeline has run.
//
// The zero Pending is not usable: get one from QueueAcquire or QueuePeek.
type Pending struct {
	s   *Store
	c   call
	cmd *redis.Cmd
	err error
}

// QueueAcquire queues Acquire(ctx, r) on pipe, to share one round trip with other checks and
// commands. Run the pipeline, then read the Pending's Decision. An invalid request queues
// nothing. r.Key is copied.
func (s *Store) QueueAcquire(ctx context.Context, pipe redis.Pipeliner, r keyed.Request) *Pending {
	pd := s.queue(ctx, pipe, opAcquire, r)
	return &pd
}

// QueuePeek queues Peek(ctx, r) on pipe, as QueueAcquire does.
func (s *Store) QueuePeek(ctx context.Context, pipe redis.Pipeliner, r keyed.Request) *Pending {
	pd := s.queue(ctx, pipe, opPeek, r)
	return &pd
}

func (s *Store) queue(ctx context.Context, pipe redis.Pipeliner, op string, r keyed.Request) Pending {
	c, err := s.call(op, r)
	if err != nil {
		return Pending{s: s, err: err}
	}
	return Pending{s: s, c: c, cmd: s.script.EvalSha(ctx, pipe, c.keys(), c.argv(s.minTTL)...)}
}

// Decision returns the queued check's decision, or its error. If the server did not hold the
// script (after a SCRIPT FLUSH, a restart or a failover), Decision sends it once, with ctx, as an
// EVAL of this one check; otherwise it makes no call.
func (p *Pending) Decision(ctx context.Context) (keyed.Decision, error) {
	if p.err != nil {
		return keyed.Decision{}, p.err
	}
	if noScript(p.cmd.Err()) {
		p.cmd = p.s.script.Eval(ctx, p.s.client, p.c.keys(), p.c.argv(p.s.minTTL)...)
	}
	return p.c.decision(p.cmd)
}
