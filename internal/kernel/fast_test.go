package kernel

import (
	"math"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// A fastCase is a kernel with a fast path: a fresh value, and its Debit (fast path first) and
// debit (the general path).
type fastCase[K comparable] struct {
	fresh       func(Rate, int64) K
	Debit, slow func(K, int64, int64) (K, int64, bool)
}

// checkFast checks that Debit, which decides the common case in Fast, answers exactly like debit,
// the general path, from every state a timeline reaches: rates of whole and fractional nanoseconds
// per token, instants in order, backwards, equal, and near both ends of the range, costs from 1 to
// beyond the burst. Refusals must leave the value as it was.
func checkFast[K comparable](t *testing.T, c fastCase[K]) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.OneOf(rapid.Just(int64(1)), rapid.Int64Range(1, 1000)).Draw(t, "n")
		per := rapid.OneOf(rapid.Int64Range(1, 1e6), rapid.Int64Range(1, 1e15)).Draw(t, "per")
		rate := NewRate(n, per)
		burst := rapid.Int64Range(1, 100).Draw(t, "burst")
		if !rate.FitsBurst(burst) { // at most 100 tokens of at most 10^15 ns each: it always fits
			t.Fatalf("the policy %d per %d, burst %d, does not fit", n, per, burst)
		}
		k := c.fresh(rate, burst)
		at := rapid.OneOf(rapid.Int64Range(-1e9, 1e9), rapid.Just(MaxInstant-3*burst*rate.P),
			rapid.Just(MinInstant), rapid.Int64Range(MaxInstant-1e12, MaxInstant)).Draw(t, "start")
		for i := range 60 {
			at = drawRateMove(t, rate, at)
			cost := rapid.Int64Range(1, burst+1).Draw(t, "cost")
			fast, fromFast, okFast := c.Debit(k, at, cost)
			slow, fromSlow, okSlow := c.slow(k, at, cost)
			if fast != slow || fromFast != fromSlow || okFast != okSlow || !okFast && fast != k {
				t.Fatalf("debit %d of %d at %d from %+v:\nDebit: %+v %d %v\ndebit: %+v %d %v",
					i, cost, at, k, fast, fromFast, okFast, slow, fromSlow, okSlow)
			}
			k = slow
		}
	})
}

// drawRateMove moves at for a kernel of rate: back by up to one period, not at all, or on by up
// to two tokens' interval.
func drawRateMove(t *rapid.T, rate Rate, at int64) int64 {
	switch rapid.IntRange(0, 5).Draw(t, "move") {
	case 0:
		return SubSat(at, rapid.Int64Range(0, rate.P).Draw(t, "back"))
	case 1:
		return at
	}
	return AddSat(at, rapid.Int64Range(0, 2*rate.P/rate.N+1).Draw(t, "step"))
}

func TestGCRAFastPath(t *testing.T) {
	checkFast(t, fastCase[GCRA]{
		fresh: func(r Rate, burst int64) GCRA { return NewGCRA(r, burst).Fresh() },
		Debit: GCRA.Debit, slow: GCRA.debit,
	})
}

func TestTokenBucketFastPath(t *testing.T) {
	checkFast(t, fastCase[TokenBucket]{
		fresh: func(r Rate, c int64) TokenBucket { return NewBucket(r, c).FreshTokens() },
		Debit: TokenBucket.Debit, slow: TokenBucket.debit,
	})
}

func TestLeakyBucketFastPath(t *testing.T) {
	checkFast(t, fastCase[LeakyBucket]{
		fresh: func(r Rate, c int64) LeakyBucket { return NewBucket(r, c).FreshLeaky() },
		Debit: LeakyBucket.Debit, slow: LeakyBucket.debit,
	})
}

