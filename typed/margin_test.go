package typed

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestWithMarginExamples: the margined policy of each algorithm.
func TestWithMarginExamples(t *testing.T) {
	for _, c := range []struct {
		text string
		m    time.Duration
		want string
	}{
		{"gcra 5/s burst 5", 50 * time.Millisecond, "gcra 5/s burst 4"},       // 0.8s of tolerance less 50ms: 3.75 tokens, rounded down
		{"gcra 5/s burst 5", 200 * time.Millisecond, "gcra 5/s burst 4"},      // exactly one token
		{"gcra 5/s burst 5", 201 * time.Millisecond, "gcra 5/s burst 3"},      // a nanosecond more: two
		{"gcra 5/s burst 1", 20 * time.Millisecond, "gcra 5/1100ms burst 1"},  // one every 220ms
		{"gcra 5/s burst 2", 300 * time.Millisecond, "gcra 5/1500ms burst 1"}, // 200ms of tolerance: one every 300ms
		{"token 10/s burst 3", 0, "token 10/s burst 3"},
		{"leaky 10/s burst 3", 150 * time.Millisecond, "leaky 10/s burst 1"},
		{"sliding 100/m", 50 * time.Millisecond, "sliding 100/60050ms"},
		{"window 100/m", 50 * time.Millisecond, "sliding 100/60050ms"},
		{"window 100/m", 0, "sliding 100/m"},
		{"count 10/s", time.Millisecond, "sliding 10/2001ms"},
		{"buckets 100/1m in 6", 50 * time.Millisecond, "buckets 100/80s in 8"},
		{"buckets 100/1m in 6", 0, "buckets 100/70s in 7"},
		{"finite 5", time.Second, "finite 5"},
		{"gcra 5/s burst 1 & sliding 100/m", 20 * time.Millisecond, "gcra 5/1100ms burst 1 & sliding 100/60020ms"},
	} {
		got, err := MustParse(t, c.text).WithMargin(c.m)
		require.NoError(t, err, "%s with margin %v", c.text, c.m)
		require.Equal(t, c.want, got.String(), "%s with margin %v", c.text, c.m)
	}
}

// TestWithMarginRefuses: a negative margin, an Or, an invalid spec and numbers that overflow are
// errors matching numerus.ErrInvalidArgument, naming the parameter.
func TestWithMarginRefuses(t *testing.T) {
	for _, c := range []struct {
		sp    Spec
		m     time.Duration
		param string
	}{
		{MustParse(t, "sliding 5/s"), -1, "margin"},
		{MustParse(t, "gcra 5/s burst 1 | sliding 100/m"), time.Millisecond, "algo"},
		{MustParse(t, "sliding 5/s & (gcra 1/s burst 1 | finite 3)"), time.Millisecond, "of[1].algo"},
		{Spec{Algo: AlgoGCRA}, time.Millisecond, "count"},
		{MustParse(t, "gcra 1000000000/ns burst 1"), time.Duration(1 << 62), "margin"},
		{MustParse(t, "sliding 5/73000d"), 100 * 365 * 24 * time.Hour, "margin"},
	} {
		_, err := c.sp.WithMargin(c.m)
		require.ErrorIs(t, err, numerus.ErrInvalidArgument, "%v with margin %v", c.sp, c.m)
		var pe *numerus.ParamError
		require.True(t, errors.As(err, &pe), "%v", err)
		require.Equal(t, c.param, pe.Param, "%v", err)
	}
}

// genMarginSpec draws a leaf, or an And of two or three, of every algorithm.
func genMarginSpec(t *rapid.T, depth int) Spec {
	if depth == 0 || rapid.Bool().Draw(t, "leaf?") {
		sp := genLeaf(t, rapid.SampledFrom(leafAlgos).Draw(t, "algo"))
		if sp.Period > 0 && sp.Period < 20*time.Millisecond {
			sp.Period *= 50 // the traffic below comes a few ms apart
		}
		return sp
	}
	sp := Spec{Algo: AlgoAnd}
	for range rapid.IntRange(2, 3).Draw(t, "children") {
		sp.Of = append(sp.Of, genMarginSpec(t, depth-1))
	}
	return sp
}

// TestWithMarginHoldsUpstream is the property of WithMargin: traffic admitted under the margined
// policy, arriving with delays that differ by at most the margin (a base delay, and each
// admission up to m more, so that arrivals may come in another order), is admitted in full by
// the policy itself decided on the arrivals in the order they come. TestWithMarginIsNeeded shows
// that the same traffic under sp itself is not.
func TestWithMarginHoldsUpstream(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sp := genMarginSpec(t, 2)
		m := rapid.SampledFrom([]time.Duration{0, 1, time.Millisecond, 7 * time.Millisecond, 50 * time.Millisecond,
			300 * time.Millisecond, 2 * time.Second}).Draw(t, "margin")
		margined, err := sp.WithMargin(m)
		require.NoError(t, err)
		draw := func(label string, lo, hi int64) int64 { return rapid.Int64Range(lo, hi).Draw(t, label) }
		if arrival, ok := exceeds(t, sp, margined, m, draw); ok {
			t.Fatalf("%v, margined by %v to %v: the arrival at %v is refused by %v", sp, m, margined, arrival, sp)
		}
	})
}

