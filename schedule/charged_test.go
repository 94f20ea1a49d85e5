package schedule

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/numerus-closus/numerus"
	"pgregory.net/rapid"
)

// lineage is a limiter that remembers the debits that made it: each value it returns carries its
// history, so the limiter a gate holds at the end lists exactly the charges the gate committed,
// in their order, and none of the debits it only played (forecasts, its plan, hand-ons).
type lineage struct {
	numerus.Limiter
	last *charge // the latest debit that made this value, or nil
}

// charge is one debit in a lineage.
type charge struct {
	at   time.Time
	cost int64
	prev *charge
}

func (l lineage) Debit(at time.Time) (numerus.Limiter, numerus.NextDebitable, bool) {
	return l.DebitN(at, 1)
}

func (l lineage) DebitN(at time.Time, cost int64) (numerus.Limiter, numerus.NextDebitable, bool) {
	next, from, ok := l.Limiter.DebitN(at, cost)
	if !ok {
		return l, from, false
	}
	return lineage{next, &charge{at: at, cost: cost, prev: l.last}}, from, true
}

// charges returns the debits that made l, first to last.
func (l lineage) charges() []charge {
	var cs []charge
	for c := l.last; c != nil; c = c.prev {
		cs = append(cs, *c)
	}
	slices.Reverse(cs)
	return cs
}

// taken is what one Take returned, and the instant it returned at.
type taken struct {
	cost     int64
	at       time.Time
	returned time.Time
	err      error
}

// takerPlan is one goroutine's takes: a cost each, a gap before it, and a timeout or none.
type takerPlan struct {
	costs    []int64
	gaps     []time.Duration
	timeouts []time.Duration // zero for none
}

func drawTaker(t *rapid.T) takerPlan {
	var p takerPlan
	for range rapid.IntRange(1, 6).Draw(t, "takes") {
		p.costs = append(p.costs, rapid.Int64Range(1, 4).Draw(t, "cost"))
		p.gaps = append(p.gaps, time.Duration(rapid.Int64Range(0, 5e8).Draw(t, "gap")))
		var timeout time.Duration
		if rapid.Bool().Draw(t, "with a timeout") {
			timeout = time.Duration(rapid.Int64Range(1, 2e9).Draw(t, "timeout"))
		}
		p.timeouts = append(p.timeouts, timeout)
	}
	return p
}

// takeAll runs the plans' takes from g in a goroutine each, while pauses are asked at their
// instants, and returns what every Take returned.
func takeAll(ctx context.Context, g *Gate, plans []takerPlan, pauses map[time.Duration]time.Duration) []taken {
	var mu sync.Mutex
	var got []taken
	var wg sync.WaitGroup
	for _, p := range plans {
		wg.Go(func() {
			for i, cost := range p.costs {
				time.Sleep(p.gaps[i])
				c, cancel := ctx, context.CancelFunc(func() {})
				if p.timeouts[i] > 0 {
					c, cancel = context.WithTimeout(ctx, p.timeouts[i])
				}
				at, err := g.Take(c, cost)
				cancel()
				mu.Lock()
				got = append(got, taken{cost, at, time.Now(), err})
				mu.Unlock()
			}
		})
	}
	start := time.Now()
	for at, d := range pauses {
		wg.Go(func() {
			time.Sleep(time.Until(start.Add(at)))
			g.RetryAfter(d)
		})
	}
	wg.Wait()
	return got
}

// TestGateReturnsTheInstantsItCharges: whatever the policy, the takers, their costs and
// timeouts, the pauses and the lateness of every wake-up, the instants that Take returns are
// exactly the instants the gate charged (the debits its limiter is made of, matched one to one
// with the takes that succeeded, with their costs), non-decreasing in the order of the charges;
// replayed through a fresh copy of the policy they are all admitted; each is at or before the
// instant its Take returned; and a Take that failed returns the zero time.
func TestGateReturnsTheInstantsItCharges(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		policy := twinLimiters[rapid.IntRange(0, len(twinLimiters)-1).Draw(rt, "policy")]
		late := lates[rapid.IntRange(0, len(lates)-1).Draw(rt, "late")]
		var plans []takerPlan
		for range rapid.IntRange(1, 5).Draw(rt, "takers") {
			plans = append(plans, drawTaker(rt))
		}
		pauses := map[time.Duration]time.Duration{}
		for range rapid.IntRange(0, 2).Draw(rt, "pauses") {
			pauses[time.Duration(rapid.Int64Range(0, 2e9).Draw(rt, "pause at"))] = time.Duration(rapid.Int64Range(1, 1e9).Draw(rt, "pause for"))
		}
		var got []taken
		var charges []charge
		synctest.Test(t, func(t *testing.T) {
			g := newGate(lineage{Limiter: policy()}, lateReal{late: late})
			got = takeAll(t.Context(), g, plans, pauses)
			charges = g.Limiter().(lineage).charges()
		})
		checkCharges(rt, policy(), got, charges)
	})
}

// checkCharges checks the takes against the charges (see TestGateReturnsTheInstantsItCharges).
func checkCharges(t *rapid.T, fresh numerus.Limiter, got []taken, charges []charge) {
	var returned []charge
	for _, tk := range got {
		switch {
		case tk.err != nil && !tk.at.IsZero():
			t.Fatalf("failed with %v, but returned %v", tk.err, tk.at)
		case tk.err == nil && tk.at.After(tk.returned):
			t.Fatalf("returned at %v the instant %v", tk.returned, tk.at)
		case tk.err == nil:
			returned = append(returned, charge{at: tk.at, cost: tk.cost})
		}
	}
	l := fresh
	for i, c := range charges {
		if i > 0 && c.at.Before(charges[i-1].at) {
			t.Fatalf("charge %d at %v, before the one before it at %v", i, c.at, charges[i-1].at)
		}
		var ok bool
		if l, _, ok = l.DebitN(c.at, c.cost); !ok {
			t.Fatalf("charge %d (%d at %v) is beyond the policy", i, c.cost, c.at)
		}
	}
	byInstant := func(a, b charge) int { return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.cost, b.cost)) }
	slices.SortFunc(returned, byInstant)
	sorted := slices.Clone(charges)
	slices.SortFunc(sorted, byInstant)
	if !slices.EqualFunc(returned, sorted, func(a, b charge) bool { return a.at.Equal(b.at) && a.cost == b.cost }) {
		t.Fatalf("Take returned %v, the gate charged %v", returned, sorted)
	}
}
