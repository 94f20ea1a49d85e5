package kernel

import (
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// entriesOf returns the instants of the live entries of l, one per token.
func entriesOf(l Log) []int64 {
	var out []int64
	l.Entries(func(at, tokens int64) bool {
		for range tokens {
			out = append(out, at)
		}
		return true
	})
	return out
}

// TestLogBranches debits eight branches of one log value at once, each from its own goroutine:
// they contend for the shared storage (run it with -race), and each must end with exactly the
// common entries and its own.
func TestLogBranches(t *testing.T) {
	p, inv := LogOf(1000, 1000, 1)
	require.Nil(t, inv)
	base := p.FreshLog()
	var common []int64
	for i := range int64(5) {
		base, _, _ = base.Debit(i, 1)
		common = append(common, i)
	}
	got := make([][]int64, 8)
	var wg sync.WaitGroup
	for g := range int64(8) {
		wg.Go(func() {
			l := base
			for i := range int64(50) {
				var ok bool
				if l, _, ok = l.Debit(10+g*100+i, 1); !ok {
					panic("refused")
				}
			}
			got[g] = entriesOf(l)
		})
	}
	wg.Wait()
	for g := range int64(8) {
		want := slices.Clone(common)
		for i := range int64(50) {
			want = append(want, 10+g*100+i)
		}
		require.Equal(t, want, got[g], "branch %d", g)
	}
	require.Equal(t, common, entriesOf(base), "the value the branches started from")
}

// TestLogMerge checks that debits at one instant share one entry, and that entries expire a whole
// window after their instant.
func TestLogMerge(t *testing.T) {
	p, _ := LogOf(10, 5, 1)
	l := p.FreshLog()
	for range 3 {
		l, _, _ = l.Debit(4, 1)
	}
	l, _, _ = l.Debit(6, 2)
	n := 0
	l.Entries(func(int64, int64) bool { n++; return true })
	require.Equal(t, 2, n, "two distinct instants")
	require.Equal(t, []int64{4, 4, 4, 6, 6}, entriesOf(l))
	_, from, ok := l.Debit(13, 1)
	require.False(t, ok)
	require.Equal(t, int64(14), from, "the entries at 4 expire at 14")
	require.Equal(t, int64(3), l.Status(14).Remaining)
}
