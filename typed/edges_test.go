package typed

import (
	"testing"
	"time"

	"github.com/numerus-closus/numerus"

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
	p, q := mustCompile(t, MustParseR(t, "gcra 10/s")), mustCompile(t, MustParseR(t, "gcra 20/s"))
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
	p := mustCompile(t, MustParseR(t, "gcra 1/s | gcra 100/h"))
	q := mustCompile(t, MustParseR(t, "gcra 2/s | token 100/h"))
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
	for _, text := range []string{"gcra 1/s burst 1 & gcra 10/m", "gcra 10/m & (gcra 1/s burst 1 & gcra 100/h)"} {
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
			require.NotNil(t, l.p.gcra, "planned straight-line")
			check(&andDebitor[GCRA, GCRA]{l})
			continue
		}
		l, err := FromSpec[And[GCRA, And[GCRA, GCRA]]](sp)
		require.NoError(t, err)
		require.NotNil(t, l.p.gcra, "planned straight-line")
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
