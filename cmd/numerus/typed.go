package main

import "github.com/numerus-closus/numerus/typed"

// This file builds the core's typed values for the shapes that cover most policies: one leaf, an
// And of two, and an And of three whose second and third are each a gcra, a window or a sliding
// log (as in "gcra 5/s burst 1 & sliding 100/m & sliding 1000/d"). The type of each is fixed
// when this is compiled, so the switches walk the leaves one at a time, each case instantiating
// the next step with one more type: typed.And[typed.GCRA, typed.And[typed.SlidingWindow,
// typed.SlidingWindow]] for that policy. Every shape is a type Go compiles, which is why the set
// is bounded; for the others the builders return nil, and a compiled typed.Policy decides. Each
// position has a switch of its own, because Go has no generic function values that one switch
// could hand its leaf's type to.

// shape is what remains of an And to build: the leaves not yet typed.
type shape struct{ rest []typed.Spec }

// leaf returns the fresh typed value of sp, a valid leaf of L's algorithm.
func leaf[L typed.Limiter[L]](sp typed.Spec) L {
	l, err := typed.FromSpec[L](sp)
	if err != nil {
		panic("numerus: " + err.Error()) // sp was validated: the switches are wrong
	}
	return l
}

// typedFactory returns the maker of typed values of sp, or nil if no shape here fits it.
func typedFactory(sp typed.Spec) func() limiter {
	switch {
	case len(sp.Of) == 0:
		return first(sp, shape{})
	case sp.Algo == typed.AlgoAnd && len(sp.Of) <= 3 && allLeaves(sp.Of):
		return first(sp.Of[0], shape{sp.Of[1:]})
	}
	return nil
}

func first(sp typed.Spec, s shape) func() limiter {
	switch sp.Algo {
	case typed.AlgoGCRA:
		return second(leaf[typed.GCRA](sp), s)
	case typed.AlgoToken:
		return second(leaf[typed.TokenBucket](sp), s)
	case typed.AlgoLeaky:
		return second(leaf[typed.LeakyBucket](sp), s)
	case typed.AlgoFinite:
		return second(leaf[typed.FiniteBucket](sp), s)
	case typed.AlgoWindow:
		return second(leaf[typed.FixedWindow](sp), s)
	case typed.AlgoSliding, typed.AlgoBuckets:
		return second(leaf[typed.SlidingWindow](sp), s)
	case typed.AlgoCount:
		return second(leaf[typed.SlidingWindowCount](sp), s)
	}
	return nil
}

func second[A typed.Limiter[A]](a A, s shape) func() limiter {
	switch len(s.rest) {
	case 0:
		return factory(a)
	case 1:
		return pair(a, s.rest[0])
	}
	sp := s.rest[0]
	switch sp.Algo {
	case typed.AlgoGCRA:
		return third(a, leaf[typed.GCRA](sp), s)
	case typed.AlgoWindow:
		return third(a, leaf[typed.FixedWindow](sp), s)
	case typed.AlgoSliding, typed.AlgoBuckets:
		return third(a, leaf[typed.SlidingWindow](sp), s)
	}
	return nil
}

func pair[A typed.Limiter[A]](a A, sp typed.Spec) func() limiter {
	switch sp.Algo {
	case typed.AlgoGCRA:
		return factory(typed.NewAnd(a, leaf[typed.GCRA](sp)))
	case typed.AlgoToken:
		return factory(typed.NewAnd(a, leaf[typed.TokenBucket](sp)))
	case typed.AlgoLeaky:
		return factory(typed.NewAnd(a, leaf[typed.LeakyBucket](sp)))
	case typed.AlgoFinite:
		return factory(typed.NewAnd(a, leaf[typed.FiniteBucket](sp)))
	case typed.AlgoWindow:
		return factory(typed.NewAnd(a, leaf[typed.FixedWindow](sp)))
	case typed.AlgoSliding, typed.AlgoBuckets:
		return factory(typed.NewAnd(a, leaf[typed.SlidingWindow](sp)))
	case typed.AlgoCount:
		return factory(typed.NewAnd(a, leaf[typed.SlidingWindowCount](sp)))
	}
	return nil
}

func third[A typed.Limiter[A], B typed.Limiter[B]](a A, b B, s shape) func() limiter {
	sp := s.rest[1]
	switch sp.Algo {
	case typed.AlgoGCRA:
		return factory(typed.NewAnd(a, typed.NewAnd(b, leaf[typed.GCRA](sp))))
	case typed.AlgoWindow:
		return factory(typed.NewAnd(a, typed.NewAnd(b, leaf[typed.FixedWindow](sp))))
	case typed.AlgoSliding, typed.AlgoBuckets:
		return factory(typed.NewAnd(a, typed.NewAnd(b, leaf[typed.SlidingWindow](sp))))
	}
	return nil
}
