package upstream

import (
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/numerustest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// t0 is the instant numerustest starts its timelines at, and the tests here theirs.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// TestBudgetObeysTheLaws runs the conformance kit on budgets that know their next windows, that
// know nothing beyond their reset, and that have nothing left, with costs above the quota, which
// are Never.
func TestBudgetObeysTheLaws(t *testing.T) {
	cases := map[string]func() numerus.Limiter{
		"windows":   func() numerus.Limiter { return newBudget("b", 2, t0, t0.Add(500*time.Millisecond), 3, time.Second, 0) },
		"unknown":   func() numerus.Limiter { return newBudget("b", 3, t0, t0.Add(time.Second), 0, 0, 0) },
		"spent":     func() numerus.Limiter { return newBudget("b", 0, t0, t0.Add(300*time.Millisecond), 2, 0, 0) },
		"estimated": func() numerus.Limiter { return newBudget("b", 1, t0, t0.Add(200*time.Millisecond), 3, 0, 0) },
	}
	for name, fresh := range cases {
		t.Run(name, func(t *testing.T) { numerustest.Run(t, fresh, numerustest.WithMaxCost(4)) })
	}
}

// TestSteeredObeysTheLaws runs the kit on a gate's limiter: a local GCRA and two budgets.
func TestSteeredObeysTheLaws(t *testing.T) {
	fresh := func() numerus.Limiter {
		local := numerus.Must(numerus.GCRA(numerus.PerSecond(10), 3))
		qs := []quota{
			{name: "burst", left: 2, reset: 400 * time.Millisecond, limit: 4, window: time.Second},
			{name: "slow", left: 5, reset: 2 * time.Second},
		}
		return newSteered(local).steer(t0, qs, 0)
	}
	numerustest.Run(t, fresh, numerustest.WithMaxCost(5))
}

// TestBudgetSteps: two go before the reset, the third is refused until the reset, exactly; from
// the reset on, three in each second, aligned on it.
func TestBudgetSteps(t *testing.T) {
	var l numerus.Limiter = newBudget("b", 2, t0, t0.Add(10*time.Second), 3, time.Second, 0)
	steps := []struct {
		at   time.Duration
		ok   bool
		from time.Duration // when refused
	}{
		{0, true, 0}, {time.Second, true, 0}, {2 * time.Second, false, 10 * time.Second},
		{10*time.Second - 1, false, 10 * time.Second},
		{10 * time.Second, true, 0}, {10 * time.Second, true, 0}, {10 * time.Second, true, 0},
		{10 * time.Second, false, 11 * time.Second}, {11 * time.Second, true, 0},
	}
	for i, s := range steps {
		next, from, ok := l.Debit(t0.Add(s.at))
		require.Equal(t, s.ok, ok, "step %d at %v", i, s.at)
		if !ok {
			require.True(t, from.Equal(numerus.DebitableFrom(t0.Add(s.from))), "step %d: %v", i, from)
		}
		l = next
	}
}

// TestBudgetNeverHoldsMoreThanItsWindows: an upstream that says 50 are left of a quota of 10
// grants 10, lest the budget refuse after its reset what it admitted before it.
func TestBudgetNeverHoldsMoreThanItsWindows(t *testing.T) {
	b := newBudget("b", 50, t0, t0.Add(time.Second), 10, time.Minute, 0)
	assert.Equal(t, int64(10), b.left)
	assert.Equal(t, int64(0), newBudget("b", -3, t0, t0.Add(time.Second), 0, 0, 0).left, "in flight beyond what is left")
}

// TestSteerMergesOneWindow: announcements of the same window keep the lesser budget and the
// later reset; one of a later window replaces the budget; a budget past its reset that knows
// nothing beyond is dropped; in-flight requests are taken off what is left.
func TestSteerMergesOneWindow(t *testing.T) {
	s := newSteered(numerus.AlwaysAllow())
	s = s.steer(t0, []quota{{name: "a", left: 5, reset: 10 * time.Second}}, 0)
	require.Len(t, s.budgets, 1)
	s = s.steer(t0.Add(time.Second), []quota{{name: "a", left: 7, reset: 9*time.Second + 500*time.Millisecond}}, 0)
	assert.Equal(t, int64(5), s.budgets[0].left, "a response that left before another cannot grant again")
	assert.True(t, s.budgets[0].until.Equal(t0.Add(10*time.Second+500*time.Millisecond)), "the later reset: %v", s.budgets[0].until)
	s = s.steer(t0.Add(2*time.Second), []quota{{name: "a", left: 3, reset: 9 * time.Second}}, 2)
	assert.Equal(t, int64(1), s.budgets[0].left, "two in flight")
	s = s.steer(t0.Add(11*time.Second), []quota{{name: "a", left: 8, reset: 10 * time.Second}}, 0)
	assert.Equal(t, int64(8), s.budgets[0].left, "a new window")
	s = s.steer(t0.Add(30*time.Second), []quota{{name: "b", left: 1, reset: time.Second}}, 0)
	require.Len(t, s.budgets, 1, "a, past its reset, is dropped")
	assert.Equal(t, "b", s.budgets[0].name)
}

// TestSteerKeepsAtMostMaxBudgets: names beyond the sixteenth are not kept.
func TestSteerKeepsAtMostMaxBudgets(t *testing.T) {
	var qs []quota
	for i := range 40 {
		qs = append(qs, quota{name: string(rune('a' + i)), left: 1, reset: time.Minute})
	}
	s := newSteered(numerus.AlwaysAllow()).steer(t0, qs, 0)
	assert.Len(t, s.budgets, maxBudgets)
}

// TestSteeredKeepsTheLocalState: a new budget leaves the local policy as the debits left it.
func TestSteeredKeepsTheLocalState(t *testing.T) {
	var l numerus.Limiter = newSteered(numerus.Must(numerus.FiniteBucket(3)))
	l, _, ok := l.DebitN(t0, 2)
	require.True(t, ok)
	l = l.(steered).steer(t0, []quota{{name: "a", left: 10, reset: time.Minute}}, 0)
	_, _, ok = l.DebitN(t0, 2)
	assert.False(t, ok, "one left of the local three")
	_, _, ok = l.DebitN(t0, 1)
	assert.True(t, ok)
	assert.Equal(t, int64(2), l.(steered).taken)
}