// TestGCRAFastEdge checks the edge of the fast path: the first instant that is not below it takes
// the general path, and both sides agree with it.
func TestGCRAFastEdge(t *testing.T) {
	p := NewGCRA(NewRate(1, int64(time.Hour)), 10)
	if p.below != MaxInstant-2*p.limit+1 {
		t.Fatalf("below = %d", p.below)
	}
	for _, at := range []int64{p.below - 1, p.below, p.below + 1, MaxInstant} {
		g := p.Fresh()
		for range 12 {
			next, from, ok := g.Debit(at, 1)
			snext, sfrom, sok := g.debit(at, 1)
			if next != snext || from != sfrom || ok != sok {
				t.Fatalf("at %d: Debit %+v %d %v, debit %+v %d %v", at, next, from, ok, snext, sfrom, sok)
			}
			g = snext
		}
	}
	if q := NewGCRA(NewRate(1, math.MaxInt64/8), 3); q.below != MinInstant {
		t.Fatalf("a tolerance beyond MaxInstant/4 must have no fast path, below = %d", q.below)
	}
	if q := NewGCRA(NewRate(3, 1000), 3); q.below != MinInstant {
		t.Fatalf("a fractional rate must have no fast path, below = %d", q.below)
	}
	if q := NewBucket(NewRate(1, math.MaxInt64/4), 3); q.below != MinInstant {
		t.Fatalf("a bucket beyond MaxInstant/2 must have no fast path, below = %d", q.below)
	}
	for _, at := range []int64{MaxInstant - 3*int64(time.Hour), MaxInstant - 3*int64(time.Hour) + 1} {
		p := NewBucket(NewRate(1, int64(time.Hour)), 3)
		tb, lb := p.FreshTokens(), p.FreshLeaky()
		for range 5 {
			nt, ft, okt := tb.Debit(at, 1)
			st, sft, sokt := tb.debit(at, 1)
			nl, fl, okl := lb.Debit(at, 1)
			sl, sfl, sokl := lb.debit(at, 1)
			if nt != st || ft != sft || okt != sokt || nl != sl || fl != sfl || okl != sokl {
				t.Fatalf("at %d the buckets' paths differ", at)
			}
			tb, lb = st, sl
		}
	}
}

// A windowFastCase is a kernel of the window policies with a fast path: a fresh value, one that
// counts nothing at a start that need not be a window's (as a restored snapshot may), one holding
// r tokens at an instant (as after a change of policy), Debit, Fast and debit.
type windowFastCase[K comparable] struct {
	fresh   func(*WindowPolicy) K
	empty   func(p *WindowPolicy, start, last int64) K
	holding func(p *WindowPolicy, at, r int64) K
	Fast    func(K, int64, int64) (K, int64, Verdict)
	Debit   func(K, int64, int64) (K, int64, bool)
	slow    func(K, int64, int64) (K, int64, bool)
}

// drawWindowPolicy draws a policy of small, large and extreme widths and limits (some too large
// for the counter's fast path), aligned near the epoch or anywhere.
func drawWindowPolicy(t *rapid.T) *WindowPolicy {
	width := rapid.OneOf(rapid.Int64Range(1, 10), rapid.Int64Range(1, 1e6), rapid.Int64Range(1, 1e12),
		rapid.Int64Range(math.MaxInt64/4, math.MaxInt64)).Draw(t, "width")
	limit := rapid.OneOf(rapid.Int64Range(1, 20), rapid.Int64Range(1, 1000), rapid.Int64Range(1, 1e6),
		rapid.Int64Range(math.MaxInt64-10, math.MaxInt64)).Draw(t, "limit")
	origin := rapid.OneOf(rapid.Int64Range(-1e9, 1e9), rapid.Int64Range(MinInstant+1, MaxInstant-1)).Draw(t, "origin")
	p, inv := WindowOf(width, limit, origin)
	if inv != nil {
		t.Fatalf("WindowOf(%d, %d, %d): %v", width, limit, origin, inv)
	}
	return p
}

// drawWindowStart draws the first instant: near the epoch, in the windows at either end of the
// range (the first one cut short by MinInstant), or anywhere.
func drawWindowStart(t *rapid.T, w int64) int64 {
	return rapid.OneOf(rapid.Int64Range(-1e9, 1e9), rapid.Just(MinInstant),
		rapid.Int64Range(MinInstant, AddSat(MinInstant, 2*min(w, MaxInstant/2))),
		rapid.Int64Range(SubSat(MaxInstant, 3*min(w, MaxInstant/3)), MaxInstant),
		rapid.Int64Range(MinInstant, MaxInstant)).Draw(t, "start")
}

