package typed

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// raisedAlike runs jumbled along the timeline from start and raised along the same timeline with
// each instant raised to the latest instant admitted at so far, and fails at the first step where
// they differ in decision, refusal answer or status.
func raisedAlike(t require.TestingT, jumbled, raised numerus.Limiter, start time.Time, steps []step) {
	at, latest := start, time.Time{}
	for i, s := range steps {
		at = at.Add(s.delta)
		u := at
		if u.Before(latest) {
			u = latest
		}
		nj, fj, okj := jumbled.DebitN(at, s.cost)
		nr, fr, okr := raised.DebitN(u, s.cost)
		require.Equal(t, okr, okj, "step %d: %s at %v cost %d (raised to %v): admitted", i, jumbled, at, s.cost, u)
		require.True(t, okj || fj.Equal(fr), "step %d: %s at %v: from %v, raised %v", i, jumbled, at, fj, fr)
		if okj {
			jumbled, raised, latest = nj, nr, u
		}
		sj, sr := jumbled.Status(at), raised.Status(latestOf(at, latest))
		require.Equal(t, sr.Remaining, sj.Remaining, "step %d: remaining", i)
		require.True(t, sj.Full.Equal(sr.Full), "step %d: full %v, raised %v", i, sj.Full, sr.Full)
	}
}

func latestOf(a, b time.Time) time.Time {
	if a.Before(b) {
		return b
	}
	return a
}

// checkRaised draws a spec for L and checks the time rule of the typed limiter as a whole.
func checkRaised[L Limiter[L]](t *testing.T, gen func(*rapid.T) Spec) {
	t.Helper()
	rapid.Check(t, func(t *rapid.T) {
		sp := gen(t)
		l, err := FromSpec[L](sp)
		require.NoError(t, err)
		raisedAlike(t, Dynamic(l), Dynamic(l), t0, genJumbled(t))
	})
}

// genJumbled draws debits that step back as often as they step on, by as much.
func genJumbled(t *rapid.T) []step {
	deltas := []time.Duration{0, 1, time.Millisecond, 100 * time.Millisecond, time.Second,
		7 * time.Second, time.Minute, -1, -time.Millisecond, -100 * time.Millisecond, -time.Second,
		-7 * time.Second, -time.Minute}
	return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) step {
		return step{delta: rapid.SampledFrom(deltas).Draw(t, "delta"), cost: rapid.Int64Range(1, 4).Draw(t, "cost")}
	}), 1, 60).Draw(t, "timeline")
}

// TestCompositeOutOfOrder is the time rule of composites (PITFALLS 31), for the static And and Or
// of every shape and for compiled Policies: a timeline that steps back decides at every step as
// the same timeline with each instant raised to the latest instant admitted at, in decisions,
// refusal answers and status. An Or that handed an earlier instant to a child that took no part
// in its latest admission let that child free capacity early.
func TestCompositeOutOfOrder(t *testing.T) {
	g, w, tb, lk := leafGen(AlgoGCRA), leafGen(AlgoWindow), leafGen(AlgoToken), leafGen(AlgoLeaky)
	f, sl, c := leafGen(AlgoFinite), leafGen(AlgoSliding), leafGen(AlgoCount)
	t.Run("or2", func(t *testing.T) { checkRaised[Or[GCRA, FixedWindow]](t, pair(AlgoOr, g, w)) })
	t.Run("or2-finite", func(t *testing.T) { checkRaised[Or[FiniteBucket, TokenBucket]](t, pair(AlgoOr, f, tb)) })
	t.Run("or3", func(t *testing.T) {
		checkRaised[Or[TokenBucket, Or[FiniteBucket, SlidingWindow]]](t, pair(AlgoOr, tb, pair(AlgoOr, f, sl)))
	})
	t.Run("and-of-or", func(t *testing.T) {
		checkRaised[And[Or[GCRA, FiniteBucket], SlidingWindowCount]](t, pair(AlgoAnd, pair(AlgoOr, g, f), c))
	})
	t.Run("or-of-and", func(t *testing.T) {
		checkRaised[Or[And[GCRA, FixedWindow], FiniteBucket]](t, pair(AlgoOr, pair(AlgoAnd, g, w), f))
	})
	t.Run("depth3", func(t *testing.T) {
		type tree = And[Or[And[GCRA, FixedWindow], LeakyBucket], Or[FiniteBucket, SlidingWindowCount]]
		checkRaised[tree](t, pair(AlgoAnd, pair(AlgoOr, pair(AlgoAnd, g, w), lk), pair(AlgoOr, f, c)))
	})
	t.Run("policy", rapid.MakeCheck(func(t *rapid.T) { // an And or Or at the root, to depth 3
		sp := Spec{Algo: rapid.SampledFrom([]Algo{AlgoAnd, AlgoOr}).Draw(t, "op")}
		for range rapid.IntRange(2, 3).Draw(t, "children") {
			sp.Of = append(sp.Of, genSpec(t, 2))
		}
		p, err := Compile(sp)
		require.NoError(t, err)
		raisedAlike(t, p.Limiter(p.Fresh()), p.Limiter(p.Fresh()), t0, genJumbled(t))
	}))
}

// TestPolicyOutOfOrderLong: 2·10^5 debits about a millisecond apart, jittered by up to 5ms either
// way, through compiled Or and And-of-Or policies, decided as given and with each instant raised to
// the latest admitted one: the same answers at every debit.
func TestPolicyOutOfOrderLong(t *testing.T) {
	for _, text := range []string{"gcra 300/s burst 5 | sliding 400/s", "(gcra 300/s burst 5 | window 60/100ms) & count 500/s"} {
		t.Run(text, func(t *testing.T) {
			p := MustCompile(text)
			rng := rand.New(rand.NewPCG(1, 2))
			jumbled, raised, latest := p.Fresh(), p.Fresh(), t0
			for i := range 200_000 {
				at := t0.Add(time.Duration(i)*time.Millisecond + time.Duration(rng.Int64N(10_000_001)-5_000_000))
				cost := 1 + rng.Int64N(3)
				u := latestOf(at, latest)
				n1, f1, ok1 := p.DebitN(jumbled, at, cost)
				n2, f2, ok2 := p.DebitN(raised, u, cost)
				if ok1 != ok2 || !ok1 && !f1.Equal(f2) {
					t.Fatalf("debit %d at %v cost %d: %v %v; raised to %v: %v %v", i, at, cost, ok1, f1, u, ok2, f2)
				}
				if ok1 {
					jumbled, raised, latest = n1, n2, u
				}
			}
		})
	}
}
