package numerus_test

import (
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/numerustest"
)

// kit is one limiter policy run through the conformance kit.
type kit struct {
	name string
	new  func() numerus.Limiter
	opts []numerustest.Option
}

func must(l numerus.Limiter, err error) func() numerus.Limiter {
	numerus.Must(l, err)
	return func() numerus.Limiter { return numerus.Must(l, err) }
}

// builtins returns every algorithm at several parameter sets: uneven rates, sizes of 1, costs
// above the capacity (Never), windows from nanoseconds to days.
func builtins() []kit {
	span := numerustest.WithSpan
	cost := numerustest.WithMaxCost
	return []kit{
		{"gcra/3per1s/burst2", must(numerus.GCRA(numerus.PerSecond(3), 2)), opts(span(time.Second))},
		{"gcra/1per1ns/burst1", must(numerus.GCRA(numerus.Every(1), 1)), opts(span(8), cost(2))},
		{"gcra/2per1ns/burst3", must(numerus.GCRA(numerus.Per(2, 1), 3)), opts(span(4))},
		{"gcra/7per1d/burst5", must(numerus.GCRA(numerus.Per(7, 24*time.Hour), 5)), opts(span(24*time.Hour), cost(6))},
		{"token/3per1s/cap2", must(numerus.TokenBucket(2, numerus.PerSecond(3))), opts(span(time.Second))},
		{"token/5per7ms/cap4", must(numerus.TokenBucket(4, numerus.Per(5, 7*time.Millisecond))), opts(span(7*time.Millisecond), cost(5))},
		{"token/1per1h/cap1", must(numerus.TokenBucket(1, numerus.PerHour(1))), opts(span(time.Hour), cost(2))},
		{"leaky/3per1s/cap2", must(numerus.LeakyBucket(2, numerus.PerSecond(3))), opts(span(time.Second))},
		{"leaky/10per1m/cap7", must(numerus.LeakyBucket(7, numerus.PerMinute(10))), opts(span(time.Minute), cost(8))},
		{"finite/1", must(numerus.FiniteBucket(1)), opts(cost(2))},
		{"finite/5", must(numerus.FiniteBucket(5)), opts(cost(3))},
		{"fixed/1m/3", must(numerus.FixedWindow(time.Minute, 3, t0.Add(7*time.Second))), opts(span(time.Minute), cost(4))},
		{"fixed/3ns/1", must(numerus.FixedWindow(3, 1, t0)), opts(span(3), cost(2))},
		{"sliding/1m/3", must(numerus.SlidingWindow(time.Minute, 3)), opts(span(time.Minute), cost(4))},
		{"sliding/5ns/4", must(numerus.SlidingWindow(5, 4)), opts(span(5))},
		{"buckets/1m/6/4", must(numerus.SlidingWindowBucketed(time.Minute, 6, 4)), opts(span(time.Minute), cost(5))},
		{"buckets/9ns/3/2", must(numerus.SlidingWindowBucketed(9, 3, 2)), opts(span(9))},
		{"count/1m/10", must(numerus.SlidingWindowCount(time.Minute, 10, t0)), opts(span(time.Minute), cost(11))},
		{"count/7ns/3", must(numerus.SlidingWindowCount(7, 3, t0.Add(3))), opts(span(7), cost(4))},
		{"count/1d/1", must(numerus.SlidingWindowCount(24*time.Hour, 1, t0)), opts(span(24*time.Hour), cost(2))},
		{"allow", numerus.AlwaysAllow, nil},
		{"deny", numerus.AlwaysDeny, nil},
	}
}

func opts(o ...numerustest.Option) []numerustest.Option { return o }

// combined returns combinators over built-ins, nested. Or and AnyOf skip the Split law: they
// charge every child that admits, so a debit of a may charge a child that a debit of a+b would not.
func combined() []kit {
	gcra := must(numerus.GCRA(numerus.PerSecond(3), 2))
	fixed := must(numerus.FixedWindow(time.Second, 2, t0))
	sliding := must(numerus.SlidingWindow(time.Second, 3))
	count := must(numerus.SlidingWindowCount(time.Second, 4, t0))
	finite := must(numerus.FiniteBucket(4))
	span, noSplit := numerustest.WithSpan(time.Second), numerustest.Skip(numerustest.Split)
	return []kit{
		{"and/gcra/fixed", func() numerus.Limiter { return numerus.And(gcra(), fixed()) }, opts(span)},
		{"and/sliding/allow", func() numerus.Limiter { return numerus.And(sliding(), numerus.AlwaysAllow()) }, opts(span)},
		{"and/count/deny", func() numerus.Limiter { return numerus.And(count(), numerus.AlwaysDeny()) }, opts(span)},
		{"or/gcra/fixed", func() numerus.Limiter { return numerus.Or(gcra(), fixed()) }, opts(span, noSplit)},
		{"or/sliding/deny", func() numerus.Limiter { return numerus.Or(sliding(), numerus.AlwaysDeny()) }, opts(span, noSplit)},
		{"allof/4", func() numerus.Limiter { return numerus.AllOf(gcra(), fixed(), sliding(), count()) },
			opts(span, numerustest.WithMaxCost(5))},
		{"anyof/3", func() numerus.Limiter { return numerus.AnyOf(fixed(), sliding(), finite()) }, opts(span, noSplit)},
		{"and/or/nested", func() numerus.Limiter {
			return numerus.And(numerus.Or(gcra(), finite()), numerus.AllOf(sliding(), count()))
		}, opts(span, noSplit)},
		{"or/and/nested", func() numerus.Limiter {
			return numerus.Or(numerus.And(fixed(), sliding()), numerus.AnyOf(count(), numerus.AllOf(gcra(), finite())))
		}, opts(span, noSplit)},
		{"allof/empty", func() numerus.Limiter { return numerus.AllOf() }, nil},
		{"anyof/one", func() numerus.Limiter { return numerus.AnyOf(sliding()) }, opts(span)},
	}
}

// TestConformance runs the numerustest kit on every built-in limiter and combinator.
func TestConformance(t *testing.T) {
	for _, k := range append(builtins(), combined()...) {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			numerustest.Run(t, k.new, k.opts...)
		})
	}
}