// drawWindowMove moves at: back, not at all, a little forward (so that the limit is reached within
// a window), onto the last instant of its window or the first of the next, or far forward.
func drawWindowMove(t *rapid.T, p *WindowPolicy, at int64) int64 {
	w := p.Width
	switch rapid.IntRange(0, 6).Draw(t, "move") {
	case 0:
		return SubSat(at, rapid.Int64Range(0, w).Draw(t, "back"))
	case 1:
		return at
	case 2:
		end := min(p.end(at, floorMod(at, p.Origin, w)), MaxInstant)
		return end - rapid.Int64Range(0, 1).Draw(t, "edge")
	case 3:
		return AddSat(at, rapid.Int64Range(0, 3*min(w, MaxInstant/3)).Draw(t, "jump"))
	}
	step := w / min(p.Limit, 1e6)
	return AddSat(at, rapid.Int64Range(0, AddSat(step, step)).Draw(t, "step"))
}

// drawWindowCost draws a cost of 1 or 2, from 1 to one above the limit, or near the limit.
func drawWindowCost(t *rapid.T, p *WindowPolicy) int64 {
	return rapid.OneOf(rapid.Int64Range(1, 2), rapid.Int64Range(1, min(p.Limit, 1e6-1)+1),
		rapid.Int64Range(max(p.Limit-3, 1), AddSat(p.Limit, 1))).Draw(t, "cost")
}

// drawWindowKernel draws the value a timeline starts from at at: fresh, empty at a start that
// need not be a window's, or holding some tokens.
func drawWindowKernel[K comparable](t *rapid.T, c windowFastCase[K], p *WindowPolicy, at int64) K {
	switch rapid.IntRange(0, 3).Draw(t, "from") {
	case 0: // a start anywhere, or shortly before at, so that at lies in its "window"
		start := rapid.OneOf(rapid.Int64Range(MinInstant, MaxInstant),
			rapid.Int64Range(SubSat(at, p.Width), at)).Draw(t, "empty start")
		return c.empty(p, start, at)
	case 1:
		return c.holding(p, at, rapid.Int64Range(0, p.Limit).Draw(t, "left"))
	}
	return c.fresh(p)
}

// checkWindowFast checks that Debit, which decides the common case in Fast, answers exactly like
// debit, the general path, from every state a timeline reaches from a fresh value, an empty one at
// any start, or one holding some tokens: instants in order, backwards, equal, on both sides of
// window boundaries and near both ends of the range, costs from 1 to beyond the limit, widths and
// limits whose product does not fit the counter's fast path. Refusals must leave the value as it
// was, and Fast must agree wherever it decides. It fails too if Fast never decided.
func checkWindowFast[K comparable](t *testing.T, c windowFastCase[K]) {
	decided := 0
	rapid.Check(t, func(t *rapid.T) {
		p := drawWindowPolicy(t)
		at := drawWindowStart(t, p.Width)
		k := drawWindowKernel(t, c, p, at)
		for i := range 100 {
			at = drawWindowMove(t, p, at)
			cost := drawWindowCost(t, p)
			fast, fromFast, okFast := c.Debit(k, at, cost)
			slow, fromSlow, okSlow := c.slow(k, at, cost)
			if fast != slow || fromFast != fromSlow || okFast != okSlow || !okFast && fast != k {
				t.Fatalf("debit %d of %d at %d from %+v under %+v:\nDebit: %+v %d %v\ndebit: %+v %d %v",
					i, cost, at, k, *p, fast, fromFast, okFast, slow, fromSlow, okSlow)
			}
			if next, from, v := c.Fast(k, at, cost); v != Undecided {
				decided++
				if v == Admitted && next != slow || from != fromSlow || (v == Admitted) != okSlow {
					t.Fatalf("debit %d of %d at %d from %+v: Fast %+v %d %v", i, cost, at, k, next, from, v)
				}
			}
			k = slow
		}
	})
	if decided == 0 {
		t.Fatal("Fast never decided a debit")
	}
}

func TestFixedWindowFastPath(t *testing.T) {
	checkWindowFast(t, windowFastCase[FixedWindow]{
		fresh: (*WindowPolicy).FreshWindow,
		empty: func(p *WindowPolicy, start, last int64) FixedWindow {
			return FixedWindow{P: p, Start: start, Last: last}
		},
		holding: (*WindowPolicy).WindowHolding,
		Fast:    fixedWindowFast, Debit: FixedWindow.Debit, slow: FixedWindow.debit,
	})
}

