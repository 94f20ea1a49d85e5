package kernel

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGCRAClockBack: a debit at an instant before the latest admitted one counts as at that
// latest one (the slow path's clamp, which the fast path leaves to it): admitted if it would be
// then, and Last never moves back.
func TestGCRAClockBack(t *testing.T) {
	sec := int64(1_000_000_000)
	p := NewGCRA(NewRate(1, sec), 2)
	g, _, ok := p.Fresh().Debit(10*sec, 1)
	require.True(t, ok)
	g, from, ok := g.Debit(9*sec, 1) // a second back: as at 10s, where one token is left
	require.True(t, ok)
	require.Equal(t, 10*sec, from)
	require.Equal(t, GCRA{P: p, TAT: Frac{Q: 12 * sec}, Last: 10 * sec}, g)
}

// TestGCRAStatusRoundsDown: Remaining counts whole tokens only: half a token on its way is not one.
func TestGCRAStatusRoundsDown(t *testing.T) {
	sec := int64(1_000_000_000)
	p := NewGCRA(NewRate(1, sec), 2)
	g, _, ok := p.Fresh().Debit(10*sec, 1)
	require.True(t, ok)
	require.Equal(t, Status{Limit: 2, Remaining: 1, Full: 11 * sec}, g.Status(10*sec+sec/2))
}

// TestDebitTurnsAwayForeignFractions: under a rate of whole nanoseconds per token (N = 1), a
// TAT with a fraction (R ≥ 1, which only a State written under another policy holds) is decided
// by Debit and DebitStatus on the general path, which counts the fraction, and not on the fast
// path, which would drop it and admit a token that Status says is not there.
func TestDebitTurnsAwayForeignFractions(t *testing.T) {
	p := NewGCRA(NewRate(1, 1e9), 1) // 1/s, burst 1: a tolerance of 1e9
	g := GCRA{P: p, TAT: Frac{Q: 0, R: 1e9}, Last: 0}
	_, _, statusOK, _, _ := g.DebitStatus(0, 1)
	require.False(t, statusOK)
	next, from, ok := g.Debit(0, 1)
	wantNext, wantFrom, wantOK := g.debit(0, 1)
	require.Equal(t, wantOK, ok)
	require.Equal(t, wantFrom, from)
	require.Equal(t, wantNext, next)
	require.Zero(t, g.Status(0).Remaining)
	require.False(t, ok, "admitted with no token left")
}
