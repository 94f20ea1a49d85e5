package typed

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/kernel"
)

// TestExtremeInstants: instants before 1678 and after 2262 are clamped to the range the kernels
// hold, and every limiter still counts there: a burst admits its size and no more, the status
// is numerus's (full at the very instant asked), and the state decodes from its own encoding.
func TestExtremeInstants(t *testing.T) {
	for _, at := range []time.Time{time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)} {
		for _, text := range []string{"gcra 1/h burst 2", "token 1/h burst 2", "leaky 1/h burst 2", "finite 2",
			"window 2/h", "count 2/h", "sliding 2/h", "buckets 2/h in 4"} {
			p := MustCompile(text)
			s, root := p.Fresh(), rootOf(t, p.Spec())
			assert.Equal(t, root.Status(at), p.Status(s, at), "%s fresh at %v", text, at)
			admitted := 0
			for range 5 {
				next, _, ok := p.Debit(s, at)
				if ok {
					s, admitted = next, admitted+1
				}
				if next, _, ok := root.Debit(at); ok {
					root = next
				}
			}
			assert.Equal(t, 2, admitted, "%s at %v", text, at)
			assert.Equal(t, root.Status(at), p.Status(s, at), "%s spent at %v", text, at)
			back, err := p.DecodeState(p.AppendState(nil, s))
			require.NoError(t, err, "%s at %v: its own state", text, at)
			require.Equal(t, p.Words(s), p.Words(back), "%s at %v", text, at)
		}
	}
	g := build[GCRA](t, "gcra 1/h burst 1")
	g, _, ok := g.Debit(time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC))
	require.True(t, ok)
	_, from, ok := g.Debit(time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC))
	require.False(t, ok)
	require.False(t, from.IsNever())
}

// TestContinueAtTheEarliestInstant: a change of policy at an instant clamped to the earliest one
// records the use carried over in the first sub-window, so that it expires a window later, and
// the state decodes from its own encoding (the entry's start once wrapped to the year 2262, so
// that the tokens never came back).
func TestContinueAtTheEarliestInstant(t *testing.T) {
	from, to := MustCompile("gcra 1/m burst 5"), MustCompile("buckets 5/1m in 6")
	s, _, ok := from.DebitN(from.Fresh(), time.Time{}, 2)
	require.True(t, ok)
	next := to.Continue(from, s, time.Time{})
	require.Equal(t, int64(3), to.Status(next, time.Time{}).Remaining)
	require.Equal(t, int64(5), to.Status(next, t0).Remaining)
	_, err := to.DecodeState(to.AppendState(nil, next))
	require.NoError(t, err)
}

// TestLikeRootAtExtremes: TestLikeRoot at the edges of what the kernels hold, where the fast
// paths hand over to the general ones: rates from one token in 292 years to 10^13 a nanosecond,
// bursts and limits up to the largest that fit (and about 2^32, where the sliding counter's two
// counts stop sharing a word), instants near 1678 and 2262 and beyond them, steps of a
// nanosecond either way, of a token's interval and of centuries, and costs up to one past the
// capacity. Each typed limiter answers exactly like the numerus one: decision, retry (Never
// included) and status.
func TestLikeRootAtExtremes(t *testing.T) {
	leaves := map[string]struct {
		algo Algo
		gen  func(*rapid.T, Algo) Spec
	}{
		"gcra": {AlgoGCRA, extremeRateLeaf}, "token": {AlgoToken, extremeRateLeaf}, "leaky": {AlgoLeaky, extremeRateLeaf},
		"window": {AlgoWindow, extremeWindowLeaf}, "count": {AlgoCount, extremeWindowLeaf},
	}
	for name, leaf := range leaves {
		for region, start := range extremeStarts {
			t.Run(name+"/"+region, rapid.MakeCheck(func(t *rapid.T) {
				sp := leaf.gen(t, leaf.algo)
				var l numerus.Limiter
				var err error
				switch leaf.algo {
				case AlgoGCRA:
					l, err = dynamicOf[GCRA](sp)
				case AlgoToken:
					l, err = dynamicOf[TokenBucket](sp)
				case AlgoLeaky:
					l, err = dynamicOf[LeakyBucket](sp)
				case AlgoWindow:
					l, err = dynamicOf[FixedWindow](sp)
				default:
					l, err = dynamicOf[SlidingWindowCount](sp)
				}
				require.NoError(t, err, "%v", sp)
				sameAnswers(t, l, rootOf(t, sp), time.Unix(0, start.Draw(t, "start")), extremeTimeline(t, sp))
			}))
		}
	}
}

func dynamicOf[L Limiter[L]](sp Spec) (numerus.Limiter, error) {
	l, err := FromSpec[L](sp)
	return Dynamic(l), err
}

// extremeRateLeaf draws a GCRA, token or leaky bucket of an extreme rate and burst that fit.
func extremeRateLeaf(t *rapid.T, algo Algo) Spec {
	n := rapid.OneOf(rapid.Just(int64(1)), rapid.Int64Range(1, 12), rapid.Int64Range(1, 1e9),
		rapid.Int64Range(1, 1e13)).Draw(t, "n")
	per := rapid.OneOf(rapid.Just(int64(1)), rapid.Int64Range(1, 10), rapid.Just(int64(time.Second)),
		rapid.Just(int64(24*time.Hour)), rapid.Int64Range(1, 1e12), rapid.Int64Range(1, 1e18)).Draw(t, "per")
	r := kernel.NewRate(n, per)
	if !r.FitsBurst(1) {
		t.Skip("no burst fits the rate")
	}
	most := (kernel.MaxInstant - r.N) / r.P
	b := rapid.OneOf(rapid.Int64Range(1, min(12, most)), rapid.Int64Range(1, most),
		rapid.Int64Range(max(1, most-3), most), rapid.Int64Range(1, min(most, 1<<33))).Draw(t, "burst")
	return Spec{Algo: algo, Count: n, Period: time.Duration(per), Burst: b}
}

