package typed

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/numerus-closus/numerus/internal/kernel"
)

// lived debits p's fresh state along a random timeline and returns it with the latest instant.
func lived(t *rapid.T, p Policy) (State, time.Time) {
	s, at, latest := p.Fresh(), t0, t0
	for _, st := range genTimeline(t) {
		at = at.Add(st.delta)
		if at.After(latest) {
			latest = at
		}
		s, _, _ = p.DebitN(s, at, st.cost)
	}
	return s, latest
}

// TestContinueSamePolicy: re-applying the same policy returns the state unchanged.
func TestContinueSamePolicy(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sp := genSpec(t, 3)
		p, _ := Compile(sp)
		again, _ := Compile(MustParseR(t, sp.String()))
		s, at := lived(t, p)
		require.Equal(t, s, again.Continue(p, s, at))
	})
}

// TestContinueCarriesTheLesser: a single bucket carries the lesser of its tokens and the new
// capacity (so a larger capacity does not refill); a single window carries its count capped at the
// new limit, its remaining never growing.
func TestContinueCarriesTheLesser(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := mustCompile(t, genLeaf(t, rapid.SampledFrom(leafAlgos).Draw(t, "from")))
		b := mustCompile(t, genLeaf(t, rapid.SampledFrom(leafAlgos).Draw(t, "to")))
		s, at := lived(t, a)
		at = at.Add(rapid.SampledFrom([]time.Duration{0, time.Millisecond, time.Second}).Draw(t, "later"))
		before := a.Status(s, at)
		after := b.Status(b.Continue(a, s, at), at)
		want := min(before.Remaining, after.Limit)
		if !b.c.leaves[0].k.bucket() {
			used := before.Limit - before.Remaining
			want = min(before.Remaining, max(after.Limit-used, 0))
		}
		require.Equal(t, want, after.Remaining, "%s (%d of %d) to %s", a, before.Remaining, before.Limit, b)
	})
}

// TestContinueNeverCreatesTokens: switching from a policy to another and back, at any instant,
// leaves no more tokens than staying, at that instant and at every later one.
func TestContinueNeverCreatesTokens(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := mustCompile(t, genSpec(t, 2))
		b := mustCompile(t, genSpec(t, 2))
		s, at := lived(t, a)
		back := a.Continue(b, b.Continue(a, s, at), at)
		for _, d := range []time.Duration{0, 1, time.Millisecond, 333 * time.Millisecond, time.Second,
			7 * time.Second, time.Minute, 17 * time.Minute, time.Hour} {
			stay, switched := a.Status(s, at.Add(d)).Remaining, a.Status(back, at.Add(d)).Remaining
			require.LessOrEqual(t, switched, stay, "%s and back through %s, after %v", a, b, d)
		}
		_, _, okStay := a.DebitN(s, at, 1)
		if _, _, ok := a.DebitN(back, at, 1); ok {
			require.True(t, okStay, "the switched state admits what the original refuses")
		}
	})
}

// reversed returns sp with the children of every And and Or in reverse order: a policy that
// decides exactly like sp (both charge every child that admits), in another tree.
func reversed(sp Spec) Spec {
	if len(sp.Of) == 0 {
		return sp
	}
	of := make([]Spec, len(sp.Of))
	for i, c := range sp.Of {
		of[len(of)-1-i] = reversed(c)
	}
	sp.Of = of
	return sp
}

// anded returns sp with every Or made an And.
func anded(sp Spec) Spec {
	if len(sp.Of) == 0 {
		return sp
	}
	if sp.Algo == AlgoOr {
		sp.Algo = AlgoAnd
	}
	of := make([]Spec, len(sp.Of))
	for i, c := range sp.Of {
		of[i] = anded(c)
	}
	sp.Of = of
	return sp
}