// fixedWindowFast is the fixed window's fast path as a Fast: FastCase, FastTake and FastAdmit.
func fixedWindowFast(w FixedWindow, at, cost int64) (FixedWindow, int64, Verdict) {
	if !w.FastCase(at, cost) {
		return w, 0, Undecided
	}
	count, over := w.FastTake(at, cost)
	if over > 0 {
		return w, at + over, Refused
	}
	return w.FastAdmit(at, count), at, Admitted
}

// counterCase returns the sliding counter's windowFastCase.
func counterCase() windowFastCase[SlidingCounter] {
	return windowFastCase[SlidingCounter]{
		fresh: (*WindowPolicy).FreshCounter,
		empty: func(p *WindowPolicy, start, last int64) SlidingCounter {
			return SlidingCounter{P: p, Start: start, Last: last}
		},
		holding: (*WindowPolicy).CounterHolding,
		Fast:    counterFast, Debit: SlidingCounter.Debit, slow: SlidingCounter.debit,
	}
}

// counterFast is the sliding counter's fast path as a Fast: CountCase and CountFits, and
// CountFrom for its refusals.
func counterFast(c SlidingCounter, at, cost int64) (SlidingCounter, int64, Verdict) {
	switch p := c.P; {
	case !p.CountCase(c.Start, c.Cur, c.Last, at, cost):
		return c, 0, Undecided
	case !p.CountFits(c.Start, c.Prev, c.Cur, at, cost):
		return c, p.CountFrom(c.Start, c.Prev, c.Cur, at, cost), Refused
	}
	c.Cur, c.Last = c.Cur+cost, at
	return c, at, Admitted
}

func TestSlidingCounterFastPath(t *testing.T) { checkWindowFast(t, counterCase()) }

// TestWindowFastEdge checks the edges of the window kernels' fast paths: windows that start at the
// last instant the fixed window's refusal can name (Start+Width = MaxInstant) and after it, the
// same for the counter's full window (Start+fullNext = MaxInstant), windows at MinInstant, whole
// or cut short, and the largest Limit·Width the counter's fast path takes. Both paths must agree
// on each debit, and the fast path must decide where it claims to.
func TestWindowFastEdge(t *testing.T) {
	const w = 1000
	for k := int64(-1); k <= 2; k++ { // windows starting at MaxInstant − w + k
		p := NewWindow(w, 2, MaxInstant-w+k)
		if fw, fc := windowTimeline(t, p, p.Origin); fw != (k <= 0) || fc {
			t.Fatalf("window at MaxInstant−w%+d: the fixed window decided fast %v, the counter %v", k, fw, fc)
		}
	}
	next := NewWindow(w, 2, 0).fullNext
	if next <= w {
		t.Fatalf("fullNext %d: not past the window's end, so the edges below are the fixed window's", next)
	}
	for k := int64(-1); k <= 2; k++ { // windows starting at MaxInstant − fullNext + k
		p := NewWindow(w, 2, MaxInstant-next+k)
		if _, fc := windowTimeline(t, p, p.Origin); fc != (k <= 0) {
			t.Fatalf("window at MaxInstant−fullNext%+d: the counter decided fast %v", k, fc)
		}
	}
	for _, origin := range []int64{MinInstant + 4, MinInstant + w - 1, MinInstant + w} {
		// The window at MinInstant is cut short to origin − MinInstant, but for the last, whole;
		// the last debit at MinInstant+4 is the first of the next window for the first origin.
		p := NewWindow(w, 2, origin)
		if fw, fc := windowTimeline(t, p, MinInstant); fw || fc {
			t.Fatalf("origin MinInstant+%d: a window at MinInstant decided fast", origin-MinInstant)
		}
	}
	fits := NewWindow(math.MaxInt64/6, 2, 0) // Limit·Width = MaxInt64/3
	if _, fc := windowTimeline(t, fits, 0); fits.costs != 2 || !fc {
		t.Fatalf("Limit·Width = MaxInt64/3: costs %d, decided fast %v", fits.costs, fc)
	}
	over := NewWindow(math.MaxInt64/6+1, 2, 0)
	if _, fc := windowTimeline(t, over, 0); over.costs != 0 || fc {
		t.Fatalf("Limit·Width > MaxInt64/3: costs %d, decided fast %v", over.costs, fc)
	}
}

