package main

import (
	"cmp"
	"fmt"
	"slices"
)

// perCheckTime is the unit of a target on time: the median time of one check (sec/op divided by
// the batch size, for batched benchmarks).
const perCheckTime = "time/check"

// A target is a bound that an issue sets, on the ratio of two benchmarks or on one alone.
type target struct {
	issue int
	want  string  // the bound in the issue's words
	ours  string  // the benchmark measured
	base  string  // the benchmark compared against; empty for a bound on ours alone
	unit  string  // perCheckTime or a benchstat unit such as "allocs/op"
	max   float64 // met when ours/base (or ours alone) is at most max …
	below bool    // … or strictly below it
	floor string  // the Floor benchmark of the scenario's shape with no limiter's work, or ""
}

// A verdict is what a run says of a target.
type verdict string

const (
	met     verdict = "met"
	missed  verdict = "missed"
	pending verdict = "pending"
	// beyond is a target missed whose bound lies below its floor: the scenario's shape alone,
	// with no limiter's work, takes longer than the bound allows on the machine measured.
	beyond verdict = "missed, bound below the floor"
)

// targets lists the performance targets of issues 2 (core), 3 (typed), 5 (keyed) and 6 (Redis),
// named by the benchmarks that measure them, in the order of the issues.
func targets() []target {
	var ts []target
	for _, group := range []func(r string) []target{debitTargets, keyedTargets, redisTargets} {
		for _, r := range []string{"allow", "deny"} {
			ts = append(ts, group(r)...)
		}
	}
	ts = append(ts, target{
		issue: 2, want: "sliding log: n=10^6 within 1.5× of n=10^3",
		ours: "SlidingLog/lib=numerus-iface/n=1000000/result=allow",
		base: "SlidingLog/lib=numerus-iface/n=1000/result=allow", unit: perCheckTime, max: 1.5,
	})
	slices.SortStableFunc(ts, func(a, b target) int { return cmp.Compare(a.issue, b.issue) })
	return ts
}

// typedDebits are the typed algorithms the Debit benchmark runs besides GCRA (lib=numerus-typed),
// each as lib=numerus-typed-<name>, and the words their targets name them with.
var typedDebits = []struct{ lib, algo string }{
	{"numerus-typed-token", "token bucket"},
	{"numerus-typed-leaky", "leaky bucket"},
	{"numerus-typed-window", "fixed window"},
	{"numerus-typed-count", "sliding window counter"},
}

func debitTargets(r string) []target {
	debit := func(lib string) string { return "Debit/lib=" + lib + "/result=" + r }
	ts := []target{
		{issue: 2, want: "interface debit faster than x/time/rate AllowN(t, 1)",
			ours: debit("numerus-iface"), base: debit("xrate"), unit: perCheckTime, max: 1, below: true},
		{issue: 2, want: "interface debit: at most 1 alloc/op",
			ours: debit("numerus-iface"), unit: "allocs/op", max: 1},
		{issue: 3, want: "typed debit at least 8× faster than x/time/rate AllowN(t, 1)",
			ours: debit("numerus-typed"), base: debit("xrate"), unit: perCheckTime, max: 1.0 / 8},
		{issue: 3, want: "typed debit: 0 allocs/op",
			ours: debit("numerus-typed"), unit: "allocs/op", max: 0},
	}
	for _, d := range typedDebits {
		ts = append(ts,
			target{issue: 3, want: "typed " + d.algo + " debit at least 8× faster than x/time/rate AllowN(t, 1)",
				ours: debit(d.lib), base: debit("xrate"), unit: perCheckTime, max: 1.0 / 8},
			target{issue: 3, want: "typed " + d.algo + " debit: 0 allocs/op",
				ours: debit(d.lib), unit: "allocs/op", max: 0})
	}
	return append(ts, target{issue: 3, want: "And of three typed at most 3× one typed",
		ours: "AllOf3/lib=numerus-typed/result=" + r, base: debit("numerus-typed"), unit: perCheckTime, max: 3,
		floor: "Floor/case=and3/result=" + r})
}

func keyedTargets(r string) []target {
	var ts []target
	for _, m := range []struct {
		mode  string
		times float64
	}{{"parallel", 3}, {"serial", 1.5}} {
		keyed := func(lib string) string {
			return "Keyed/lib=" + lib + "/subjects=10000/mode=" + m.mode + "/result=" + r
		}
		for _, peer := range []string{"sethvargo", "throttled"} {
			ts = append(ts, target{issue: 5,
				want: fmt.Sprintf("memory store, 10,000 subjects, %s: at least %g× %s's throughput", m.mode, m.times, peer),
				ours: keyed("numerus"), base: keyed(peer), unit: perCheckTime, max: 1 / m.times,
				floor: "Floor/case=keyed/subjects=10000/mode=" + m.mode + "/result=" + r})
		}
		ts = append(ts, target{issue: 5, want: "memory store TryAcquire: 0 allocs/op",
			ours: keyed("numerus"), unit: "allocs/op", max: 0})
	}
	return ts
}

func redisTargets(r string) []target {
	redis := func(lib, mode string) string {
		return "Redis/lib=" + lib + "/subjects=10000/mode=" + mode + "/result=" + r
	}
	pipeline := "Redis/lib=numerus/subjects=10000/mode=pipeline/batch=100/result=" + r
	return []target{
		{issue: 6, want: "serial latency at most 1.0× redis_rate's",
			ours: redis("numerus", "serial"), base: redis("redis_rate", "serial"), unit: perCheckTime, max: 1},
		{issue: 6, want: "64 goroutines: at least redis_rate's throughput",
			ours: redis("numerus", "goroutines64"), base: redis("redis_rate", "goroutines64"), unit: perCheckTime, max: 1},
		{issue: 6, want: "pipelined batch of 100: at least 10× serial redis_rate's throughput",
			ours: pipeline, base: redis("redis_rate", "serial"), unit: perCheckTime, max: 0.1},
	}
}

// judge returns the verdict of t on s and the value it rests on: ours/base, or ours alone when t
// has no base. A target whose benchmarks the run lacks is pending.
func judge(t target, s stats) (verdict, float64) {
	ours, ok := s.lookup(t.ours, t.unit)
	if !ok {
		return pending, 0
	}
	ratio := ours.median
	if t.base != "" {
		base, ok := s.lookup(t.base, t.unit)
		if !ok || base.median == 0 {
			return pending, 0
		}
		ratio = ours.median / base.median
	}
	if ratio < t.max || ratio == t.max && !t.below {
		return met, ratio
	}
	if f, bound, ok := floorOf(t, s); ok && f.median > bound {
		return beyond, ratio
	}
	return missed, ratio
}

// floorOf returns the floor of t measured in s and the time t's bound allows: the base's median
// times max. It reports false for a target with no floor, no base or no such run.
func floorOf(t target, s stats) (floor stat, bound float64, ok bool) {
	if t.floor == "" || t.base == "" {
		return stat{}, 0, false
	}
	f, okf := s.lookup(t.floor, t.unit)
	base, okb := s.lookup(t.base, t.unit)
	return f, base.median * t.max, okf && okb
}
