package redisstore

import (
	"context"
	"fmt"

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

// QueueAcquire queues Acquire(ctx, r) on pipe as one EVALSHA, so that many checks share one
// round trip with each other and with the caller's own commands. Run the pipeline (pipe.Exec),
// then read the Pending's Decision. An invalid request queues nothing: its Decision returns the
// error. r.Key is copied: its buffer may be reused at once.
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
	return Pending{s: s, c: c, cmd: s.script.EvalSha(ctx, pipe, c.keys(), c.args...)}
}

// Decision returns the queued check's decision, or its error. If the server did not hold the
// script (after a SCRIPT FLUSH, a restart or a failover), Decision sends it once, with ctx, as an
// EVAL of this one check; otherwise it makes no call.
func (p *Pending) Decision(ctx context.Context) (keyed.Decision, error) {
	if p.err != nil {
		return keyed.Decision{}, p.err
	}
	if noScript(p.cmd.Err()) {
		p.cmd = p.s.script.Eval(ctx, p.s.client, p.c.keys(), p.c.args...)
	}
	return p.c.decision(p.cmd)
}

// AcquireBatch runs Acquire for every request in one round trip (a pipeline; on a cluster, one
// per node, in parallel), and returns the decisions in order. If the server did not hold the
// script, the checks it refused are sent again as EVALs in a second round trip. If any check
// fails, the error reports how many did and wraps the first failure; the decision of a failed
// check is the zero Decision (a refusal). [Requests] builds the requests of a keyed.Limiter's
// subjects.
func (s *Store) AcquireBatch(ctx context.Context, reqs []keyed.Request) ([]keyed.Decision, error) {
	pending := make([]Pending, len(reqs))
	pipe := s.client.Pipeline()
	for i, r := range reqs {
		pending[i] = s.queue(ctx, pipe, opAcquire, r)
	}
	_, _ = pipe.Exec(ctx) // each command's own error is read below
	s.resend(ctx, pending)
	out := make([]keyed.Decision, len(reqs))
	var first error
	failed, at := 0, 0
	for i := range pending {
		d, err := pending[i].Decision(ctx)
		if err != nil {
			if failed == 0 {
				first, at = err, i
			}
			failed++
		}
		out[i] = d
	}
	if failed > 0 {
		return out, fmt.Errorf("redisstore: %d of %d checks failed, first check %d: %w", failed, len(reqs), at, first)
	}
	return out, nil
}

// resend sends again, as EVALs in one pipeline, the checks the server refused for want of the
// script.
func (s *Store) resend(ctx context.Context, pending []Pending) {
	var pipe redis.Pipeliner
	for i := range pending {
		pd := &pending[i]
		if pd.err == nil && noScript(pd.cmd.Err()) {
			if pipe == nil {
				pipe = s.client.Pipeline()
			}
			pd.cmd = s.script.Eval(ctx, pipe, pd.c.keys(), pd.c.args...)
		}
	}
	if pipe != nil {
		_, _ = pipe.Exec(ctx)
	}
}

// Requests returns the requests that take cost tokens for each subject under l's policy, at the
// keys l frames (its namespace and codec), for AcquireBatch or the Queue methods. Their At is
// zero, so the server's clock decides; set At on each to send the caller's time instead.
func Requests[S any](l keyed.Limiter[S], cost int64, subjects ...S) []keyed.Request {
	reqs := make([]keyed.Request, len(subjects))
	p := l.Policy()
	for i, subject := range subjects {
		reqs[i] = keyed.Request{Key: []byte(l.Key(subject)), Policy: p, Cost: cost}
	}
	return reqs
}