// TestContinueToAnEqualTree: continuing under a tree that decides like the old one but lists its
// children in another order admits no more tokens than staying, on every later timeline of single
// tokens, at every step. A leaf must not continue from the old leaf at its place, which is another
// leaf. The trees are Ands, and costs 1: holding fewer tokens then never lets a subject take more
// later. (With larger costs, a state holding fewer tokens may refuse a large debit that staying
// admits, then admit small ones that staying refuses; an Or charges each child that admits, so
// one child holding fewer tokens is charged less, and may admit sooner.)
func TestContinueToAnEqualTree(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sp := anded(genSpec(t, 2))
		a, b := mustCompile(t, sp), mustCompile(t, reversed(sp))
		s, at := lived(t, a)
		change := at
		stay, moved, stayed, took := s, b.Continue(a, s, change), int64(0), int64(0)
		for _, st := range genTimeline(t) {
			// Not before the change: before it, the carried leaves count an instant as the change's,
			// and the old ones as their latest admission's, where they may have held fewer tokens.
			if at = at.Add(st.delta); at.Before(change) {
				at = change
			}
			var okStay, okMoved bool
			if stay, _, okStay = a.DebitN(stay, at, 1); okStay {
				stayed++
			}
			if moved, _, okMoved = b.DebitN(moved, at, 1); okMoved {
				took++
			}
			if took > stayed {
				t.Fatalf("%s continued as %s took %d tokens by %v, staying %d", a, b, took, at, stayed)
			}
		}
	})
}

// TestContinueKeepsLogs: a log leaf that a change keeps, or a policy compiled again from the same
// text, keeps the log's entries through the next debits. The kept log still names the policy
// compiled first; it must not be taken for another policy's log and made afresh, which handed
// its tokens out again (an Or writes the refusing log back as it read it).
func TestContinueKeepsLogs(t *testing.T) {
	text := "sliding 2/h | gcra 1/s burst 1"
	a, again, b := MustCompile(text), MustCompile(text), MustCompile("sliding 2/h | gcra 1/s burst 2")
	s := a.Fresh()
	for i := range 2 { // the log's 2 of the hour, at t0 and t0+1s
		var ok bool
		s, _, ok = a.DebitN(s, t0.Add(time.Duration(i)*time.Second), 1)
		require.True(t, ok)
	}
	at := t0.Add(2 * time.Second) // the GCRA holds 1 again; the log none
	for _, p := range []Policy{a, again, b} {
		moved, took := p.Continue(a, s, at), 0
		for range 3 {
			var ok bool
			if moved, _, ok = p.DebitN(moved, at, 1); ok {
				took++
			}
		}
		assert.Equal(t, 1, took, "DebitN under %s after %s", p, a)
		moved, took = p.Continue(a, s, at), 0
		for range 3 {
			if _, ok := in(p).DebitIn(&moved, kernel.FromTime(at), 1); ok {
				took++
			}
		}
		assert.Equal(t, 1, took, "DebitIn under %s after %s", p, a)
	}
}