// extremeWindowLeaf draws a fixed window or sliding counter of an extreme width and limit.
func extremeWindowLeaf(t *rapid.T, algo Algo) Spec {
	w := rapid.OneOf(rapid.Int64Range(1, 10), rapid.Just(int64(time.Second)), rapid.Int64Range(1, 1e12),
		rapid.Int64Range(1e15, 1e18), rapid.Int64Range(math.MaxInt64/8, math.MaxInt64)).Draw(t, "width")
	l := rapid.OneOf(rapid.Int64Range(1, 12), rapid.Int64Range(math.MaxUint32-3, math.MaxUint32+3),
		rapid.Int64Range(1, max(1, math.MaxInt64/3/w)), rapid.Int64Range(math.MaxInt64-3, math.MaxInt64)).Draw(t, "limit")
	return Spec{Algo: algo, Count: l, Period: time.Duration(w)}
}

// extremeStarts are where a timeline starts: near the ends of the kernels' range (1678, 2262) and
// of kernel.Instant's, around the epoch, or anywhere.
var extremeStarts = map[string]*rapid.Generator[int64]{
	"first":         rapid.Int64Range(math.MinInt64, math.MinInt64+1e15),
	"last":          rapid.Int64Range(math.MaxInt64-1e15, math.MaxInt64),
	"instant-first": rapid.Int64Range(-9214560000*1e9-1e12, -9214560000*1e9+1e12),
	"instant-last":  rapid.Int64Range(9214646400*1e9-1e12, 9214646400*1e9+1e12),
	"epoch":         rapid.Int64Range(-1e18, 1e18),
	"anywhere":      rapid.Int64Range(math.MinInt64, math.MaxInt64),
}

// extremeTimeline draws steps of a nanosecond either way, of about a token's interval (or the
// window), and of up to a quarter of the int64 range, with costs up to one past sp's capacity.
func extremeTimeline(t *rapid.T, sp Spec) []step {
	per, limit := int64(sp.Period), sp.Count
	if sp.Burst > 0 {
		r := kernel.NewRate(sp.Count, int64(sp.Period))
		per, limit = max(1, r.P/r.N), sp.Burst
	}
	return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) step {
		delta := rapid.OneOf(rapid.SampledFrom([]int64{0, 1, -1}), rapid.Int64Range(-per, per),
			rapid.Int64Range(0, math.MaxInt64/4)).Draw(t, "delta")
		cost := rapid.OneOf(rapid.Int64Range(1, 3), rapid.Int64Range(max(1, limit-2), kernel.AddSat(limit, 1))).Draw(t, "cost")
		return step{delta: time.Duration(delta), cost: cost}
	}), 1, 40).Draw(t, "timeline")
}

// TestFastRefusalsPastMaxInstantAreNever: a refusal whose retry would lie past MaxInstant (the
// year 2262) answers Never on the fast paths too, as the general paths do, never a finite wait:
// the sliding counter's, and the token and leaky buckets' at the edge of their fast path
// (MaxInstant − full + 1).
func TestFastRefusalsPastMaxInstantAreNever(t *testing.T) {
	t.Run("count", func(t *testing.T) {
		c, err := NewSlidingWindowCount(90*24*time.Hour, 1)
		require.NoError(t, err)
		at := time.Date(2261, 12, 31, 12, 0, 0, 0, time.UTC) // the next 90-day window ends past 2262-04-11
		c, _, ok := c.Debit(at)
		require.True(t, ok)
		_, fast, ok := c.Debit(at.Add(time.Second))
		require.False(t, ok)
		_, general, _ := c.debitN(at.Add(time.Second), 1)
		require.True(t, general.IsNever())
		require.True(t, fast.IsNever(), "the fast path answered %v", fast)
	})
	t.Run("buckets", func(t *testing.T) {
		tb, err := NewTokenBucket(200, numerus.Per(1, 24*time.Hour))
		require.NoError(t, err)
		lb, err := NewLeakyBucket(200, numerus.Per(1, 24*time.Hour))
		require.NoError(t, err)
		full := tb.k.P.Full()
		for _, ns := range []int64{kernel.MaxInstant - full, kernel.MaxInstant - full + 1, kernel.MaxInstant - full + 2} {
			at, wantNever := time.Unix(0, ns), ns > kernel.MaxInstant-full
			spentT, _, ok := tb.DebitN(at, 200)
			require.True(t, ok)
			_, fast, ok := spentT.DebitN(at, 200)
			_, general, _ := spentT.debitN(at, 200)
			require.False(t, ok)
			require.Equal(t, wantNever, fast.IsNever(), "token at MaxInstant−full%+d: %v", ns-(kernel.MaxInstant-full), fast)
			require.True(t, fast.Equal(general), "token: fast %v, general %v", fast, general)
			spentL, _, ok := lb.DebitN(at, 200)
			require.True(t, ok)
			_, fast, ok = spentL.DebitN(at, 200)
			_, general, _ = spentL.debitN(at, 200)
			require.False(t, ok)
			require.Equal(t, wantNever, fast.IsNever(), "leaky at MaxInstant−full%+d: %v", ns-(kernel.MaxInstant-full), fast)
			require.True(t, fast.Equal(general), "leaky: fast %v, general %v", fast, general)
		}
	})
}
