package schedule

import (
	"context"
	"errors"
	"iter"
	"time"
)

// An Option changes how Drain and DrainChan treat the errors of jobs.
type Option interface{ apply(*drainConfig) }

type drainConfig struct{ keepGoing bool }

type optionFunc func(*drainConfig)

func (f optionFunc) apply(c *drainConfig) { f(c) }

// ContinueOnError makes a drain run every job even when some fail, and return the errors of all
// that failed, in the order the jobs ran: one error as it is, several joined with errors.Join. Without it, a drain stops at the
// first job that fails and returns that job's error as it is.
func ContinueOnError() Option { return optionFunc(func(c *drainConfig) { c.keepGoing = true }) }

// Drain runs do for each job of jobs, one at a time and in order, each after taking one token from
// g: at the pace the gate allows. It passes do the instant the token was charged at, which
// Gate.Take returns. It pulls a job before taking its token, so an exhausted source consumes
// nothing. A job that fails has consumed its token.
//
// Job errors follow the policy the options choose: by default Drain stops at the first and returns
// it; with ContinueOnError it runs them all and returns them joined. Whatever the policy, Drain
// stops as soon as a take fails (ctx done, ErrNever, a *DeadlineError) and returns that error,
// joined after the job errors collected so far; the job it was taking for does not run.
//
// Several goroutines may drain through one gate: they share its pace, and its pauses. A job may
// call g.RetryAfter to hold every drain back, as when an upstream answers "slow down".
func Drain[J any](ctx context.Context, g *Gate, jobs iter.Seq[J], do func(context.Context, J, time.Time) error, opts ...Option) error {
	return join(drain(ctx, g, jobs, do, opts))
}

// drain runs the jobs and returns the errors Drain reports.
func drain[J any](ctx context.Context, g *Gate, jobs iter.Seq[J], do func(context.Context, J, time.Time) error, opts []Option) []error {
	var cfg drainConfig
	for _, o := range opts {
		o.apply(&cfg)
	}
	var errs []error
	for j := range jobs {
		at, err := g.Take(ctx, 1)
		if err != nil {
			return append(errs, err)
		}
		if err := do(ctx, j, at); err != nil {
			errs = append(errs, err)
			if !cfg.keepGoing {
				return errs
			}
		}
	}
	return errs
}

// join returns nil, the one error as it is, or several joined.
func join(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

// DrainChan is Drain over the jobs received from a channel, until it is closed or ctx is done.
// Several goroutines may drain one channel through one gate: a pool of workers at one pace. A job
// received while ctx is done, or whose take fails, does not run and is not sent back.
func DrainChan[J any](ctx context.Context, g *Gate, jobs <-chan J, do func(context.Context, J, time.Time) error, opts ...Option) error {
	var done error
	received := func(yield func(J) bool) {
		for {
			select {
			case <-ctx.Done():
				done = ctx.Err()
				return
			case j, ok := <-jobs:
				if !ok || !yield(j) {
					return
				}
			}
		}
	}
	errs := drain(ctx, g, received, do, opts)
	if done != nil {
		errs = append(errs, done)
	}
	return join(errs)
}
