// Package numerustest checks that a [numerus.Limiter] obeys the laws that every limiter must, in
// the spirit of testing/fstest and testing/slogtest. Call [Run] from a test:
//
//	func TestQuota(t *testing.T) {
//		numerustest.Run(t, func() numerus.Limiter { return NewQuota(3) },
//			numerustest.WithSpan(6*time.Hour))
//	}
//
// Each law runs as a subtest of property-based checks (pgregory.net/rapid) over random
// timelines, and a failure names the law, the debits that broke it and the limiter's String.
// Every limiter of package numerus passes every law, but [Split] for Or and AnyOf.
//
// # Timelines
//
// A check debits a fresh limiter at random instants from [WithStart], stepping by zero, a
// nanosecond either way, fractions of the span ([WithSpan]) and up to four spans, forward and
// back, with costs from 1 to [WithMaxCost]. Below, "at" is an instant near the end of a
// timeline and "L" the latest instant it admitted at. Two limiters "decide alike" when they give
// the same answers and Status along a random sequence of further debits.
//
// # Laws
//
//   - [Determinism]: values built by the same debits decide alike, and so does one value asked
//     twice: no clock, no hidden state.
//   - [Immutability]: debiting a value does not change it, even when branches interleave.
//   - [Refusal]: a refusal changes nothing.
//   - [Tightness]: a refusal at at answering f has f after at; the same debit is admitted at f
//     and refused at f − 1ns.
//   - [Waiting]: that debit is refused, with the same answer f, at every instant from at to f.
//   - [NeverFinal]: a Never is refused with Never at every later instant.
//   - [OutOfOrder]: an instant earlier than L is no better than L.
//   - [TimeRule]: a timeline that steps back decides as the same timeline with each instant
//     raised to the latest admitted so far; a composite keeps this as a whole.
//   - [Growth]: a debit admitted at at is admitted at every later instant. And relies on it.
//   - [Cost]: answers are monotone in the cost, and an admitted debit never adds capacity.
//   - [Split]: DebitN(at, a+b) is admitted exactly when DebitN(at, a) and then DebitN(at, b)
//     are, and the results decide alike. Or and AnyOf break it on purpose: they charge every
//     child that admits.
//   - [StatusMatch]: Status(at) has 0 ≤ Remaining ≤ Limit, a Full not before at, and
//     Remaining ≥ c exactly when DebitN(at, c) is admitted.
//   - [FullStatus]: from the instant that Status(at).Full names on, Status has Remaining equal
//     to Limit and Full equal to the instant asked about.
//
// A limiter that documents that it breaks a law leaves it out with [Skip].
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
