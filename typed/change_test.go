package typed

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
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

	assert.Equal(t, State{}, Policy{}.Continue(p5, s, t0))
	same := MustCompile("gcra 20/2s burst 5")
	s, _, _ = p5.DebitN(p5.Fresh(), t0.Add(time.Millisecond), 1)
	assert.Equal(t, s, same.Continue(p5, s, t0), "a policy that decides alike changes nothing")
	assert.Equal(t, p5.Fresh(), p5.Continue(Policy{}, s, t0))
}

func mustCompile(t require.TestingT, sp Spec) Policy {
	p, err := Compile(sp)
	require.NoError(t, err)
	return p
}

func MustParseR(t require.TestingT, text string) Spec {
	sp, err := Parse(text)
	require.NoError(t, err)
	return sp
}
