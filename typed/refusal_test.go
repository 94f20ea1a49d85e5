package typed

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/numerus-closus/numerus/internal/kernel"
)

// TestRefusalHolds: while a State is unchanged, a one-token DebitIn refused at one instant is
// refused at every instant before its Retry, earlier ones included, with the same Outcome, and
// PeekIn says the same; and such a refusal leaves no whole token, and is not full before its
// Retry. A store may keep the Outcome of such a refusal and answer the checks that follow with it
// until its Retry (keyed/memory does). Every algorithm and And/Or tree of them, along random
// timelines from fresh states and from states another policy wrote, near the ends of the range
// of instants too.
func TestRefusalHolds(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := mustCompile(t, genSpec(t, 3))
		s := p.Fresh()
		if rapid.Bool().Draw(t, "carried") { // a state another policy wrote, continued under p
			q := mustCompile(t, genSpec(t, 2))
			qs := q.Fresh()
			for _, st := range genTimeline(t) {
				in(q).DebitIn(&qs, kernel.FromTime(t0.Add(st.delta)), st.cost)
			}
			s = p.Continue(q, qs, t0)
		}
		at := rapid.SampledFrom([]int64{kernel.FromTime(t0), kernel.MaxInstant - int64(time.Hour), kernel.MinInstant + int64(time.Hour)}).Draw(t, "start")
		for i, st := range genTimeline(t) {
			at = max(min(at+int64(st.delta), kernel.MaxInstant), kernel.MinInstant)
			o, ok := in(p).DebitIn(&s, at, st.cost)
			if ok || st.cost != 1 {
				continue
			}
			require.Zero(t, o.Remaining, "step %d: a refusal of one token at %d", i, at)
			require.Greater(t, o.Retry, at, "step %d: a refusal's Retry", i)
			require.GreaterOrEqual(t, o.Full, o.Retry, "step %d: a refusal's Full before its Retry", i)
			for _, then := range []int64{
				at - rapid.Int64Range(1, 1e12).Draw(t, "back"),
				at - 1, at + 1, o.Retry - 1,
				at + rapid.Int64Range(0, max(o.Retry-at-1, 0)).Draw(t, "ahead"),
			} {
				if then >= o.Retry {
					continue
				}
				c := s
				got, ok := in(p).DebitIn(&c, then, 1)
				require.False(t, ok, "step %d: refused at %d, admitted at %d under %s", i, at, then, p)
				require.Equal(t, o, got, "step %d: refused at %d, then at %d under %s", i, at, then, p)
				got, ok = in(p).PeekIn(&c, then)
				require.False(t, ok, "step %d: peek at %d", i, then)
				require.Equal(t, o, got, "step %d: peek at %d under %s", i, then, p)
			}
		}
	})
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
