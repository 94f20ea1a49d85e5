package kernel

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
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

// TestSlotPublished: a reader comparing a slot that another value is writing sees the entry only
// once its cum, stored last, is there, and then its at with it.
func TestSlotPublished(t *testing.T) {
	var s slot
	_, ok := s.published()
	require.False(t, ok, "an empty slot")
	s.at.Store(-5)
	_, ok = s.published()
	require.False(t, ok, "a slot whose writer stored at but not yet cum")
	s.cum.Store(3)
	e, ok := s.published()
	require.True(t, ok)
	require.Equal(t, entry{at: -5, cum: 3}, e)
}

// TestBranchesPushAtOnce: two values branched from one log push entries of the same count into
// the same free slot from two goroutines. The one that loses the slot must not take the other's
// entry for its own: comparing the slot while it was being written (its zero instant beside the
// writer's count), the log branched at instant 0 took the entry pushed at −5 and admitted a third
// token in a window of two, at 95. Under the race detector the goroutines interleave less, and it
// runs fewer rounds.
func TestBranchesPushAtOnce(t *testing.T) {
	p := &LogPolicy{Width: 100, Limit: 2, Quantum: 1}
	rounds := 20_000
	if race || testing.Short() {
		rounds = 2_000
	}
	for i := range rounds {
		v0 := p.FreshLog()
		v0, _, _ = v0.Debit(-300, 1)
		v0, _, _ = v0.Debit(-299, 1) // v0 owns storage with a free slot
		v1, _, _ := v0.Debit(-5, 1)
		v2, _, _ := v0.Debit(0, 1)
		var ready atomic.Int32 // both spin until both run, so that their pushes meet
		var done sync.WaitGroup
		done.Add(2)
		var y Log
		go func() {
			defer done.Done()
			for ready.Add(1); ready.Load() < 2; {
			}
			_, _, _ = v1.Debit(50, 1)
		}()
		go func() {
			defer done.Done()
			for ready.Add(1); ready.Load() < 2; {
			}
			y, _, _ = v2.Debit(50, 1)
		}()
		done.Wait()
		if _, _, ok := y.Debit(95, 1); ok {
			t.Fatalf("round %d: the log branched at 0 admitted a third token at 95: entries %v, want [0 50]", i, entriesOf(y))
		}
	}
}

// expireOneByOne is expireIn as a plain scan: the reference the bisection must agree with.
func expireOneByOne(l Log, at int64) Log {
	if diff(MinInstant, at) < uint64(l.P.Width) {
		return l
	}
	cut := at - l.P.Width
	if l.newest.at <= cut {
		l.head, l.base = l.tail, l.newest.cum
		return l
	}
	for l.head < l.tail && l.buf.entries[l.head].at.Load() <= cut {
		l.base = l.buf.entries[l.head].cum.Load()
		l.head++
	}
	return l
}

// TestExpireBisects checks that expiring entries, by a short scan and then by bisection, keeps
// exactly the entries a one-by-one scan keeps, for logs of up to a few hundred entries and cut-offs
// anywhere among them.
func TestExpireBisects(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		width := rapid.Int64Range(1, 1000).Draw(t, "width")
		p, inv := LogOf(width, 1000, 1)
		require.Nil(t, inv)
		l, at := p.FreshLog(), int64(0)
		for range rapid.IntRange(0, 300).Draw(t, "debits") {
			at += rapid.Int64Range(0, 3).Draw(t, "step")
			if next, _, ok := l.Debit(at, rapid.Int64Range(1, 3).Draw(t, "cost")); ok {
				l = next
			}
		}
		asked := l.Last + rapid.Int64Range(0, width+5).Draw(t, "later")
		want, got := expireOneByOne(l, asked), l.expire(asked)
		require.Equal(t, [2]int{want.head, want.tail}, [2]int{got.head, got.tail})
		require.Equal(t, want.base, got.base)
	})
}
