package typed

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/kernel"
)

// TestCountLayouts: a SlidingWindowCount holds its counts in one word under a limit that fits 32
// bits and in two above it. On either side of that edge, and with costs large enough to reach the
// limit, DebitN and the debit of composed values answer exactly like numerus.SlidingWindowCount,
// step by step; the value is the one its kernel gives back, and a snapshot restores it.
func TestCountLayouts(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.OneOf(rapid.Int64Range(1, 12), rapid.Int64Range(math.MaxUint32-3, math.MaxUint32+3),
			rapid.Just(int64(math.MaxInt64))).Draw(t, "n")
		period := rapid.SampledFrom([]time.Duration{time.Millisecond, time.Second, time.Minute}).Draw(t, "period")
		sp := Spec{Algo: AlgoCount, Count: n, Period: period}
		l, err := FromSpec[SlidingWindowCount](sp)
		require.NoError(t, err)
		require.Equal(t, wide(l.p), n > math.MaxUint32)
		root := rootOf(t, sp)
		at := t0
		for i, s := range countTimeline(t, n) {
			at = at.Add(s.delta)
			next, from, ok := l.DebitN(at, s.cost)
			leaf, leafFrom, leafOK := l.debit(kernel.FromTime(at), s.cost)
			rnext, rfrom, rok := root.DebitN(at, s.cost)
			require.Equal(t, rok, ok, "step %d (%v cost %d): admitted", i, at, s.cost)
			require.True(t, from.Equal(rfrom), "step %d: from %v, want %v", i, from, rfrom)
			require.Equal(t, next, leaf, "step %d: debit and DebitN differ", i)
			require.Equal(t, ok, leafOK, "step %d: debit admitted", i)
			if !ok {
				want, finite := rfrom.Time()
				if !finite {
					want = time.Unix(0, kernel.Never)
				}
				require.Equal(t, want.UnixNano(), leafFrom, "step %d: debit's answer", i)
				require.Equal(t, l, next, "step %d: a refusal changed the value", i)
			}
			require.Equal(t, next, countOf(next.kern()), "step %d: the kernel's value", i)
			require.Equal(t, rnext.Status(at), next.Status(at), "step %d: status", i)
			l, root = next, rnext
		}
		bin, err := l.MarshalBinary()
		require.NoError(t, err)
		var back SlidingWindowCount
		require.NoError(t, back.UnmarshalBinary(bin))
		require.Equal(t, l, back)
	})
}

// countTimeline draws debits that go forwards, stay and go backwards, of costs small, near a
// share of n, n and above it.
func countTimeline(t *rapid.T, n int64) []step {
	return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) step {
		delta := rapid.SampledFrom([]time.Duration{0, 1, time.Millisecond, 100 * time.Millisecond,
			time.Second, 7 * time.Second, time.Minute, -time.Second}).Draw(t, "delta")
		cost := rapid.OneOf(rapid.Int64Range(1, 4), rapid.SampledFrom([]int64{max(n/3, 1), max(n/2, 1),
			n - 1 + min(n, 1), n, min(n+1, math.MaxInt64)})).Draw(t, "cost")
		return step{delta: delta, cost: max(cost, 1)}
	}), 1, 40).Draw(t, "timeline")
}

// TestCountZeroValue: the zero SlidingWindowCount denies with Never, as its doc says.
func TestCountZeroValue(t *testing.T) {
	var c SlidingWindowCount
	next, from, ok := c.DebitN(t0, 1)
	require.False(t, ok)
	require.Equal(t, numerus.Never(), from)
	require.Equal(t, c, next)
	require.Equal(t, "count (zero)", c.String())
}

// TestCountWideNotNarrow: under a limit above 32 bits the value holds Prev where a narrow one holds
// Start, and DebitN must not read it as one. Here Prev, 4·10^9, is also the instant (4 s after
// the epoch) where the window starts, so a DebitN or debit that read the wide value as a narrow one
// would find the debit in its window with nothing counted before, and admit it.
func TestCountWideNotNarrow(t *testing.T) {
	l, err := NewSlidingWindowCount(time.Millisecond, 1<<32)
	require.NoError(t, err)
	epoch := time.Unix(0, 0)
	steps := []struct {
		at     time.Duration
		cost   int64
		wantOK bool
	}{
		{4*time.Second - time.Microsecond, 4e9, true},          // fills [3.999 s, 4 s)
		{4*time.Second + 999*time.Microsecond, 1 << 31, true},  // 4e9·1/1000 + 2^31 fits
		{4*time.Second + 999*time.Microsecond, 1 << 31, false}, // twice 2^31 does not
	}
	for i, s := range steps {
		at := epoch.Add(s.at)
		next, _, ok := l.DebitN(at, s.cost)
		require.Equal(t, s.wantOK, ok, "step %d: DebitN", i)
		_, _, ok = l.debit(at.UnixNano(), s.cost)
		require.Equal(t, s.wantOK, ok, "step %d: debit", i)
		if ok {
			l = next
		}
	}
}

// TestCountSnapshotKeepsEmptyStart: every reader of a sliding counter's snapshot saves the same
// words. An empty counter may name any window start (its counts are zero, so it does not matter);
// the wide typed counter (a limit above 2^32) keeps no start and saved the window holding last,
// where Policy saved the start as read (found by FuzzTypedSnapshot). Both now keep the former.
func TestCountSnapshotKeepsEmptyStart(t *testing.T) {
	for _, text := range []string{"count 5/24ns", "count 4294967296/24ns"} {
		p := MustCompile(text)
		s, err := p.StateOf([][]int64{{-24, 0, 0, 24}})
		require.NoError(t, err)
		require.Equal(t, [][]int64{{24, 0, 0, 24}}, p.Words(s), "%s: the window holding last", text)
		snap, err := p.AppendSnapshot(nil, s)
		require.NoError(t, err)
		var c SlidingWindowCount
		require.NoError(t, c.UnmarshalBinary(snap))
		saved, err := c.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, snap, saved, text)
	}
}
