package typed

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
)

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

// TestPlannedAndOfFourGCRAs: an And of four GCRA leaves is planned, but not on the straight-line
// path of two or three (which has room for three), and debits like the root: every leaf, the
// third too.
func TestPlannedAndOfFourGCRAs(t *testing.T) {
	g := leafGen(AlgoGCRA)
	four, err := FromSpec[And[And[GCRA, GCRA], And[GCRA, GCRA]]](MustParse(t, "(gcra 1/s & gcra 2/s) & (gcra 3/s & gcra 4/s)"))
	require.NoError(t, err)
	require.NotNil(t, four.p, "planned")
	checkLikeRoot[And[And[GCRA, GCRA], And[GCRA, GCRA]]](t, pair(AlgoAnd, pair(AlgoAnd, g, g), pair(AlgoAnd, g, g)))
	require.Nil(t, four.p.gcra, "four leaves: the loop, not the straight line")
}
