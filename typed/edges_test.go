package typed

import (
	"testing"
	"time"

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
