package kernel

import (
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestFlowOverflows: the refill from last to at, (at − last)·N scaled units, is exact even where
// the product passes 2^64 (an uneven rate and a gap of two centuries): it is capped at the room
// left, never wrapped to a few units.
func TestFlowOverflows(t *testing.T) {
	p := NewBucket(NewRate(3, 2), 2) // N = 3, P = 2: full is 4 units
	at0 := int64(-3_000_000_000_000_000_000)
	gap := int64(6148914691236517206) // gap·3 = 2^64 + 2: wrapped, it would refill 2 units of 4
	b, _, ok := p.FreshTokens().Debit(at0, 2)
	require.True(t, ok)
	_, from, ok := b.Debit(at0+gap, 2)
	require.True(t, ok, "full again two centuries later, answered %d", from)
	l, _, ok := p.FreshLeaky().Debit(at0, 2)
	require.True(t, ok)
	require.Equal(t, Status{Limit: 2, Remaining: 2, Full: at0 + gap}, l.Status(at0+gap))

	rapid.Check(t, func(t *rapid.T) {
		n := rapid.Int64Range(1, math.MaxInt64/4).Draw(t, "n")
		p := NewBucket(NewRate(n, 1), 1)
		last := anyInt64.Draw(t, "last")
		at := rapid.Int64Range(last, math.MaxInt64).Draw(t, "at")
		limit := rapid.Int64Range(0, math.MaxInt64).Draw(t, "limit")
		want := new(big.Int).Mul(new(big.Int).Sub(bigOf(at), bigOf(last)), bigOf(p.Rate.N))
		if want.Cmp(bigOf(limit)) > 0 {
			want = bigOf(limit)
		}
		require.Equal(t, want.Int64(), p.flow(last, at, limit), "flow(%d, %d, %d) at %d/ns", last, at, limit, n)
	})
}
