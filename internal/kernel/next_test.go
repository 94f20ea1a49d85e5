package kernel

import "pgregory.net/rapid"

// nexting is what Next's property needs of a kernel.
type nexting[K any] interface {
	Debit(at, cost int64) (K, int64, bool)
	Status(at int64) Status
	Next(at int64) int64
}

// checkNext checks the property of Next on a state reached from k (see TestLaws): after random
// debits, Next(at) is at when the kernel is full, and otherwise the first instant from which it
// holds one token more than at at: a debit of that many tokens is admitted then and refused a
// nanosecond before (Never only for a finite bucket that is not full).
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