// TestWithMarginIsNeeded: without the margin, random traffic that each policy admits arrives,
// delayed by up to 100ms more or less, past its limits.
func TestWithMarginIsNeeded(t *testing.T) {
	for _, text := range []string{"gcra 5/s burst 1", "gcra 5/s burst 3", "sliding 3/s", "window 3/s", "count 3/s", "buckets 3/s in 2"} {
		rng := rand.New(rand.NewPCG(7, 11))
		draw := func(_ string, lo, hi int64) int64 { return lo + rng.Int64N(hi-lo+1) }
		sp, found := MustParse(t, text), false
		for range 1000 {
			if _, ok := exceeds(t, sp, sp, 100*time.Millisecond, draw); ok {
				found = true
				break
			}
		}
		require.True(t, found, "%s: no traffic arrives past its limits without a margin", text)
	}
}

// exceeds sends random traffic through local (a few ms apart, costs 1 to 3), delays each
// admission by a base delay and up to m more, and decides the arrivals under upstream in the
// order they come; it returns the first arrival upstream refuses.
func exceeds(t require.TestingT, upstream, local Spec, m time.Duration, draw func(string, int64, int64) int64) (time.Time, bool) {
	lp, up := mustCompile(t, local), mustCompile(t, upstream)
	type arrival struct {
		at   time.Time
		cost int64
	}
	var arrivals []arrival
	s, at := lp.Fresh(), t0.Add(time.Duration(draw("start", 0, int64(time.Second))))
	base := time.Duration(draw("base delay", 0, int64(time.Second)))
	gaps := []int64{0, int64(time.Millisecond), int64(20 * time.Millisecond), int64(200 * time.Millisecond)}
	for range draw("attempts", 20, 300) {
		cost := draw("cost", 1, 3)
		next, from, ok := lp.DebitN(s, at, cost)
		if ok {
			s = next
			delay := [3]int64{0, int64(m), draw("delay", 0, int64(m))}[draw("delays", 0, 2)] // extremes most
			arrivals = append(arrivals, arrival{at.Add(base + time.Duration(delay)), cost})
		}
		if f, finite := from.Time(); !ok && finite && draw("retry?", 0, 1) == 0 {
			at = f // as a gate retries: at the very instant the limit lets it, where bounds are tight
		} else {
			at = at.Add(time.Duration(draw("gap", 0, gaps[draw("gaps", 0, 3)])))
		}
	}
	slices.SortStableFunc(arrivals, func(a, b arrival) int { return a.at.Compare(b.at) })
	u := up.Fresh()
	for _, a := range arrivals {
		next, _, ok := up.DebitN(u, a.at, a.cost)
		if !ok {
			return a.at, true
		}
		u = next
	}
	return time.Time{}, false
}

// TestWithMarginBucketsOneMore: a bucketed window takes one sub-window more than the margin
// needs, since the upstream's sub-windows need not start where ours do. Under buckets 1/2s in 2,
// the margin of 10ms gives buckets 1/4s in 4. With only buckets 1/3s in 3, a token at 0.999s and
// one at 3s are admitted, and arriving 10ms and 0ms late after a base delay of 0.995s, at 2.004s
// and 3.995s, they fall in two consecutive sub-windows of the upstream's.
func TestWithMarginBucketsOneMore(t *testing.T) {
	sp := MustParse(t, "buckets 1/2s in 2")
	margined, err := sp.WithMargin(10 * time.Millisecond)
	require.NoError(t, err)
	require.Equal(t, "buckets 1/4s in 4", margined.String())
	at := func(d time.Duration) time.Time { return epoch.Add(100*time.Second + d) }
	for text, admitsBoth := range map[string]bool{"buckets 1/3s in 3": true, margined.String(): false} {
		p := MustCompile(text)
		s, _, ok := p.Debit(p.Fresh(), at(999*time.Millisecond))
		require.True(t, ok)
		_, _, ok = p.Debit(s, at(3*time.Second))
		require.Equal(t, admitsBoth, ok, "%s admits 0.999s and 3s", text)
	}
	up := MustCompile(sp.String())
	s, _, ok := up.Debit(up.Fresh(), at(2004*time.Millisecond))
	require.True(t, ok)
	_, _, ok = up.Debit(s, at(3995*time.Millisecond))
	require.False(t, ok, "the upstream refuses the second arrival")
}