// windowTimeline debits a fixed window and a sliding counter under p at at, at+1 and at+2, one
// token each, two at at+3 and one at at+4, checks that Debit and debit agree on each, and reports
// whether Fast decided any.
func windowTimeline(t *testing.T, p *WindowPolicy, at int64) (window, counter bool) {
	t.Helper()
	fw, fc := p.FreshWindow(), p.FreshCounter()
	for i, cost := range []int64{1, 1, 1, 2, 1} {
		x := AddSat(at, int64(i))
		nw, fromW, okW := fw.Debit(x, cost)
		sw, sfromW, sokW := fw.debit(x, cost)
		nc, fromC, okC := fc.Debit(x, cost)
		sc, sfromC, sokC := fc.debit(x, cost)
		if nw != sw || fromW != sfromW || okW != sokW || nc != sc || fromC != sfromC || okC != sokC {
			t.Fatalf("%+v at %d: the paths differ:\nwindow %+v %d %v, %+v %d %v\ncounter %+v %d %v, %+v %d %v",
				*p, x, nw, fromW, okW, sw, sfromW, sokW, nc, fromC, okC, sc, sfromC, sokC)
		}
		_, _, vw := fixedWindowFast(fw, x, cost)
		_, _, vc := counterFast(fc, x, cost)
		window, counter = window || vw != Undecided, counter || vc != Undecided
		fw, fc = sw, sc
	}
	return window, counter
}

// TestSlidingCounterFastAtLimit checks that the counter's fast path admits a debit that brings
// the estimate exactly to the limit, and refuses the next one, over it, as the general path: 10
// per 10 ns, 10 counted in [0, 10), then one at 11 (the first of its window) and one at 12, where
// 10·(10−2) + 2·10 = 10·10.
func TestSlidingCounterFastAtLimit(t *testing.T) {
	c := NewWindow(10, 10, 0).FreshCounter()
	for _, d := range [][2]int64{{0, 10}, {11, 1}} {
		var ok bool
		if c, _, ok = c.Debit(d[0], d[1]); !ok {
			t.Fatalf("%d at %d refused", d[1], d[0])
		}
	}
	next, from, v := counterFast(c, 12, 1)
	if want, _, _ := c.debit(12, 1); v != Admitted || next != want || from != 12 {
		t.Fatalf("fast path at 12 from %+v: %+v %d %v, want %+v admitted", c, next, from, v, want)
	}
	_, from, v = counterFast(next, 12, 1)
	if _, want, _ := next.debit(12, 1); v != Refused || from != want {
		t.Fatalf("fast path at 12 over the limit: %d %v, want %d refused", from, v, want)
	}
}

