package typed

import (
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/kernel"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDecodeRejectsMore: decoders refuse, with ErrCorrupt and without a panic, an algorithm code
// just past the last one, and a log holding two entries at one instant.
func TestDecodeRejectsMore(t *testing.T) {
	last := t0.UnixNano()
	cases := []struct {
		name string
		data []byte
		into interface{ UnmarshalBinary([]byte) error }
	}{
		{"algorithm code past the last", []byte{Version, byte(kindOr) + 1, 2, 2, 2}, new(GCRA)},
		{"log entries at one instant", snap(spec("sliding 5/s"), []int64{last, last - 1, 1, last - 1, 1}), new(SlidingWindow)},
		{"bucketed log entries at one instant", snap(spec("buckets 5/s in 5"), []int64{last, last, 1, last, 1}), new(SlidingWindow)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			require.NotPanics(t, func() { err = c.into.UnmarshalBinary(c.data) })
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrCorrupt)
		})
	}
}

// TestContinueCountsAtTheLatestInstant: a change read at an instant before the latest one the
// state admitted counts the carried tokens as used at that latest instant, so a clock behind by a
// second does not refill the new policy for that second.
func TestContinueCountsAtTheLatestInstant(t *testing.T) {
	p, q := mustCompile(t, MustParseR(t, "gcra 10/s burst 10")), mustCompile(t, MustParseR(t, "gcra 20/s burst 20"))
	s, _, ok := p.DebitN(p.Fresh(), t0.Add(time.Second), 10)
	require.True(t, ok)
	next := q.Continue(p, s, t0) // the clock reads a second earlier than the debit
	assert.Equal(t, int64(0), q.Status(next, t0.Add(time.Second)).Remaining)
	_, _, ok = q.DebitN(next, t0.Add(time.Second), 1)
	assert.False(t, ok, "the drained subject takes a token at once after the change")
}

// TestContinuePairsOnlyLoneChanges: a changed GCRA continues from the old GCRA at its place only
// if that is the only changed GCRA of the old tree too; here the other old GCRA became a token
// bucket, so both new leaves start from the most used old leaf (the spent hourly one), and the Or
// admits nothing at once.
func TestContinuePairsOnlyLoneChanges(t *testing.T) {
	p := mustCompile(t, MustParseR(t, "gcra 1/s | gcra 100/h burst 100"))
	q := mustCompile(t, MustParseR(t, "gcra 2/s burst 2 | token 100/h burst 100"))
	s, _, ok := p.DebitN(p.Fresh(), t0, 100) // the hourly GCRA admits it, spent; the other keeps 1
	require.True(t, ok)
	next := q.Continue(p, s, t0)
	_, _, ok = q.DebitN(next, t0, 1)
	assert.False(t, ok, "a new leaf holds more than the most used old leaf")
	assert.Equal(t, int64(0), q.Status(next, t0).Remaining)
}

// TestPlannedAndRefusesByOneNanosecond: an And of GCRA leaves, on its straight-line path, refuses
// a debit one nanosecond before its turn with exactly that turn, and admits at it.
func TestPlannedAndRefusesByOneNanosecond(t *testing.T) {
	for _, text := range []string{"gcra 1/s burst 1 & gcra 10/m burst 10", "gcra 10/m burst 10 & (gcra 1/s burst 1 & gcra 100/h burst 100)"} {
		sp := MustParse(t, text)
		check := func(l interface {
			Debit(time.Time) (numerus.NextDebitable, bool)
		}) {
			t.Helper()
			_, ok := l.Debit(t0)
			require.True(t, ok, text)
			from, ok := l.Debit(t0.Add(time.Second - time.Nanosecond))
			require.False(t, ok, "%s: a nanosecond early", text)
			require.True(t, from.Equal(numerus.DebitableFrom(t0.Add(time.Second))), "%s: %v", text, from)
			_, ok = l.Debit(t0.Add(time.Second))
			require.True(t, ok, "%s: at its turn", text)
		}
		if len(sp.Of) == 2 && sp.Of[1].Algo == AlgoGCRA {
			l, err := FromSpec[And[GCRA, GCRA]](sp)
			require.NoError(t, err)
			requireFast(t, l, true)
			check(&andDebitor[GCRA, GCRA]{l})
			continue
		}
		l, err := FromSpec[And[GCRA, And[GCRA, GCRA]]](sp)
		require.NoError(t, err)
		requireFast(t, l, true)
		check(&andDebitor[GCRA, And[GCRA, GCRA]]{l})
	}
}

// andDebitor debits an And in place.
type andDebitor[A Limiter[A], B Limiter[B]] struct{ l And[A, B] }

func (d *andDebitor[A, B]) Debit(at time.Time) (numerus.NextDebitable, bool) {
	var from numerus.NextDebitable
	var ok bool
	d.l, from, ok = d.l.Debit(at)
	return from, ok
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

// TestForeignStatesReportNoNegativeBalance: a State written under a larger burst, read by a
// policy of a smaller one (as its own: see State), holds more debt than the reader's tolerance.
// Its Remaining reads 0, never below, in the Outcome and in the Status, and nothing is admitted.
func TestForeignStatesReportNoNegativeBalance(t *testing.T) {
	big, small := MustCompile("gcra 1/s burst 100"), MustCompile("gcra 1/s burst 1")
	s := big.Fresh()
	_, ok := big.DebitIn(&s, 0, 100)
	require.True(t, ok)
	o, ok := small.DebitIn(&s, 0, 1)
	require.False(t, ok)
	require.Zero(t, o.Remaining)
	require.Zero(t, small.Status(s, time.Unix(0, 0)).Remaining)

	fine, whole := MustCompile("gcra 999999999999/7s burst 1"), MustCompile("gcra 1/s burst 1")
	s = fine.Fresh()
	_, ok = fine.DebitIn(&s, 0, 1)
	require.True(t, ok)
	require.Zero(t, whole.Status(s, time.Unix(0, 0)).Remaining)
	_, _, ok = whole.DebitN(s, time.Unix(0, 0), 1)
	require.False(t, ok, "a TAT fraction read by a policy of whole nanoseconds")
	_, ok = whole.DebitIn(&s, 0, 1)
	require.False(t, ok)
}

// requireFast checks whether a debit of one token from a fresh l at t0 takes fastAnd's
// straight-line path (fast) or the general debit.
func requireFast[A Limiter[A], B Limiter[B]](t *testing.T, l And[A, B], fast bool) {
	t.Helper()
	_, v := fastAnd(&l, kernel.FromTime(t0), 1) // on a copy: l is the caller's no more
	require.Equal(t, fast, v != kernel.Undecided, "fastAnd decides %s", l)
}