func TestContinueExamples(t *testing.T) {
	p5, p2, p9 := MustCompile("10/s burst 5"), MustCompile("10/s burst 2"), MustCompile("10/s burst 9")
	s, _, _ := p5.DebitN(p5.Fresh(), t0, 2) // 3 left of 5
	assert.Equal(t, int64(2), p2.Status(p2.Continue(p5, s, t0), t0).Remaining, "capped at the new capacity")
	assert.Equal(t, int64(3), p9.Status(p9.Continue(p5, s, t0), t0).Remaining, "a larger capacity does not refill")

	w10, w5, w20 := MustCompile("window 10/h"), MustCompile("window 5/h"), MustCompile("window 20/h")
	s, _, _ = w10.DebitN(w10.Fresh(), t0, 7) // 3 left of 10
	assert.Equal(t, int64(0), w5.Status(w5.Continue(w10, s, t0), t0).Remaining, "count capped at the limit")
	assert.Equal(t, int64(3), w20.Status(w20.Continue(w10, s, t0), t0).Remaining, "a larger limit does not refill")
	s, _, _ = w10.DebitN(w10.Fresh(), t0, 2)
	assert.Equal(t, int64(3), w5.Status(w5.Continue(w10, s, t0), t0).Remaining, "the count carries over")

	// A reordered And: the window continues from the most used leaf, not from the GCRA at its
	// place, which is full again: the sixth debit within the hour is refused as before.
	gw, wg := MustCompile("gcra 1/s burst 1 & window 5/h"), MustCompile("window 5/h & gcra 1/s burst 1")
	s = gw.Fresh()
	for i := range 5 {
		var ok bool
		s, _, ok = gw.DebitN(s, t0.Add(time.Duration(i)*time.Second), 1)
		require.True(t, ok, "debit %d", i)
	}
	moved := wg.Continue(gw, s, t0.Add(5*time.Second))
	_, _, ok := wg.DebitN(moved, t0.Add(6*time.Second), 1)
	assert.False(t, ok, "reordering the tree gave back the window's count")

	// Raising one of two GCRAs: the hourly leaf continues from the hourly one (990 left), not
	// from the most used leaf (the per-second one, just spent), so a second later 10 fit again.
	two, raised := MustCompile("gcra 10/s burst 10 & gcra 1000/h burst 1000"), MustCompile("gcra 10/s burst 10 & gcra 2000/h burst 2000")
	s, _, _ = two.DebitN(two.Fresh(), t0, 10)
	assert.Equal(t, int64(10), raised.Status(raised.Continue(two, s, t0), t0.Add(time.Second)).Remaining)

	assert.Equal(t, State{}, Policy{}.Continue(p5, s, t0))
	same := MustCompile("gcra 20/2s burst 5")
	s, _, _ = p5.DebitN(p5.Fresh(), t0.Add(time.Millisecond), 1)
	assert.Equal(t, s, same.Continue(p5, s, t0), "a policy that decides alike changes nothing")
	assert.Equal(t, p5.Fresh(), p5.Continue(Policy{}, s, t0))
}

func TestDecidesLike(t *testing.T) {
	ten := MustCompile("10/s burst 10")
	assert.True(t, ten.DecidesLike(ten))
	assert.True(t, ten.DecidesLike(MustCompile("10/s burst 10")), "compiled apart")
	assert.True(t, ten.DecidesLike(MustCompile("gcra 20/2s burst 10")), "written otherwise")
	assert.False(t, ten.DecidesLike(MustCompile("10/s burst 11")))
	assert.False(t, ten.DecidesLike(MustCompile("token 10/s burst 10")), "another algorithm")
	assert.True(t, MustCompile("gcra 10/s").DecidesLike(MustCompile("gcra 10/s burst 1")), "the default burst")
	assert.True(t, MustCompile("10/s").DecidesLike(MustCompile("sliding 10/1000ms")), "a bare rate")
	assert.False(t, MustCompile("10/s").DecidesLike(ten), "a bare rate is no GCRA")
	assert.False(t, MustCompile("10/s & 5/min").DecidesLike(MustCompile("5/min & 10/s")), "another order")
	assert.False(t, ten.DecidesLike(Policy{}))
	assert.True(t, Policy{}.DecidesLike(Policy{}))
}

// TestDecidesLikeWeighsEveryParameter: two leaves that differ in one parameter only (a bucket's
// capacity, a finite bucket's size, a GCRA's count in lowest terms) are different policies, and
// a state carried from the larger to the smaller holds no more than the smaller allows.
func TestDecidesLikeWeighsEveryParameter(t *testing.T) {
	for _, c := range []struct{ from, to string }{
		{"token 10/s burst 100", "token 10/s burst 10"},
		{"leaky 10/s burst 100", "leaky 10/s burst 10"},
		{"finite 100", "finite 2"},
		{"gcra 3/7ns burst 2", "gcra 2/7ns burst 2"},
	} {
		from, to := MustCompile(c.from), MustCompile(c.to)
		require.False(t, to.DecidesLike(from), "%s decides like %s", c.to, c.from)
		next := to.Continue(from, from.Fresh(), t0)
		limit := to.Status(next, t0).Limit
		assert.LessOrEqual(t, to.Status(next, t0).Remaining, limit, "%s to %s", c.from, c.to)
		admitted := int64(0)
		for range 2 * limit {
			var ok bool
			if next, _, ok = to.DebitN(next, t0, 1); ok {
				admitted++
			}
		}
		assert.LessOrEqual(t, admitted, limit, "%s to %s admits more than %s allows", c.from, c.to, c.to)
	}
}