// TestGCRADebitStatus checks that DebitStatus answers exactly as Debit followed by Status of the
// GCRA it leaves, from every state a timeline reaches: rates of whole and fractional nanoseconds
// per token, instants in order, backwards, equal and near both ends of the range, costs from 1 to
// beyond the burst, and fractions of a nanosecond that only another policy's state holds (a
// store reads such a state as typed.State's doc says). It fails too if either of its two fast
// paths never decided. Its Next, and GCRA.Next on the same states, answer as the generic next
// does, from Status and a debit.
func TestGCRADebitStatus(t *testing.T) {
	var whole, frac int
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.OneOf(rapid.Just(int64(1)), rapid.Int64Range(1, 1000), rapid.Int64Range(1, 1<<40)).Draw(t, "n")
		per := rapid.OneOf(rapid.Int64Range(1, 1e6), rapid.Int64Range(1, 1e15)).Draw(t, "per")
		rate := NewRate(n, per)
		burst := rapid.Int64Range(1, 100).Draw(t, "burst")
		if !rate.FitsBurst(burst) { // at most 100 tokens of at most 10^15 ns each: it always fits
			t.Fatalf("the policy %d per %d, burst %d, does not fit", n, per, burst)
		}
		p := NewGCRA(rate, burst)
		g := p.Fresh()
		if rapid.Bool().Draw(t, "foreign") { // a fraction another policy's state may hold
			g.TAT.R = rapid.Int64Range(-1, 2*rate.N).Draw(t, "fraction")
		}
		at := rapid.OneOf(rapid.Int64Range(-1e9, 1e9), rapid.Just(p.fracs), rapid.Just(p.below),
			rapid.Just(MinInstant), rapid.Int64Range(MaxInstant-1e12, MaxInstant)).Draw(t, "start")
		for i := range 60 {
			at = drawRateMove(t, rate, at)
			cost := rapid.OneOf(rapid.Just(int64(1)), rapid.Int64Range(1, burst+1)).Draw(t, "cost")
			left, from, ok, st, nx := g.DebitStatus(at, cost)
			want, wantFrom, wantOK := g.Debit(at, cost)
			if !wantOK {
				want = g
			}
			wantNext := next(want, at) // the generic next, from Status and a debit
			if left != want || from != wantFrom || ok != wantOK || st != want.Status(at) || nx != wantNext {
				t.Fatalf("debit %d of %d at %d from %+v:\nDebitStatus: %+v %d %v %+v %d\nDebit, Status, next: %+v %d %v %+v %d",
					i, cost, at, g, left, from, ok, st, nx, want, wantFrom, wantOK, want.Status(at), wantNext)
			}
			if got := left.Next(at); got != wantNext {
				t.Fatalf("Next at %d of %+v: %d, want %d", at, left, got, wantNext)
			}
			switch {
			case at < g.Last || cost > burst || uint64(g.TAT.R) >= uint64(rate.N):
			case at < p.below:
				whole++
			case at < p.fracs && cost == 1:
				frac++
			}
			g = left
		}
	})
	if whole == 0 || frac == 0 {
		t.Fatalf("the fast paths decided %d (whole) and %d (fractional) debits", whole, frac)
	}
}

// TestGCRAFracsEdge pins where DebitStatus's fractional path ends: two steps of the tolerance
// and three nanoseconds before MaxInstant, for a tolerance of at most MaxInstant/4.
func TestGCRAFracsEdge(t *testing.T) {
	p := NewGCRA(NewRate(3, 1000), 5)
	if span := p.limit / 3; p.fracs != MaxInstant-2*span-3 || p.step != (Frac{Q: 333, R: 1}) {
		t.Fatalf("fracs = %d, step = %+v", p.fracs, p.step)
	}
	for _, q := range []*GCRAPolicy{NewGCRA(NewRate(1, 1000), 5), NewGCRA(NewRate(3, 7<<60), 1)} {
		if q.fracs != MinInstant {
			t.Fatalf("%+v: fracs = %d, want none", q.Rate, q.fracs)
		}
	}
}

// TestFullFromRefuses checks the shortcut CountFrom takes on a full window: every debit
// CountCase accepts and FullFrom answers is one that CountFits refuses, and FullFrom names the
// instant the general refusal (counterFrom) does.
func TestFullFromRefuses(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := rapid.Int64Range(1, 1<<40).Draw(t, "width")
		limit := rapid.Int64Range(1, 1<<20).Draw(t, "limit")
		p := NewWindow(w, limit, rapid.Int64Range(-1<<60, 1<<60).Draw(t, "origin"))
		start := p.start(rapid.Int64Range(-1<<61, 1<<61).Draw(t, "instant"))
		e := rapid.Int64Range(0, w-1).Draw(t, "elapsed")
		at, last := start+e, start+rapid.Int64Range(0, e).Draw(t, "lastElapsed")
		prev := rapid.Int64Range(0, limit).Draw(t, "prev")
		if !p.CountCase(start, limit, last, at, 1) { // Limit·Width ≤ 2^60 fits the fast path
			t.Fatalf("a full window of %d per %d ns at %d, elapsed %d: not the fast path", limit, w, start, e)
		}
		from, full := p.FullFrom(start, limit, 1)
		if !full || p.CountFits(start, prev, limit, at, 1) {
			t.Fatalf("a full window: FullFrom %v, CountFits %v", full, p.CountFits(start, prev, limit, at, 1))
		}
		if want := p.counterFrom(at, e, prev, limit, 1); from != want {
			t.Fatalf("FullFrom names %d, the general refusal %d", from, want)
		}
	})
}
