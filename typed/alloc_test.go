package typed

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/kernel"
)

// allocs returns the average allocations of a debit and of a status of l, debited at instants
// spread so that both admissions and refusals occur.
func allocs[L Limiter[L]](l L) float64 {
	at := t0
	return testing.AllocsPerRun(1000, func() {
		at = at.Add(7 * time.Millisecond)
		next, _, ok := l.DebitN(at, 1)
		if ok {
			l = next
		}
		_ = l.Status(at)
	})
}

func build[L Limiter[L]](t testing.TB, text string) L {
	t.Helper()
	l, err := FromSpec[L](MustParse(t, text))
	require.NoError(t, err)
	return l
}

// TestDebitAllocatesNothing pins zero allocations for a debit (admitted or refused) and a status
// of every typed limiter and of And and Or of them; the sliding log allocates only when its
// storage grows, amortized below one allocation per debit.
func TestDebitAllocatesNothing(t *testing.T) {
	zero := map[string]float64{
		"gcra":   allocs(build[GCRA](t, "gcra 100/s burst 5")),
		"token":  allocs(build[TokenBucket](t, "token 100/s burst 5")),
		"leaky":  allocs(build[LeakyBucket](t, "leaky 100/s burst 5")),
		"finite": allocs(build[FiniteBucket](t, "finite 500")),
		"window": allocs(build[FixedWindow](t, "window 50/s")),
		"count":  allocs(build[SlidingWindowCount](t, "count 50/s")),
		"and of three": allocs(build[And[GCRA, And[FixedWindow, SlidingWindowCount]]](t,
			"gcra 100/s burst 5 & (window 50/s & count 70/s)")),
		"or": allocs(build[Or[GCRA, TokenBucket]](t, "gcra 100/s burst 5 | token 10/s")),
	}
	for name, n := range zero {
		require.Zero(t, n, name)
	}
	logAllocs := allocs(build[SlidingWindow](t, "sliding 50/s"))
	require.Less(t, logAllocs, 0.1, "sliding log, amortized")
}

// TestPolicyDebitAllocatesNothing: Policy.DebitN and Status on a State within 12 inline words and
// without a log allocate nothing.
func TestPolicyDebitAllocatesNothing(t *testing.T) {
	for _, text := range []string{"gcra 100/s burst 5", "gcra 100/s burst 100 & window 50/s", "count 50/s | token 10/s & gcra 3/ms & finite 9"} {
		p := MustCompile(text)
		s, at := p.Fresh(), t0
		n := testing.AllocsPerRun(1000, func() {
			at = at.Add(7 * time.Millisecond)
			next, _, ok := p.DebitN(s, at, 1)
			if ok {
				s = next
			}
			_ = p.Status(s, at)
		})
		require.Zero(t, n, text)
		buf := make([]byte, 0, 64)
		n = testing.AllocsPerRun(100, func() { buf = p.AppendState(buf[:0], s) })
		require.Zero(t, n, "AppendState "+text)
	}
}

// TestDynamicAllocatesOnlyToBox: through Dynamic, a refusal allocates nothing and an admission
// allocates only the boxed value.
func TestDynamicAllocatesOnlyToBox(t *testing.T) {
	l := Dynamic(build[GCRA](t, "gcra 1/h burst 1"))
	l, _, ok := l.Debit(t0)
	require.True(t, ok)
	require.Zero(t, testing.AllocsPerRun(100, func() { l.Debit(t0) }))
	fresh := Dynamic(build[GCRA](t, "gcra 1/h burst 1"))
	require.Equal(t, 1.0, testing.AllocsPerRun(100, func() { fresh.Debit(t0) }))
	var _ numerus.Limiter = l
}

// TestDebitInAllocatesNothing: DebitIn and PeekIn on a State within 12 inline words and without
// a log allocate nothing, admitted or refused.
func TestDebitInAllocatesNothing(t *testing.T) {
	for _, text := range []string{"gcra 100/s burst 5", "gcra 100/s burst 100 & window 50/s", "count 50/s | token 10/s & gcra 3/ms & finite 9"} {
		p := MustCompile(text)
		s, at := p.Fresh(), kernel.FromTime(t0)
		n := testing.AllocsPerRun(1000, func() {
			at += int64(3 * time.Millisecond)
			_, _ = in(p).DebitIn(&s, at, 1)
			_, _ = in(p).PeekIn(&s, at)
		})
		require.Zero(t, n, text)
	}
}
