package numerustest

import (
	"time"

	"pgregory.net/rapid"

	"github.com/numerus-closus/numerus"
)

// probe is how many debits a law follows a value along to compare it with another.
const probe = 8

// determinism: two values built by the same debits decide alike, and so does one value asked twice.
func determinism(t *rapid.T, e env) {
	ds := e.debits(t, "history", 16)
	a, b := e.replay(ds), e.replay(ds)
	p := e.debits(t, "probe", probe)
	want := answers(a.l, a.now, p)
	same(t, a.l, "a second value built by the same debits", answers(b.l, b.now, p), want)
	same(t, a.l, "the same value asked again", answers(a.l, a.now, p), want)
}

// immutability: branches from one value do not see each other, in sequence or interleaved.
func immutability(t *rapid.T, e env) {
	h := e.history(t)
	pa, pb := e.debits(t, "branch a", probe), e.debits(t, "branch b", probe)
	wantA, wantB := answers(h.l, h.now, pa), answers(h.l, h.now, pb)
	same(t, h.l, "branch a, run again after branch b", answers(h.l, h.now, pa), wantA)
	a, b := cursor{l: h.l, at: h.now}, cursor{l: h.l, at: h.now}
	gotA, gotB := make([]answer, len(pa)), make([]answer, len(pb))
	for i := range max(len(pa), len(pb)) {
		if i < len(pa) {
			gotA[i] = a.next(pa[i])
		}
		if i < len(pb) {
			gotB[i] = b.next(pb[i])
		}
	}
	same(t, h.l, "branch a, interleaved with branch b", gotA, wantA)
	same(t, h.l, "branch b, interleaved with branch a", gotB, wantB)
}

// refusal: a refused debit changes neither the receiver nor what it returns.
func refusal(t *rapid.T, e env) {
	h := e.history(t)
	d := e.debit(t, "debit")
	at := h.now.Add(d.Step)
	p := e.debits(t, "probe", probe)
	want := answers(h.l, at, p)
	next, _, ok := h.l.DebitN(at, d.Cost)
	if ok {
		return
	}
	same(t, h.l, "the receiver after a refusal", answers(h.l, at, p), want)
	same(t, h.l, "the value a refusal returned", answers(next, at, p), want)
}

// tightness: a refusal's answer f is after at, admits at f and refuses at f − 1ns.
func tightness(t *rapid.T, e env) {
	h := e.history(t)
	d := e.debit(t, "debit")
	at := h.now.Add(d.Step)
	_, from, ok := h.l.DebitN(at, d.Cost)
	f, finite := from.Time()
	if ok || !finite {
		return
	}
	if !f.After(at) {
		t.Fatalf("%s: DebitN(%v, %d) answered %v, not after the instant asked", h.l, at, d.Cost, from)
	}
	if _, _, ok := h.l.DebitN(f, d.Cost); !ok {
		t.Fatalf("%s: DebitN(%v, %d) answered %v, but refuses there", h.l, at, d.Cost, from)
	}
	if _, _, ok := h.l.DebitN(f.Add(-1), d.Cost); ok {
		t.Fatalf("%s: DebitN(%v, %d) answered %v, but admits 1ns earlier", h.l, at, d.Cost, from)
	}
}

// waiting: every instant from at to the answer f, f excluded, refuses with the same answer.
func waiting(t *rapid.T, e env) {
	h := e.history(t)
	d := e.debit(t, "debit")
	at := h.now.Add(d.Step)
	_, from, ok := h.l.DebitN(at, d.Cost)
	f, finite := from.Time()
	if ok || !finite {
		return
	}
	if !f.After(at) {
		t.Fatalf("%s: DebitN(%v, %d) answered %v, not after the instant asked", h.l, at, d.Cost, from)
	}
	wait := int64(f.Sub(at))
	offsets := make([]int64, 0, 10)
	for i := range int64(8) {
		offsets = append(offsets, wait/8*i)
	}
	offsets = append(offsets, rapid.Int64Range(0, wait-1).Draw(t, "offset"), wait-1)
	for _, off := range offsets {
		u := at.Add(time.Duration(off))
		if _, g, ok := h.l.DebitN(u, d.Cost); ok || !g.Equal(from) {
			t.Fatalf("%s: DebitN(%v, %d) answered %v, but at %v it is admitted (%v) or answers %v",
				h.l, at, d.Cost, from, u, ok, g)
		}
	}
}

// neverFinal: a Never answer stays Never at every later instant.
func neverFinal(t *rapid.T, e env) {
	h := e.history(t)
	d := e.debit(t, "debit")
	at := h.now.Add(d.Step)
	_, from, ok := h.l.DebitN(at, d.Cost)
	if ok || !from.IsNever() {
		return
	}
	for i := range 4 {
		u := e.later(t, at, "later")
		if i == 3 {
			u = at.AddDate(100, 0, 0)
		}
		if _, g, ok := h.l.DebitN(u, d.Cost); ok || !g.IsNever() {
			t.Fatalf("%s: DebitN(%v, %d) answered never, but at %v it is admitted (%v) or answers %v",
				h.l, at, d.Cost, u, ok, g)
		}
	}
}

// outOfOrder: an instant earlier than L is no better than L.
func outOfOrder(t *rapid.T, e env) {
	h := e.history(t)
	if !h.admitted {
		return
	}
	back := rapid.Int64Range(1, int64(e.span)).Draw(t, "back")
	c := e.cost(t, "cost")
	early := h.latest.Add(-time.Duration(back))
	_, fe, oke := h.l.DebitN(early, c)
	_, fl, okl := h.l.DebitN(h.latest, c)
	if oke && !okl {
		t.Fatalf("%s: DebitN(%v, %d) is admitted, but refused at the later L = %v", h.l, early, c, h.latest)
	}
	if !okl && fe.Before(fl) {
		t.Fatalf("%s: DebitN(%v, %d) answers %v, earlier than %v at L = %v", h.l, early, c, fe, fl, h.latest)
	}
}

