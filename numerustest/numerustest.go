// Package numerustest checks that a [numerus.Limiter] obeys the laws that every limiter must, in
// the spirit of testing/fstest and testing/slogtest. Whoever writes a limiter calls [Run] from a
// test; each law runs as a subtest of property-based checks (pgregory.net/rapid) over random
// timelines, and a failure names the law, the debits that broke it and the limiter's String.
//
//	func TestQuota(t *testing.T) {
//		numerustest.Run(t, func() numerus.Limiter { return NewQuota(3) },
//			numerustest.WithSpan(6*time.Hour))
//	}
//
// Every limiter of package numerus, combinators included, passes every law, except [Split] for Or
// and AnyOf (see below).
//
// # Timelines
//
// A check builds a value by debiting a fresh one, made by newLimiter, at a random sequence of
// instants from the start ([WithStart], 2026-01-01 UTC by default). Each instant moves from the
// previous one by a step drawn from a mix scaled to the span ([WithSpan], one second by default):
// zero, a nanosecond either way, a small fraction of the span, up to a span forward or half a span
// backward, and one to four spans. Costs run from 1 to [WithMaxCost] (3 by default). Below, "the
// value" is the result, "at" is an instant near the end of its timeline, "L" is the latest instant
// at which the timeline admitted a debit, and an answer is what DebitN returns: whether it
// admitted the debit and, if not, from when it would. Two limiters "decide alike" when they give
// the same answers and the same Status along a random sequence of further debits, each limiter
// following its own admitted results.
//
// # Laws
//
//   - [Determinism]: two values built by the same debits decide alike, and so does one value
//     asked twice. A limiter must not read the clock or hidden state.
//   - [Immutability]: debiting a value does not change it. Its answers along one sequence of
//     debits are the same before and after another sequence ran from it, even when the two run
//     interleaved (they branch from the same value).
//   - [Refusal]: a refusal changes nothing: the value it returns and the receiver both decide as
//     the receiver did before the refused debit.
//   - [Tightness]: a refusal at at that answers DebitableFrom(f) has f after at; the same debit on
//     the same value is admitted at f and refused at f − 1ns.
//   - [Waiting]: a refusal at at that answers DebitableFrom(f) refuses the same debit at every
//     instant from at to f, f excluded, with the same answer f.
//   - [NeverFinal]: a refusal that answers Never refuses the same debit, with Never, at every later
//     instant (without other debits): Never is not a long wait.
//   - [OutOfOrder]: an instant t earlier than L is no better than L. If the debit is admitted at t,
//     it is admitted at L; if it is refused at L, it is refused at t with an answer no earlier than
//     the answer at L. Each algorithm of package numerus treats t as L and answers exactly as
//     at L.
//   - [TimeRule]: a whole timeline that steps back decides, at every debit, as the same timeline
//     with each instant raised to the latest instant admitted at so far: the same decisions, the
//     same answers to refusals and the same Status. A composite must keep it as a whole: an Or
//     that hands an earlier instant to a child that took no part in its latest admission lets
//     that child free capacity early.
//   - [Growth]: capacity does not shrink as time passes: a debit admitted at at is admitted at
//     every later instant (without other debits). And relies on it to find its answer in one
//     round; a limiter that closes at certain hours breaks it.
//   - [Cost]: answers are monotone in the cost: if DebitN(at, c) is admitted, so is every smaller
//     cost; if it is refused, every larger cost is refused with an answer no earlier. And an
//     admitted debit never adds capacity: from at on, the result admits nothing the receiver
//     would refuse, and answers no earlier than the receiver.
//   - [Split]: DebitN(at, a+b) is admitted exactly when DebitN(at, a) and then DebitN(at, b) on its
//     result are, and the two results then decide alike. Or and AnyOf break it on purpose: they
//     charge every child that admits, so a debit of a may charge a child that a+b would not.
//   - [StatusMatch]: Status(at) has 0 ≤ Remaining ≤ Limit, a Full that is not before at, and
//     Remaining ≥ c exactly when DebitN(at, c) is admitted, for every cost c from 1 to the
//     maximum cost.
//   - [FullStatus]: at the instant f that Status(at).Full names, Status(f) has Remaining equal to
//     Limit and Full equal to f, and so has every later instant (without other debits).
//
// A limiter that documents that it breaks a law skips it with [Skip]; the subtest then reports
// itself as skipped.
package numerustest

