package numerus_test

import (
	"time"

	"pgregory.net/rapid"

	"github.com/numerus-closus/numerus"
)

// kinds names every dynamic algorithm.
var kinds = []string{"gcra", "token", "leaky", "finite", "fixed", "sliding", "buckets", "count"}

// policy is a random built-in limiter with its reference model, its capacity and the span of time
// in which it can be exhausted and recover.
type policy struct {
	l        numerus.Limiter
	m        model
	capacity int64
	span     int64 // ns
}

// periods generates lengths of time in nanoseconds: a few nanoseconds (where rounding shows), a
// second, or anything from a microsecond to minutes.
func periods() *rapid.Generator[int64] {
	return rapid.OneOf(rapid.Int64Range(1, 64), rapid.Just(int64(time.Second)),
		rapid.Int64Range(int64(time.Microsecond), int64(100*time.Second)))
}

// drawPolicy draws a limiter of the given kind with small random parameters.
func drawPolicy(t *rapid.T, kind string) policy {
	n := rapid.Int64Range(1, 8).Draw(t, "n")
	switch kind {
	case "gcra", "token", "leaky":
		tokens, per := rapid.Int64Range(1, 9).Draw(t, "rate tokens"), periods().Draw(t, "rate period")
		return bucket(kind, n, tokens, per)
	case "finite":
		return policy{numerus.Must(numerus.FiniteBucket(n)), &finiteModel{n, n}, n, int64(time.Second)}
	case "buckets":
		k := rapid.Int64Range(1, 6).Draw(t, "windows")
		q := rapid.OneOf(rapid.Int64Range(1, 16), rapid.Int64Range(1000, int64(10*time.Second))).Draw(t, "sub-window")
		l := numerus.Must(numerus.SlidingWindowBucketed(time.Duration(k*q), int(k), n))
		return policy{l, &logModel{w: k * q, n: n, quantum: q}, n, k * q}
	case "sliding":
		w := periods().Draw(t, "window")
		return policy{numerus.Must(numerus.SlidingWindow(time.Duration(w), n)), &logModel{w: w, n: n, quantum: 1}, n, w}
	}
	w := periods().Draw(t, "window")
	start := t0.Add(time.Duration(rapid.Int64Range(-w, w).Draw(t, "start")))
	wm := windowModel{w: w, n: n, origin: start.UnixNano()}
	if kind == "fixed" {
		return policy{numerus.Must(numerus.FixedWindow(time.Duration(w), n, start)), &wm, n, w}
	}
	return policy{numerus.Must(numerus.SlidingWindowCount(time.Duration(w), n, start)), &counterModel{wm}, n, w}
}

// bucket returns GCRA, TokenBucket or LeakyBucket with capacity n at tokens per period ns.
func bucket(kind string, n, tokens, per int64) policy {
	rate := numerus.Per(tokens, time.Duration(per))
	var l numerus.Limiter
	switch kind {
	case "gcra":
		l = numerus.Must(numerus.GCRA(rate, n))
	case "token":
		l = numerus.Must(numerus.TokenBucket(n, rate))
	default:
		l = numerus.Must(numerus.LeakyBucket(n, rate))
	}
	m := &bucketModel{capacity: n, n: tokens, p: per}
	return policy{l, m, n, max(n*per/tokens, 1)}
}

// eras are the instants timelines start near: t0, before the Unix epoch (negative instants),
// just before it (crossing zero), and late in the range.
var eras = []time.Time{t0, time.Date(1950, 6, 15, 12, 0, 0, 0, time.UTC), time.Unix(0, -500_000_000),
	time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)}

// drawEra draws the instant a timeline starts from.
func drawEra(t *rapid.T) time.Time { return rapid.SampledFrom(eras).Draw(t, "era") }

// event is one debit of a timeline: move the instant by step ns, then debit cost.
type event struct{ step, cost int64 }

// drawTimeline draws up to n debits scaled to span: steps of zero, a nanosecond either way, a
// fraction of the span, up to a span back or forth, or up to three spans forward; costs from 1 to
// maxCost.
func drawTimeline(t *rapid.T, span, maxCost int64, n int) []event {
	steps := rapid.OneOf(rapid.Just(int64(0)), rapid.Int64Range(-1, 1), rapid.Int64Range(0, max(span/8, 1)),
		rapid.Int64Range(-span, span), rapid.Int64Range(0, 3*span))
	costs := rapid.OneOf(rapid.Just(int64(1)), rapid.Int64Range(1, maxCost))
	return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) event {
		return event{steps.Draw(t, "step"), costs.Draw(t, "cost")}
	}), 1, n).Draw(t, "timeline")
}