// TestDecidesLikeWeighsTheTree: trees of the same leaves in the same order but of other inner
// nodes, or of inner nodes holding other numbers of children, are different policies.
func TestDecidesLikeWeighsTheTree(t *testing.T) {
	for _, c := range [][2]string{
		{"1/s & 2/s", "1/s | 2/s"},
		{"(1/s & 2/s) | 3/s | 4/s", "(1/s & 2/s & 3/s) | 4/s"},
	} {
		a, b := MustCompile(c[0]), MustCompile(c[1])
		assert.False(t, a.DecidesLike(b), "%s decides like %s", a, b)
		assert.False(t, b.DecidesLike(a), "%s decides like %s", b, a)
	}
}

// TestContinuePairsOnlyLoneChangesOfBothTrees: a changed leaf continues from the old leaf at its
// place only when both are the only changed leaves of their algorithm in their trees. From
// "gcra 1/s burst 1 | token 100/h burst 100" with the hourly bucket spent, the new tree
// "gcra 100/h burst 100 | gcra 1/s burst 1" changes two GCRAs: the hourly one at the place of
// the old per-second GCRA does not take its token, and both start from the most used old leaf.
func TestContinuePairsOnlyLoneChangesOfBothTrees(t *testing.T) {
	p := MustCompile("gcra 1/s burst 1 | token 100/h burst 100")
	q := MustCompile("gcra 100/h burst 100 | gcra 1/s burst 1")
	s, _, ok := p.DebitN(p.Fresh(), t0, 100) // the hourly bucket admits it, spent; the GCRA keeps 1
	require.True(t, ok)
	next := q.Continue(p, s, t0)
	assert.Equal(t, int64(0), q.Status(next, t0).Remaining)
	_, _, ok = q.DebitN(next, t0, 1)
	assert.False(t, ok, "a new leaf continues from an old one of its algorithm that another changed leaf shares")
}

// TestContinueCountsAtTheLatestInstant: a change read at an instant before the latest one the
// state admitted counts the carried tokens as used at that latest instant, so a clock behind by a
// second does not refill the new policy for that second.
func TestContinueCountsAtTheLatestInstant(t *testing.T) {
	p, q := mustCompile(t, MustParseR(t, "gcra 10/s burst 10")), mustCompile(t, MustParseR(t, "gcra 20/s burst 20"))
	s, _, ok := p.DebitN(p.Fresh(), t0.Add(time.Second), 10)
	require.True(t, ok)
	next := q.Continue(p, s, t0) // the clock reads a second earlier than the debit
	assert.Equal(t, int64(0), q.Status(next, t0.Add(time.Second)).Remaining)
	_, _, ok = q.DebitN(next, t0.Add(time.Second), 1)
	assert.False(t, ok, "the drained subject takes a token at once after the change")
}

// TestContinuePairsOnlyLoneChanges: a changed GCRA continues from the old GCRA at its place only
// if that is the only changed GCRA of the old tree too; here the other old GCRA became a token
// bucket, so both new leaves start from the most used old leaf (the spent hourly one), and the Or
// admits nothing at once.
func TestContinuePairsOnlyLoneChanges(t *testing.T) {
	p := mustCompile(t, MustParseR(t, "gcra 1/s | gcra 100/h burst 100"))
	q := mustCompile(t, MustParseR(t, "gcra 2/s burst 2 | token 100/h burst 100"))
	s, _, ok := p.DebitN(p.Fresh(), t0, 100) // the hourly GCRA admits it, spent; the other keeps 1
	require.True(t, ok)
	next := q.Continue(p, s, t0)
	_, _, ok = q.DebitN(next, t0, 1)
	assert.False(t, ok, "a new leaf holds more than the most used old leaf")
	assert.Equal(t, int64(0), q.Status(next, t0).Remaining)
}
