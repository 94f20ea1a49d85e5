package kernel

import (
	"testing"

	"pgregory.net/rapid"
)

// lawful is what the laws of TestLaws need of a kernel.
type lawful[K any] interface {
	advancing[K]
	Next(at int64) int64
}

// TestLaws checks, for every kernel of random parameters, the properties of Advance (see
// checkAdvance) and of Next (see checkNext).
func TestLaws(t *testing.T) {
	rate := func(t *rapid.T) Rate {
		return NewRate(rapid.Int64Range(1, 5).Draw(t, "n"), rapid.Int64Range(1, 50).Draw(t, "p"))
	}
	size := func(t *rapid.T) int64 { return rapid.Int64Range(1, 6).Draw(t, "size") }
	width := func(t *rapid.T) int64 { return rapid.Int64Range(1, 60).Draw(t, "width") }
	t.Run("gcra", rapid.MakeCheck(func(t *rapid.T) { checkLaws(t, NewGCRA(rate(t), size(t)).Fresh()) }))
	t.Run("token", rapid.MakeCheck(func(t *rapid.T) { checkLaws(t, NewBucket(rate(t), size(t)).FreshTokens()) }))
	t.Run("leaky", rapid.MakeCheck(func(t *rapid.T) { checkLaws(t, NewBucket(rate(t), size(t)).FreshLeaky()) }))
	t.Run("finite", rapid.MakeCheck(func(t *rapid.T) { n := size(t); checkLaws(t, Finite{Size: n, Left: n}) }))
	t.Run("window", rapid.MakeCheck(func(t *rapid.T) {
		checkLaws(t, NewWindow(width(t), size(t), rapid.Int64Range(-30, 30).Draw(t, "origin")).FreshWindow())
	}))
	t.Run("count", rapid.MakeCheck(func(t *rapid.T) {
		checkLaws(t, NewWindow(width(t), size(t), rapid.Int64Range(-30, 30).Draw(t, "origin")).FreshCounter())
	}))
	t.Run("log", rapid.MakeCheck(func(t *rapid.T) {
		q := rapid.Int64Range(1, 4).Draw(t, "quantum")
		p := &LogPolicy{Width: q * rapid.Int64Range(1, 15).Draw(t, "sub-windows"), Limit: size(t), Quantum: q}
		checkLaws(t, p.FreshLog())
	}))
}

// checkLaws checks both properties on states reached from k, each from its own random debits.
func checkLaws[K lawful[K]](t *rapid.T, k K) {
	_, finite := any(k).(Finite) // the one kernel that keeps no instant
	checkAdvance(t, k, !finite)
	checkNext(t, k)
}