// timeRule: a timeline decides as the same timeline with each instant raised to L so far.
func timeRule(t *rapid.T, e env) {
	jumbled, raised := e.newLimiter(), e.newLimiter()
	var h timeline // L, as it stands after each debit
	at := e.start
	for i, d := range e.debits(t, "timeline", 32) {
		at = at.Add(d.Step)
		u := at
		if h.admitted && u.Before(h.latest) {
			u = h.latest
		}
		if sj, sr := jumbled.Status(at), raised.Status(u); !statusAlike(sj, at, sr, u) {
			t.Fatalf("%s: debit %d: Status(%v) is %+v, but %+v at L = %v", jumbled, i, at, sj, sr, u)
		}
		nj, fj, okj := jumbled.DebitN(at, d.Cost)
		nr, fr, okr := raised.DebitN(u, d.Cost)
		if okj != okr || !okj && !fj.Equal(fr) {
			t.Fatalf("%s: debit %d: DebitN(%v, %d) answers %v %v, but %v %v at L = %v", jumbled, i, at, d.Cost, okj, fj, okr, fr, u)
		}
		if okj {
			jumbled, raised = nj, nr
			h.latest, h.admitted = u, true
		}
	}
}

// statusAlike reports whether a, asked at at, and b, asked at u, report the same limit, tokens
// and Full, or both say that they are full at the instant asked (a limiter that keeps no instant,
// such as a finite bucket, names the instant asked as it is).
func statusAlike(a numerus.Status, at time.Time, b numerus.Status, u time.Time) bool {
	if a.Limit != b.Limit || a.Remaining != b.Remaining {
		return false
	}
	fullNow := !a.Full.After(numerus.DebitableFrom(at)) && !b.Full.After(numerus.DebitableFrom(u))
	return a.Full.Equal(b.Full) || fullNow
}

// growth: what is admitted at at is admitted later.
func growth(t *rapid.T, e env) {
	h := e.history(t)
	d := e.debit(t, "debit")
	at := h.now.Add(d.Step)
	if _, _, ok := h.l.DebitN(at, d.Cost); !ok {
		return
	}
	for range 4 {
		u := e.later(t, at, "later")
		if _, g, ok := h.l.DebitN(u, d.Cost); !ok {
			t.Fatalf("%s: DebitN(%v, %d) is admitted, but refused later at %v (%v)", h.l, at, d.Cost, u, g)
		}
	}
}

// cost: answers are monotone in the cost, and an admitted debit adds no capacity.
func cost(t *rapid.T, e env) {
	h := e.history(t)
	at := h.now.Add(e.step(t, "step"))
	if e.maxCost > 1 {
		big := rapid.Int64Range(2, e.maxCost).Draw(t, "larger cost")
		small := rapid.Int64Range(1, big-1).Draw(t, "smaller cost")
		_, fs, oks := h.l.DebitN(at, small)
		_, fb, okb := h.l.DebitN(at, big)
		if okb && !oks {
			t.Fatalf("%s: at %v cost %d is admitted but the smaller %d is refused", h.l, at, big, small)
		}
		if !oks && fb.Before(fs) {
			t.Fatalf("%s: at %v cost %d answers %v, earlier than the smaller %d (%v)", h.l, at, big, fb, small, fs)
		}
	}
	c := e.cost(t, "cost")
	next, _, ok := h.l.DebitN(at, c)
	if !ok {
		return
	}
	for i := range 3 {
		u := at
		if i > 0 {
			u = e.later(t, at, "probe instant")
		}
		for pc := int64(1); pc <= min(e.maxCost, 16); pc++ {
			noMint(t, h.l, next, at, c, u, pc)
		}
	}
}

// noMint fails t if next, the result of DebitN(at, c) on l, is more permissive than l at u.
func noMint(t *rapid.T, l, next numerus.Limiter, at time.Time, c int64, u time.Time, pc int64) {
	_, fr, okr := l.DebitN(u, pc)
	_, fn, okn := next.DebitN(u, pc)
	if okn && !okr {
		t.Fatalf("%s: after DebitN(%v, %d), DebitN(%v, %d) is admitted where the receiver refused it",
			l, at, c, u, pc)
	}
	if !okr && fn.Before(fr) {
		t.Fatalf("%s: after DebitN(%v, %d), DebitN(%v, %d) answers %v, earlier than the receiver's %v",
			l, at, c, u, pc, fn, fr)
	}
}

// split: a debit of a+b is a debit of a then one of b.
func split(t *rapid.T, e env) {
	if e.maxCost < 2 {
		return
	}
	h := e.history(t)
	at := h.now.Add(e.step(t, "step"))
	total := rapid.Int64Range(2, e.maxCost).Draw(t, "a+b")
	a := rapid.Int64Range(1, total-1).Draw(t, "a")
	whole, _, okWhole := h.l.DebitN(at, total)
	parts, _, okParts := h.l.DebitN(at, a)
	if okParts {
		parts, _, okParts = parts.DebitN(at, total-a)
	}
	if okWhole != okParts {
		t.Fatalf("%s: at %v, DebitN of %d admitted: %v, but DebitN of %d then %d admitted: %v",
			h.l, at, total, okWhole, a, total-a, okParts)
	}
	if okWhole {
		p := e.debits(t, "probe", probe)
		same(t, h.l, "the result of two debits", answers(parts, at, p), answers(whole, at, p))
	}
}
