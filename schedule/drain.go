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

// ContinueOnError makes a drain run every job even when some fail, and return the errors of
// those that failed, in order, joined with errors.Join when there are several.
func ContinueOnError() Option { return optionFunc(func(c *drainConfig) { c.keepGoing = true }) }

// Drain runs do for each job of jobs, in order, each after taking one token from g, and passes
// it the instant the token was charged; a job that fails has used its token. Drain stops at the
// first job error (or with ContinueOnError runs every job) and at once when a take fails,
// returning the errors joined. Several goroutines may drain through one gate.
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
