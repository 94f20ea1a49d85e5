package numerus_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/numerus-closus/numerus"
)

// TestOutOfOrder is the property that an instant earlier than the latest admitted one mints
// nothing (PITFALLS 1 and 2): every algorithm, driven by a timeline that steps back, decides
// exactly as the same algorithm driven by the in-order timeline, where each instant is moved up
// to the latest admitted one.
func TestOutOfOrder(t *testing.T) {
	for _, kind := range kinds {
		t.Run(kind, rapid.MakeCheck(func(t *rapid.T) {
			p := drawPolicy(t, kind)
			jumbled, ordered := p.l, p.l
			at := drawEra(t)
			latest := at.Add(-time.Hour)
			for i, e := range drawTimeline(t, p.span, p.capacity+1, 60) {
				at = at.Add(time.Duration(e.step))
				u := at
				if u.Before(latest) {
					u = latest
				}
				n1, f1, ok1 := jumbled.DebitN(at, e.cost)
				n2, f2, ok2 := ordered.DebitN(u, e.cost)
				if ok1 != ok2 || !f1.Equal(f2) && !ok1 {
					t.Fatalf("debit %d: %s at %v: %v %v; in order at %v: %v %v", i, jumbled, at, ok1, f1, u, ok2, f2)
				}
				if ok1 {
					jumbled, ordered, latest = n1, n2, u
				}
			}
		}))
	}
}

// TestBackAndForth replays the x/time/rate failure of PITFALLS 1: 10,000 events within 10ms whose
// instants keep going back by up to 3ms, against 1000/s with a burst of 10. The bound is 20 (10
// at once, 10 more in 10ms) and every algorithm admits exactly what it admits in order. Then the
// same instant repeated 1000 times takes the burst and no more (PITFALLS 2).
func TestBackAndForth(t *testing.T) {
	rate := numerus.Per(1000, time.Second)
	for _, c := range []struct {
		l     numerus.Limiter
		bound int
	}{
		{numerus.Must(numerus.GCRA(rate, 10)), 20},
		{numerus.Must(numerus.TokenBucket(10, rate)), 20},
		{numerus.Must(numerus.LeakyBucket(10, rate)), 20},
		{numerus.Must(numerus.SlidingWindow(10*time.Millisecond, 10)), 10},
		{numerus.Must(numerus.SlidingWindowBucketed(10*time.Millisecond, 5, 10)), 10},
		{numerus.Must(numerus.FixedWindow(10*time.Millisecond, 10, t0)), 10},
		{numerus.Must(numerus.SlidingWindowCount(10*time.Millisecond, 10, t0)), 10},
		{numerus.Must(numerus.FiniteBucket(10)), 10},
	} {
		t.Run(c.l.String(), func(t *testing.T) {
			jumbled, ordered := 0, 0
			l, m := c.l, c.l
			latest := t0
			for i := range 10_000 {
				at := t0.Add(time.Duration(i) * time.Microsecond)
				if i%2 == 1 {
					at = at.Add(-time.Duration(i%3000) * time.Microsecond)
				}
				if next, _, ok := l.Debit(at); ok {
					l, jumbled = next, jumbled+1
				}
				if at.After(latest) {
					latest = at
				}
				if next, _, ok := m.Debit(latest); ok {
					m, ordered = next, ordered+1
				}
			}
			require.LessOrEqual(t, jumbled, c.bound)
			require.LessOrEqual(t, jumbled, ordered, "admitted out of order, and in order")

			same := 0
			l = c.l
			for range 1000 {
				if next, _, ok := l.Debit(t0); ok {
					l, same = next, same+1
				}
			}
			require.Equal(t, 10, same, "the same instant repeated")
		})
	}
}

// TestBucketsEquivalent is the property that GCRA(rate, b), TokenBucket(b, rate) and
// LeakyBucket(b, rate) decide identically, answers and status included, on every timeline.
func TestBucketsEquivalent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.Int64Range(1, 8).Draw(t, "burst")
		tokens, per := rapid.Int64Range(1, 9).Draw(t, "rate tokens"), periods().Draw(t, "rate period")
		ls := []numerus.Limiter{bucket("gcra", n, tokens, per).l, bucket("token", n, tokens, per).l,
			bucket("leaky", n, tokens, per).l}
		at := drawEra(t)
		for i, e := range drawTimeline(t, max(n*per/tokens, 1), n+1, 60) {
			at = at.Add(time.Duration(e.step))
			n0, f0, ok0 := ls[0].DebitN(at, e.cost)
			s0 := ls[0].Status(at)
			for j, l := range ls[1:] {
				next, f, ok := l.DebitN(at, e.cost)
				if s := l.Status(at); ok != ok0 || !f.Equal(f0) || !sameStatus(s, s0) {
					t.Fatalf("debit %d: %s: %v %v %+v; %s: %v %v %+v", i, ls[0], ok0, f0, s0, l, ok, f, s)
				}
				if ok {
					ls[j+1] = next
				}
			}
			if ok0 {
				ls[0] = n0
			}
		}
	})
}

func sameStatus(a, b numerus.Status) bool {
	return a.Limit == b.Limit && a.Remaining == b.Remaining && a.Full.Equal(b.Full)
}
