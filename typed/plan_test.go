package typed

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/kernel"
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

// TestAndOfFourGCRAs: an And of four GCRA leaves takes the general debit, not the straight-line
// path of two or three, and debits like the root: every leaf, the third too.
func TestAndOfFourGCRAs(t *testing.T) {
	g := leafGen(AlgoGCRA)
	four, err := FromSpec[And[And[GCRA, GCRA], And[GCRA, GCRA]]](MustParse(t, "(gcra 1/s & gcra 2/s) & (gcra 3/s & gcra 4/s)"))
	require.NoError(t, err)
	requireFast(t, four, false)
	checkLikeRoot[And[And[GCRA, GCRA], And[GCRA, GCRA]]](t, pair(AlgoAnd, pair(AlgoAnd, g, g), pair(AlgoAnd, g, g)))
}

// requireFast checks whether a debit of one token from a fresh l at t0 takes fastAnd's
// straight-line path (fast) or the general debit.
func requireFast[A Limiter[A], B Limiter[B]](t *testing.T, l And[A, B], fast bool) {
	t.Helper()
	_, v := fastAnd(&l, kernel.FromTime(t0), 1) // on a copy: l is the caller's no more
	require.Equal(t, fast, v != kernel.Undecided, "fastAnd decides %s", l)
}
