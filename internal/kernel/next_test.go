package kernel

import (
	"testing"

	"pgregory.net/rapid"
)

// nexting is what Next's property needs of a kernel.
type nexting[K any] interface {
	Debit(at, cost int64) (K, int64, bool)
	Status(at int64) Status
	Next(at int64) int64
}

// TestNext is the property of Next for every kernel: after random debits, Next(at) is at when the
// kernel is full, and otherwise the first instant from which it holds one token more than at at:
// a debit of that many tokens is admitted then and refused a nanosecond before (Never only for a
// finite bucket that is not full).
func TestNext(t *testing.T) {
	rate := func(t *rapid.T) Rate {
		return NewRate(rapid.Int64Range(1, 5).Draw(t, "n"), rapid.Int64Range(1, 50).Draw(t, "p"))
	}
	size := func(t *rapid.T) int64 { return rapid.Int64Range(1, 6).Draw(t, "size") }
	width := func(t *rapid.T) int64 { return rapid.Int64Range(1, 60).Draw(t, "width") }
	t.Run("gcra", rapid.MakeCheck(func(t *rapid.T) { checkNext(t, NewGCRA(rate(t), size(t)).Fresh()) }))
	t.Run("token", rapid.MakeCheck(func(t *rapid.T) { checkNext(t, NewBucket(rate(t), size(t)).FreshTokens()) }))
	t.Run("leaky", rapid.MakeCheck(func(t *rapid.T) { checkNext(t, NewBucket(rate(t), size(t)).FreshLeaky()) }))
	t.Run("finite", rapid.MakeCheck(func(t *rapid.T) { n := size(t); checkNext(t, Finite{Size: n, Left: n}) }))
	t.Run("window", rapid.MakeCheck(func(t *rapid.T) {
		checkNext(t, NewWindow(width(t), size(t), rapid.Int64Range(-30, 30).Draw(t, "origin")).FreshWindow())
	}))
	t.Run("count", rapid.MakeCheck(func(t *rapid.T) {
		checkNext(t, NewWindow(width(t), size(t), rapid.Int64Range(-30, 30).Draw(t, "origin")).FreshCounter())
	}))
	t.Run("log", rapid.MakeCheck(func(t *rapid.T) {
		q := rapid.Int64Range(1, 4).Draw(t, "quantum")
		p := &LogPolicy{Width: q * rapid.Int64Range(1, 15).Draw(t, "sub-windows"), Limit: size(t), Quantum: q}
		checkNext(t, p.FreshLog())
	}))
}

func checkNext[K nexting[K]](t *rapid.T, k K) {
	at := int64(1000)
	for range rapid.IntRange(0, 12).Draw(t, "debits") {
		at += rapid.Int64Range(-5, 40).Draw(t, "step")
		if next, _, ok := k.Debit(at, rapid.Int64Range(1, 3).Draw(t, "cost")); ok {
			k = next
		}
	}
	at += rapid.Int64Range(-5, 40).Draw(t, "at")
	s, n := k.Status(at), k.Next(at)
	if s.Remaining >= s.Limit {
		if n != at {
			t.Fatalf("full at %d: Next %d, want %d", at, n, at)
		}
		return
	}
	if n == Never {
		if _, finite := any(k).(Finite); !finite {
			t.Fatalf("Next at %d is Never for a kernel that refills", at)
		}
		return
	}
	c := s.Remaining + 1
	if _, _, ok := k.Debit(n, c); !ok {
		t.Fatalf("Next at %d is %d, but %d tokens are refused there", at, n, c)
	}
	if _, _, ok := k.Debit(n-1, c); ok && n-1 >= at {
		t.Fatalf("Next at %d is %d, but %d tokens are admitted a ns before", at, n, c)
	}
}