import (
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/numerus-closus/numerus"
)

// Law names one law of the kit; its string is the name of its subtest.
type Law string

// The laws that Run checks, in the order it checks them. The package documentation states each.
const (
	Determinism  Law = "determinism"
	Immutability Law = "immutability"
	Refusal      Law = "refusal"
	Tightness    Law = "tightness"
	Waiting      Law = "waiting"
	NeverFinal   Law = "never"
	OutOfOrder   Law = "out-of-order"
	TimeRule     Law = "time-rule"
	Growth       Law = "growth"
	Cost         Law = "cost"
	Split        Law = "split"
	StatusMatch  Law = "status"
	FullStatus   Law = "full"
)

// laws maps each law to its check, in order.
var laws = []struct {
	law   Law
	check func(*rapid.T, env)
}{
	{Determinism, determinism},
	{Immutability, immutability},
	{Refusal, refusal},
	{Tightness, tightness},
	{Waiting, waiting},
	{NeverFinal, neverFinal},
	{OutOfOrder, outOfOrder},
	{TimeRule, timeRule},
	{Growth, growth},
	{Cost, cost},
	{Split, split},
	{StatusMatch, statusMatch},
	{FullStatus, fullStatus},
}

// Laws returns every law, in the order Run checks them.
func Laws() []Law {
	out := make([]Law, len(laws))
	for i, l := range laws {
		out[i] = l.law
	}
	return out
}

// An Option adjusts Run. The zero set of options checks every law with costs 1 to 3 over
// timelines scaled to one second from 2026-01-01 UTC.
type Option interface{ apply(*config) }

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithMaxCost makes Run debit costs from 1 to n (at least 1). Use a cost above the capacity of
// the limiter to check its Never answers.
func WithMaxCost(n int64) Option {
	return optionFunc(func(c *config) { c.maxCost = max(n, 1) })
}

// WithSpan scales the steps between the instants of a timeline to d: use the period of the
// limiter's policy (its window, or the time to refill it), so that timelines both exhaust it and
// let it recover. A span below 1ns counts as 1ns and one above 50 years as 50 years.
func WithSpan(d time.Duration) Option {
	return optionFunc(func(c *config) { c.span = min(max(d, 1), maxSpan) })
}

// WithStart starts every timeline at t instead of 2026-01-01 UTC.
func WithStart(t time.Time) Option {
	return optionFunc(func(c *config) { c.start = t })
}

// Skip leaves out the given laws, for a limiter that documents that it breaks them.
func Skip(laws ...Law) Option {
	return optionFunc(func(c *config) {
		for _, l := range laws {
			c.skip[l] = true
		}
	})
}

const maxSpan = 50 * 365 * 24 * time.Hour // four spans must fit in a Duration

type config struct {
	maxCost int64
	span    time.Duration
	start   time.Time
	skip    map[Law]bool
}

// env is what a law's check needs: the configuration, the constructor and the generators.
type env struct {
	config
	newLimiter func() numerus.Limiter
	steps      *rapid.Generator[time.Duration] // from one instant to the next
	costs      *rapid.Generator[int64]
	debitGen   *rapid.Generator[debit]
	laterGen   *rapid.Generator[int64] // ns from an instant to a later one
}

// Run checks, one subtest per law, that the limiters newLimiter makes obey the laws of the
// package documentation. newLimiter must return a fresh limiter of the same policy at each call;
// it may be called from parallel subtests when the caller runs them so.
func Run(t *testing.T, newLimiter func() numerus.Limiter, opts ...Option) {
	t.Helper()
	c := config{maxCost: 3, span: time.Second, start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		skip: map[Law]bool{}}
	for _, o := range opts {
		o.apply(&c)
	}
	e := newEnv(c, newLimiter)
	for _, l := range laws {
		t.Run(string(l.law), func(t *testing.T) {
			if c.skip[l.law] {
				t.Skip("skipped by option")
			}
			rapid.Check(t, func(rt *rapid.T) { l.check(rt, e) })
		})
	}
}
