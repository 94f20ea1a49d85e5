package typed

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/numerus-closus/numerus"
)

var (
	t0    = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	epoch = time.Unix(0, 0)
)

var leafAlgos = []Algo{AlgoGCRA, AlgoToken, AlgoLeaky, AlgoFinite, AlgoWindow, AlgoSliding, AlgoBuckets, AlgoCount}

// genLeaf draws a valid leaf spec of the given algorithm, with small counts so limits are reached.
func genLeaf(t *rapid.T, algo Algo) Spec {
	sp := Spec{Algo: algo, Count: rapid.Int64Range(1, 12).Draw(t, "count")}
	if algo == AlgoFinite {
		return sp
	}
	unit := rapid.SampledFrom([]time.Duration{time.Millisecond, time.Second, time.Minute}).Draw(t, "unit")
	mult := rapid.Int64Range(1, 10).Draw(t, "mult")
	sp.Period = time.Duration(mult) * unit
	switch algo {
	case AlgoGCRA, AlgoToken, AlgoLeaky:
		sp.Burst = rapid.Int64Range(0, 12).Draw(t, "burst")
	case AlgoBuckets:
		sp.In = rapid.SampledFrom([]int64{2, 3, 4, 5, 6, 10}).Draw(t, "in")
		sp.Period *= time.Duration(sp.In)
	}
	return sp
}

// genSpec draws a valid spec tree of at most the given depth.
func genSpec(t *rapid.T, depth int) Spec {
	if depth == 0 || rapid.IntRange(0, 2).Draw(t, "leaf?") > 0 {
		return genLeaf(t, rapid.SampledFrom(leafAlgos).Draw(t, "algo"))
	}
	sp := Spec{Algo: rapid.SampledFrom([]Algo{AlgoAnd, AlgoOr}).Draw(t, "op")}
	n := rapid.IntRange(2, 3).Draw(t, "children")
	for range n {
		sp.Of = append(sp.Of, genSpec(t, depth-1))
	}
	return sp
}

// rootOf builds the numerus (dynamic) limiter a valid spec describes, with the root's constructors.
func rootOf(tb require.TestingT, sp Spec) numerus.Limiter {

	rate := numerus.Per(sp.Count, sp.Period)
	var l numerus.Limiter
	var err error
	switch sp.Algo {
	case AlgoGCRA:
		l, err = numerus.GCRA(rate, sp.burst())
	case AlgoToken:
		l, err = numerus.TokenBucket(sp.burst(), rate)
	case AlgoLeaky:
		l, err = numerus.LeakyBucket(sp.burst(), rate)
	case AlgoFinite:
		l, err = numerus.FiniteBucket(sp.Count)
	case AlgoWindow:
		l, err = numerus.FixedWindow(sp.Period, sp.Count, epoch)
	case AlgoSliding:
		l, err = numerus.SlidingWindow(sp.Period, sp.Count)
	case AlgoBuckets:
		l, err = numerus.SlidingWindowBucketed(sp.Period, int(sp.In), sp.Count)
	case AlgoCount:
		l, err = numerus.SlidingWindowCount(sp.Period, sp.Count, epoch)
	default:
		ls := make([]numerus.Limiter, len(sp.Of))
		for i, c := range sp.Of {
			ls[i] = rootOf(tb, c)
		}
		if sp.Algo == AlgoAnd {
			return numerus.AllOf(ls...)
		}
		return numerus.AnyOf(ls...)
	}
	require.NoError(tb, err)
	return l
}

// step is one debit of a timeline.
type step struct {
	delta time.Duration
	cost  int64
}

// genTimeline draws debits that go forwards, stay, and sometimes go backwards in time.
func genTimeline(t *rapid.T) []step {
	return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) step {
		delta := rapid.SampledFrom([]time.Duration{0, 1, time.Millisecond, 100 * time.Millisecond,
			time.Second, 7 * time.Second, time.Minute, 10 * time.Minute, -time.Second}).Draw(t, "delta")
		return step{delta: delta, cost: rapid.Int64Range(1, 4).Draw(t, "cost")}
	}), 1, 40).Draw(t, "timeline")
}

// sameAnswers runs both limiters along the timeline from start, each on its own results, and
// fails at the first step where they differ in decision, answer or status.
func sameAnswers(t require.TestingT, a, b numerus.Limiter, start time.Time, steps []step) {
	at := start
	for i, s := range steps {
		at = at.Add(s.delta)
		na, fa, oka := a.DebitN(at, s.cost)
		nb, fb, okb := b.DebitN(at, s.cost)
		require.Equal(t, okb, oka, "step %d (%v cost %d): admitted", i, at, s.cost)
		require.True(t, fa.Equal(fb), "step %d: from %v, want %v", i, fa, fb)
		sa, sb := na.Status(at), nb.Status(at)
		require.Equal(t, sb.Limit, sa.Limit, "step %d: limit", i)
		require.Equal(t, sb.Remaining, sa.Remaining, "step %d: remaining", i)
		require.True(t, sa.Full.Equal(sb.Full), "step %d: full %v, want %v", i, sa.Full, sb.Full)
		a, b = na, nb
	}
}

func MustParse(t testing.TB, text string) Spec {
	t.Helper()
	sp, err := Parse(text)
	require.NoError(t, err)
	return sp
}

func mustCompile(t require.TestingT, sp Spec) Policy {
	p, err := Compile(sp)
	require.NoError(t, err)
	return p
}

func MustParseR(t require.TestingT, text string) Spec {
	sp, err := Parse(text)
	require.NoError(t, err)
	return sp
}
