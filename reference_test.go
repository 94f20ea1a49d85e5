package numerus_test

import (
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/numerus-closus/numerus"
)

// TestAgainstModel is the model-based property of every algorithm: over a random policy and a
// random timeline (steps of zero, back and forth, costs above the capacity, in several eras), the
// limiter admits
// exactly what its naive model admits, answers each refusal with the model's first admitting
// instant (found by bisection, not by formula), and reports the model's remaining and full.
func TestAgainstModel(t *testing.T) {
	for _, kind := range kinds {
		t.Run(kind, rapid.MakeCheck(func(t *rapid.T) {
			p := drawPolicy(t, kind)
			d := &driver{m: p.m}
			at := drawEra(t).UnixNano() + rapid.Int64Range(0, p.span).Draw(t, "start")
			l := p.l
			for i, e := range drawTimeline(t, p.span, p.capacity+1, 40) {
				at += e.step
				l = checkStep(t, i, l, d, at, e.cost)
			}
		}))
	}
}

// checkStep debits l and the model alike at at and fails t where they differ.
func checkStep(t *rapid.T, i int, l numerus.Limiter, d *driver, at, cost int64) numerus.Limiter {
	t.Helper()
	when := time.Unix(0, at)
	next, from, ok := l.DebitN(when, cost)
	wantOK, wantFrom, finite := d.debit(at, cost)
	if ok != wantOK {
		t.Fatalf("debit %d: %s: DebitN(%v, %d) admitted %v, model %v", i, l, when, cost, ok, wantOK)
	}
	if !ok {
		if got, gotFinite := from.Time(); gotFinite != finite || (finite && got.UnixNano() != wantFrom) {
			t.Fatalf("debit %d: %s: DebitN(%v, %d) answered %v, model %v (finite %v)", i, l, when, cost,
				from, time.Unix(0, wantFrom), finite)
		}
		return l
	}
	s := next.Status(when)
	left, full, fullFinite := d.status(at)
	if s.Remaining != left {
		t.Fatalf("debit %d: %s: remaining %d, model %d", i, next, s.Remaining, left)
	}
	if got, gotFinite := s.Full.Time(); gotFinite != fullFinite || (fullFinite && got.UnixNano() != full) {
		t.Fatalf("debit %d: %s: full %v, model %v (finite %v)", i, next, s.Full, time.Unix(0, full), fullFinite)
	}
	return next
}
