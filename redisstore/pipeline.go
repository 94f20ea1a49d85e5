package redisstore

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// Pending is a check queued on a pipeline. Its Decision is ready once the pipeline has run.
//
// The zero Pending is not usable: get one from QueueAcquire or QueuePeek.
type Pending struct {
	s   *Store
	req request
	cmd *redis.Cmd
	err error
}

// QueueAcquire queues Acquire(ctx, p, subject, cost) on pipe as one EVALSHA, so that many checks
// share one round trip. Run the pipeline (pipe.Exec), then read the Pending's Decision. An
// invalid check queues nothing: its Decision returns the error.
func (s *Store) QueueAcquire(ctx context.Context, pipe redis.Pipeliner, p Policy, subject string, cost int64) *Pending {
	return s.queue(ctx, pipe, opAcquire, p, subject, cost)
}

// QueuePeek queues Peek(ctx, p, subject) on pipe, as QueueAcquire does.
func (s *Store) QueuePeek(ctx context.Context, pipe redis.Pipeliner, p Policy, subject string) *Pending {
	return s.queue(ctx, pipe, opPeek, p, subject, 1)
}

func (s *Store) queue(ctx context.Context, pipe redis.Pipeliner, op string, p Policy, subject string, cost int64) *Pending {
	r, err := s.request(op, p, subject, cost)
	if err != nil {
		return &Pending{s: s, err: err}
	}
	return &Pending{s: s, req: r, cmd: s.script.EvalSha(ctx, pipe, r.keys(), r.args...)}
}

// Decision returns the queued check's decision, or its error. If the server did not hold the
// script (after a SCRIPT FLUSH, a restart or a failover), Decision sends it once, with ctx, as an
// EVAL of this one check; otherwise it makes no call.
func (p *Pending) Decision(ctx context.Context) (Decision, error) {
	if p.err != nil {
		return Decision{}, p.err
	}
	if noScript(p.cmd.Err()) {
		p.cmd = p.s.script.Eval(ctx, p.s.client, p.req.keys(), p.req.args...)
	}
	return p.req.decision(p.cmd, p.s)
}

// Check is one subject's check in a batch: Cost tokens for Subject.
type Check struct {
	Subject string
	Cost    int64
}

// AcquireBatch runs Acquire for every check under policy p in one round trip (a pipeline; on a
// cluster, one per node), and returns the decisions in order. If the server did not hold the
// script, the checks it refused are sent again as EVALs in a second round trip. If any check
// fails, the error reports how many did and wraps the first failure; the decision of a failed
// check is the zero Decision (a refusal).
func (s *Store) AcquireBatch(ctx context.Context, p Policy, checks []Check) ([]Decision, error) {
	pending := make([]*Pending, len(checks))
	pipe := s.client.Pipeline()
	for i, c := range checks {
		pending[i] = s.QueueAcquire(ctx, pipe, p, c.Subject, c.Cost)
	}
	_, _ = pipe.Exec(ctx) // each command's own error is read below
	s.resend(ctx, pending)
	out := make([]Decision, len(checks))
	var first error
	failed, at := 0, 0
	for i, pd := range pending {
		d, err := pd.Decision(ctx)
		if err != nil {
			if failed == 0 {
				first, at = err, i
			}
			failed++
		}
		out[i] = d
	}
	if failed > 0 {
		return out, fmt.Errorf("redisstore: %d of %d checks failed, first check %d: %w", failed, len(checks), at, first)
	}
	return out, nil
}

// resend sends again, as EVALs in one pipeline, the checks the server refused for want of the
// script.
func (s *Store) resend(ctx context.Context, pending []*Pending) {
	var pipe redis.Pipeliner
	for _, pd := range pending {
		if pd.err == nil && noScript(pd.cmd.Err()) {
			if pipe == nil {
				pipe = s.client.Pipeline()
			}
			pd.cmd = s.script.Eval(ctx, pipe, pd.req.keys(), pd.req.args...)
		}
	}
	if pipe != nil {
		_, _ = pipe.Exec(ctx)
	}
}
