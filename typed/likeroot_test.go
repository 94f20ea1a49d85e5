package typed

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// checkLikeRoot draws a spec for L and checks that the typed limiter decides exactly like the
// dynamic one of package numerus on a random timeline.
func checkLikeRoot[L Limiter[L]](t *testing.T, gen func(*rapid.T) Spec) {
	t.Helper()
	rapid.Check(t, func(t *rapid.T) {
		sp := gen(t)
		l, err := FromSpec[L](sp)
		require.NoError(t, err)
		require.Equal(t, sp.String(), l.String())
		sameAnswers(t, Dynamic(l), rootOf(t, sp), t0, genTimeline(t))
	})
}

func leafGen(a Algo) func(*rapid.T) Spec {
	return func(t *rapid.T) Spec {
		sp := genLeaf(t, a)
		if sp.Burst == 0 && (a == AlgoGCRA || a == AlgoToken || a == AlgoLeaky) {
			sp.Burst = sp.Count // typed values name their burst
		}
		return sp
	}
}

func pair(k Algo, a, b func(*rapid.T) Spec) func(*rapid.T) Spec {
	return func(t *rapid.T) Spec { return Spec{Algo: k, Of: []Spec{a(t), b(t)}} }
}

// TestLikeRoot: every typed limiter, and And and Or of them, answers exactly like the numerus
// limiter of the same policy, step by step, on random timelines that also go backwards.
func TestLikeRoot(t *testing.T) {
	t.Run("gcra", func(t *testing.T) { checkLikeRoot[GCRA](t, leafGen(AlgoGCRA)) })
	t.Run("token", func(t *testing.T) { checkLikeRoot[TokenBucket](t, leafGen(AlgoToken)) })
	t.Run("leaky", func(t *testing.T) { checkLikeRoot[LeakyBucket](t, leafGen(AlgoLeaky)) })
	t.Run("finite", func(t *testing.T) { checkLikeRoot[FiniteBucket](t, leafGen(AlgoFinite)) })
	t.Run("window", func(t *testing.T) { checkLikeRoot[FixedWindow](t, leafGen(AlgoWindow)) })
	t.Run("count", func(t *testing.T) { checkLikeRoot[SlidingWindowCount](t, leafGen(AlgoCount)) })
	t.Run("sliding", func(t *testing.T) { checkLikeRoot[SlidingWindow](t, leafGen(AlgoSliding)) })
	t.Run("buckets", func(t *testing.T) { checkLikeRoot[SlidingWindow](t, leafGen(AlgoBuckets)) })
	t.Run("and", func(t *testing.T) {
		checkLikeRoot[And[GCRA, FixedWindow]](t, pair(AlgoAnd, leafGen(AlgoGCRA), leafGen(AlgoWindow)))
	})
	t.Run("and-planned", func(t *testing.T) { // every leaf has a fast path: the flat debit of plan.go
		inner := pair(AlgoAnd, leafGen(AlgoToken), leafGen(AlgoLeaky))
		checkLikeRoot[And[GCRA, And[TokenBucket, LeakyBucket]]](t, pair(AlgoAnd, leafGen(AlgoGCRA), inner))
		inner = pair(AlgoAnd, leafGen(AlgoGCRA), leafGen(AlgoGCRA))
		checkLikeRoot[And[And[GCRA, GCRA], TokenBucket]](t, pair(AlgoAnd, inner, leafGen(AlgoToken)))
		inner = pair(AlgoAnd, leafGen(AlgoWindow), leafGen(AlgoLeaky))
		checkLikeRoot[And[FixedWindow, And[FixedWindow, LeakyBucket]]](t, pair(AlgoAnd, leafGen(AlgoWindow), inner))
	})
	t.Run("and-planned-gcra", func(t *testing.T) { // two or three GCRA leaves: plan.go's debitGCRA
		g := leafGen(AlgoGCRA)
		two, err := FromSpec[And[GCRA, GCRA]](MustParse(t, "gcra 1/s & gcra 5/m"))
		require.NoError(t, err)
		require.NotNil(t, planOf(two).gcra)
		checkLikeRoot[And[GCRA, GCRA]](t, pair(AlgoAnd, g, g))
		checkLikeRoot[And[GCRA, And[GCRA, GCRA]]](t, pair(AlgoAnd, g, pair(AlgoAnd, g, g)))
		checkLikeRoot[And[And[GCRA, GCRA], GCRA]](t, pair(AlgoAnd, pair(AlgoAnd, g, g), g))
	})
	t.Run("and-planned-eight", func(t *testing.T) { // maxPlan leaves of every kind: still planned
		four := pair(AlgoAnd, pair(AlgoAnd, leafGen(AlgoGCRA), leafGen(AlgoToken)),
			pair(AlgoAnd, leafGen(AlgoLeaky), leafGen(AlgoWindow)))
		type four4 = And[And[GCRA, TokenBucket], And[LeakyBucket, FixedWindow]]
		type eight = And[four4, four4]
		l, err := FromSpec[eight](MustParse(t, "((gcra 1/s & token 1/s) & (leaky 1/s & window 1/s)) & ((gcra 1/s & token 1/s) & (leaky 1/s & window 1/s))"))
		require.NoError(t, err)
		require.NotNil(t, planOf(l), "a plan of maxPlan leaves")
		require.Nil(t, planOf(eight{}), "no plan for leaves with no policy")
		checkLikeRoot[eight](t, pair(AlgoAnd, four, four))
	})
	t.Run("and-too-large-to-plan", func(t *testing.T) { // nine leaves: more than maxPlan
		g := leafGen(AlgoGCRA)
		two := pair(AlgoAnd, g, g)
		four, five := pair(AlgoAnd, two, two), pair(AlgoAnd, two, pair(AlgoAnd, g, two))
		type nine = And[And[And[GCRA, GCRA], And[GCRA, GCRA]], And[And[GCRA, GCRA], And[GCRA, And[GCRA, GCRA]]]]
		l, err := FromSpec[nine](MustParse(t, strings.NewReplacer("g", "gcra 1/s").Replace("((g & g) & (g & g)) & ((g & g) & (g & (g & g)))")))
		require.NoError(t, err)
		require.Nil(t, planOf(l), "a plan of nine leaves")
		checkLikeRoot[nine](t, pair(AlgoAnd, four, five))
	})
	t.Run("or", func(t *testing.T) {
		checkLikeRoot[Or[TokenBucket, SlidingWindowCount]](t, pair(AlgoOr, leafGen(AlgoToken), leafGen(AlgoCount)))
	})
	t.Run("nested", func(t *testing.T) {
		inner := pair(AlgoAnd, leafGen(AlgoSliding), leafGen(AlgoLeaky))
		checkLikeRoot[Or[And[SlidingWindow, LeakyBucket], FiniteBucket]](t, pair(AlgoOr, inner, leafGen(AlgoFinite)))
	})
}

// TestPolicyLikeRoot: a Policy compiled from any spec tree decides exactly like the numerus
// limiter built from the same spec.
func TestPolicyLikeRoot(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sp := genSpec(t, 3)
		p, err := Compile(sp)
		require.NoError(t, err)
		sameAnswers(t, p.Limiter(p.Fresh()), rootOf(t, sp), t0, genTimeline(t))
	})
}
