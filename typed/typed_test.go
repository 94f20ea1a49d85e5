package typed

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/stretchr/testify/assert"
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
	t.Run("and-fast-leaves", func(t *testing.T) { // every leaf has a fast path, of several kinds: the general debit
		inner := pair(AlgoAnd, leafGen(AlgoToken), leafGen(AlgoLeaky))
		checkLikeRoot[And[GCRA, And[TokenBucket, LeakyBucket]]](t, pair(AlgoAnd, leafGen(AlgoGCRA), inner))
		inner = pair(AlgoAnd, leafGen(AlgoGCRA), leafGen(AlgoGCRA))
		checkLikeRoot[And[And[GCRA, GCRA], TokenBucket]](t, pair(AlgoAnd, inner, leafGen(AlgoToken)))
		inner = pair(AlgoAnd, leafGen(AlgoWindow), leafGen(AlgoLeaky))
		checkLikeRoot[And[FixedWindow, And[FixedWindow, LeakyBucket]]](t, pair(AlgoAnd, leafGen(AlgoWindow), inner))
	})
	t.Run("and-fast-gcra", func(t *testing.T) { // two or three GCRA leaves: plan.go's fastAnd
		g := leafGen(AlgoGCRA)
		two, err := FromSpec[And[GCRA, GCRA]](MustParse(t, "gcra 1/s & gcra 5/m"))
		require.NoError(t, err)
		requireFast(t, two, true)
		requireFast(t, And[GCRA, GCRA]{}, false) // leaves with no policy: the general debit
		checkLikeRoot[And[GCRA, GCRA]](t, pair(AlgoAnd, g, g))
		checkLikeRoot[And[GCRA, And[GCRA, GCRA]]](t, pair(AlgoAnd, g, pair(AlgoAnd, g, g)))
		checkLikeRoot[And[And[GCRA, GCRA], GCRA]](t, pair(AlgoAnd, pair(AlgoAnd, g, g), g))
	})
	t.Run("and-eight", func(t *testing.T) { // eight leaves of every kind: the general debit
		four := pair(AlgoAnd, pair(AlgoAnd, leafGen(AlgoGCRA), leafGen(AlgoToken)),
			pair(AlgoAnd, leafGen(AlgoLeaky), leafGen(AlgoWindow)))
		type four4 = And[And[GCRA, TokenBucket], And[LeakyBucket, FixedWindow]]
		type eight = And[four4, four4]
		l, err := FromSpec[eight](MustParse(t, "((gcra 1/s & token 1/s) & (leaky 1/s & window 1/s)) & ((gcra 1/s & token 1/s) & (leaky 1/s & window 1/s))"))
		require.NoError(t, err)
		requireFast(t, l, false)
		checkLikeRoot[eight](t, pair(AlgoAnd, four, four))
	})
	t.Run("and-nine", func(t *testing.T) { // nine GCRA leaves: the general debit
		g := leafGen(AlgoGCRA)
		two := pair(AlgoAnd, g, g)
		four, five := pair(AlgoAnd, two, two), pair(AlgoAnd, two, pair(AlgoAnd, g, two))
		type nine = And[And[And[GCRA, GCRA], And[GCRA, GCRA]], And[And[GCRA, GCRA], And[GCRA, And[GCRA, GCRA]]]]
		l, err := FromSpec[nine](MustParse(t, strings.NewReplacer("g", "gcra 1/s").Replace("((g & g) & (g & g)) & ((g & g) & (g & (g & g)))")))
		require.NoError(t, err)
		requireFast(t, l, false)
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

// TestGCRASteps: a step table over fixed instants, the refusal answer tight to the nanosecond.
func TestGCRASteps(t *testing.T) {
	g, err := NewGCRA(numerus.PerSecond(10), 2)
	require.NoError(t, err)
	steps := []struct {
		at       time.Duration
		cost     int64
		ok       bool
		wantFrom time.Duration
	}{
		{0, 1, true, 0},
		{0, 1, true, 0},
		{0, 1, false, 100 * time.Millisecond},
		{100*time.Millisecond - 1, 1, false, 100 * time.Millisecond},
		{100 * time.Millisecond, 1, true, 100 * time.Millisecond},
		{50 * time.Millisecond, 1, false, 200 * time.Millisecond}, // earlier counts as the latest
		{time.Second, 3, false, -1},                               // above the burst: never
		{time.Second, 2, true, time.Second},
	}
	for i, s := range steps {
		next, from, ok := g.DebitN(t0.Add(s.at), s.cost)
		require.Equal(t, s.ok, ok, "step %d", i)
		if s.wantFrom < 0 {
			require.True(t, from.IsNever(), "step %d: %v", i, from)
		} else {
			require.True(t, from.Equal(numerus.DebitableFrom(t0.Add(s.wantFrom))), "step %d: %v", i, from)
		}
		if !ok {
			require.Equal(t, g, next, "step %d: a refusal changes nothing", i)
		}
		g = next
	}
}

func TestConstructorsNameTheParameter(t *testing.T) {
	cases := []struct {
		name, param string
		err         error
	}{
		{"gcra rate", "rate tokens", second(NewGCRA(numerus.PerSecond(0), 1))},
		{"gcra burst", "burst", second(NewGCRA(numerus.PerSecond(1), 0))},
		{"token", "capacity", second(NewTokenBucket(-1, numerus.PerSecond(1)))},
		{"leaky", "rate period", second(NewLeakyBucket(1, numerus.Per(1, 0)))},
		{"finite", "size", second(NewFiniteBucket(0))},
		{"window", "window", second(NewFixedWindow(0, 1))},
		{"count", "limit", second(NewSlidingWindowCount(time.Second, 0))},
		{"sliding", "window", second(NewSlidingWindow(-time.Second, 1))},
		{"buckets", "windows", second(NewSlidingWindowBucketed(time.Second, 7, 1))},
	}
	for _, c := range cases {
		var pe *numerus.ParamError
		require.True(t, errors.As(c.err, &pe), c.name)
		assert.Equal(t, c.param, pe.Param, c.name)
		assert.ErrorIs(t, c.err, numerus.ErrInvalidArgument, c.name)
	}
}

func second[T any](_ T, err error) error { return err }

// TestZeroValuesDeny: the zero value of every typed limiter denies everything, with Never.
func TestZeroValuesDeny(t *testing.T) {
	check := func(name string, l numerus.Limiter) {
		_, from, ok := l.DebitN(t0, 1)
		assert.False(t, ok, name)
		assert.True(t, from.IsNever(), name)
		assert.Zero(t, l.Status(t0).Remaining, name)
	}
	check("gcra", Dynamic(GCRA{}))
	check("token", Dynamic(TokenBucket{}))
	check("leaky", Dynamic(LeakyBucket{}))
	check("finite", Dynamic(FiniteBucket{}))
	check("window", Dynamic(FixedWindow{}))
	check("count", Dynamic(SlidingWindowCount{}))
	check("sliding", Dynamic(SlidingWindow{}))
	check("and", Dynamic(And[GCRA, FixedWindow]{}))
	check("or", Dynamic(Or[GCRA, FixedWindow]{}))
	check("policy", Policy{}.Limiter(State{}))
	_, err := GCRA{}.MarshalBinary()
	assert.Error(t, err)
	_, err = And[GCRA, FixedWindow]{}.MarshalJSON()
	assert.Error(t, err)
}

// TestDynamicMixes: a typed limiter passed through Dynamic composes with numerus limiters.
func TestDynamicMixes(t *testing.T) {
	g := numerus.Must(NewGCRA(numerus.PerSecond(1), 1))
	w := numerus.Must(numerus.FixedWindow(time.Hour, 1, epoch))
	l := numerus.And(Dynamic(g), w)
	l, _, ok := l.Debit(t0)
	require.True(t, ok)
	_, from, ok := l.Debit(t0.Add(time.Second))
	require.False(t, ok)
	require.True(t, from.Equal(numerus.DebitableFrom(t0.Add(time.Hour))))
	assert.Equal(t, "gcra 1/s burst 1 & window 1/h", l.String())
}

func TestFromSpecMismatch(t *testing.T) {
	_, err := FromSpec[GCRA](MustParse(t, "token 1/s"))
	assert.ErrorIs(t, err, ErrMismatch)
	_, err = FromSpec[And[GCRA, GCRA]](MustParse(t, "1/s | 2/s"))
	assert.ErrorIs(t, err, ErrMismatch)
	_, err = FromSpec[GCRA](Spec{Algo: AlgoGCRA})
	assert.ErrorIs(t, err, numerus.ErrInvalidArgument)
}

func MustParse(t testing.TB, text string) Spec {
	t.Helper()
	sp, err := Parse(text)
	require.NoError(t, err)
	return sp
}

// TestAnswersAreTight: after any history, a refused debit of any policy tree is admitted exactly
// at the instant it answers, and refused a nanosecond before; this is what lets And answer the
// latest of its children's answers without searching.
func TestAnswersAreTight(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := mustCompile(t, genSpec(t, 3))
		s, at := lived(t, p)
		cost := rapid.Int64Range(1, 4).Draw(t, "cost")
		_, from, ok := p.DebitN(s, at, cost)
		when, finite := from.Time()
		if ok || !finite {
			return
		}
		_, _, ok = p.DebitN(s, when, cost)
		require.True(t, ok, "%s: refused at its own answer %v", p, when)
		_, _, ok = p.DebitN(s, when.Add(-1), cost)
		require.False(t, ok, "%s: admitted before its answer %v", p, when)
	})
}

// TestAndOfFourGCRAs: an And of four GCRA leaves takes the general debit, not the straight-line
// path of two or three, and debits like the root: every leaf, the third too.
func TestAndOfFourGCRAs(t *testing.T) {
	g := leafGen(AlgoGCRA)
	four, err := FromSpec[And[And[GCRA, GCRA], And[GCRA, GCRA]]](MustParse(t, "(gcra 1/s & gcra 2/s) & (gcra 3/s & gcra 4/s)"))
	require.NoError(t, err)
	requireFast(t, four, false)
	checkLikeRoot[And[And[GCRA, GCRA], And[GCRA, GCRA]]](t, pair(AlgoAnd, pair(AlgoAnd, g, g), pair(AlgoAnd, g, g)))
}
