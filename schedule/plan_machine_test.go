package schedule

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/clock"
	"pgregory.net/rapid"
)

// twinGates drives two gates through the same operations on clocks of their own, late by the same
// wake-up lateness: kept, which keeps its plan, and replayed, whose plan the test drops before
// every operation, so that each of its takes plays the queue afresh, as the Gate did before it
// kept a plan. Every answer of the two must be the same.
type twinGates struct {
	kept, replayed       *Gate
	keptClk, replayedClk *clock.Fake
	late                 time.Duration // how late every wake-up fires
	burst                int64         // the largest capacity of twinLimiters: costs go one above it (never)
	keptW, replayedW     []*waiter
}

// twinLimiters are the policies the twins run, partly drained at t0 or not.
var twinLimiters = []func() numerus.Limiter{
	func() numerus.Limiter { return numerus.Must(numerus.GCRA(numerus.PerSecond(10), 3)) },
	func() numerus.Limiter {
		return numerus.And(numerus.Must(numerus.GCRA(numerus.PerSecond(20), 3)), numerus.Must(numerus.SlidingWindow(time.Second, 5)))
	},
	func() numerus.Limiter { return numerus.Must(numerus.FixedWindow(time.Second, 3, t0)) },
	func() numerus.Limiter { return numerus.Must(numerus.TokenBucket(3, numerus.PerSecond(7))) },
	func() numerus.Limiter { return numerus.Must(numerus.SlidingWindowCount(time.Second, 3, t0)) },
	func() numerus.Limiter { return numerus.Must(numerus.LeakyBucket(3, numerus.PerSecond(5))) },
	func() numerus.Limiter {
		return numerus.Or(numerus.Must(numerus.GCRA(numerus.PerSecond(2), 1)), numerus.Must(numerus.FixedWindow(time.Second, 2, t0)))
	},
	func() numerus.Limiter { return numerus.Must(numerus.SlidingWindowBucketed(time.Second, 4, 3)) },
}

func newTwinGates(t *rapid.T) *twinGates {
	l := twinLimiters[rapid.IntRange(0, len(twinLimiters)-1).Draw(t, "policy")]()
	for range rapid.IntRange(0, 3).Draw(t, "drained") {
		if next, _, ok := l.Debit(t0); ok {
			l = next
		}
	}
	late := []time.Duration{0, 1, 7 * time.Millisecond, 30 * time.Millisecond, 250 * time.Millisecond}[rapid.IntRange(0, 4).Draw(t, "late")]
	tg := &twinGates{keptClk: clock.NewFake(t0), replayedClk: clock.NewFake(t0), late: late, burst: 3}
	tg.kept = newGate(l, lateClock{tg.keptClk, late})
	tg.replayed = newGate(l, lateClock{tg.replayedClk, late})
	return tg
}

// forget drops the replayed gate's plan.
func (tg *twinGates) forget() {
	tg.replayed.mu.Lock()
	tg.replayed.plan = plan{}
	tg.replayed.mu.Unlock()
}

func (tg *twinGates) Take(t *rapid.T) {
	cost := rapid.Int64Range(1, tg.burst+1).Draw(t, "cost")
	var deadline time.Time
	if rapid.Bool().Draw(t, "with a deadline") {
		deadline = tg.keptClk.Now().Add(time.Duration(rapid.Int64Range(1, 3e9).Draw(t, "deadline in")))
	}
	tg.forget()
	kat, kw, kerr := tg.kept.enqueue(cost, deadline)
	rat, rw, rerr := tg.replayed.enqueue(cost, deadline)
	if fmt.Sprint(kerr) != fmt.Sprint(rerr) || (kw == nil) != (rw == nil) || !kat.Equal(rat) {
		t.Fatalf("enqueue: kept %v %v %v, replayed %v %v %v", kat, kw != nil, kerr, rat, rw != nil, rerr)
	}
	if kw != nil {
		tg.keptW, tg.replayedW = append(tg.keptW, kw), append(tg.replayedW, rw)
	}
}

func (tg *twinGates) TryTake(t *rapid.T) {
	cost := rapid.Int64Range(1, tg.burst+1).Draw(t, "cost")
	tg.forget()
	kf, kok := tg.kept.TryTake(cost)
	rf, rok := tg.replayed.TryTake(cost)
	if kok != rok || !kf.Equal(rf) {
		t.Fatalf("TryTake: kept %v %v, replayed %v %v", kf, kok, rf, rok)
	}
}

func (tg *twinGates) Cancel(t *rapid.T) {
	if len(tg.keptW) == 0 {
		t.Skip("no waiter")
	}
	i := rapid.IntRange(0, len(tg.keptW)-1).Draw(t, "waiter")
	tg.forget()
	kerr, rerr := tg.kept.cancel(tg.keptW[i], errLeft), tg.replayed.cancel(tg.replayedW[i], errLeft)
	if fmt.Sprint(kerr) != fmt.Sprint(rerr) {
		t.Fatalf("cancel: kept %v, replayed %v", kerr, rerr)
	}
	tg.keptW, tg.replayedW = slices.Delete(tg.keptW, i, i+1), slices.Delete(tg.replayedW, i, i+1)
}

// Run plays the goroutine of a woken waiter of both gates, the same one: at once after its
// wake-up or later, as the clock stands.
func (tg *twinGates) Run(t *rapid.T) {
	var woken []int
	for i, w := range tg.keptW {
		if isWoken(w) {
			woken = append(woken, i)
		}
	}
	if len(woken) == 0 {
		t.Skip("nobody woken")
	}
	i := woken[rapid.IntRange(0, len(woken)-1).Draw(t, "woken")]
	tg.forget()
	k, r := run(tg.kept, tg.keptW[i]), run(tg.replayed, tg.replayedW[i])
	if k.woken != r.woken || k.taken != r.taken || !k.at.Equal(r.at) || fmt.Sprint(k.err) != fmt.Sprint(r.err) {
		t.Fatalf("run: kept %+v, replayed %+v", k, r)
	}
	if k.taken || k.err != nil {
		tg.keptW, tg.replayedW = slices.Delete(tg.keptW, i, i+1), slices.Delete(tg.replayedW, i, i+1)
	}
}

func (tg *twinGates) Pause(t *rapid.T) {
	d := time.Duration(rapid.Int64Range(0, 3e9).Draw(t, "pause for"))
	tg.forget()
	tg.kept.RetryAfter(d)
	tg.replayed.RetryAfter(d)
}

func (tg *twinGates) Admissions(t *rapid.T) {
	cost := rapid.Int64Range(1, tg.burst+1).Draw(t, "cost")
	tg.forget()
	var kept, replayed []string
	for at, l := range tg.kept.Admissions(cost) {
		if kept = append(kept, fmt.Sprint(at, l.Status(at))); len(kept) == 4 {
			break
		}
	}
	for at, l := range tg.replayed.Admissions(cost) {
		if replayed = append(replayed, fmt.Sprint(at, l.Status(at))); len(replayed) == 4 {
			break
		}
	}
	if fmt.Sprint(kept) != fmt.Sprint(replayed) {
		t.Fatalf("Admissions: kept %v, replayed %v", kept, replayed)
	}
}

// Advance moves both clocks on by the same step: a random one, to the next wake-up or a
// nanosecond either side of it, or into the lateness of a wake-up (after the head's turn, before
// its timer fires).
func (tg *twinGates) Advance(t *rapid.T) {
	now := tg.keptClk.Now()
	to := now.Add(time.Duration(rapid.Int64Range(0, 2e9).Draw(t, "advance")))
	if next, ok := tg.keptClk.Next(); ok {
		switch rapid.IntRange(0, 3).Draw(t, "to") {
		case 1:
			to = next.Add(time.Duration(rapid.IntRange(-1, 1).Draw(t, "around the wake-up")))
		case 2:
			to = next.Add(-time.Duration(rapid.Int64Range(0, int64(tg.late)).Draw(t, "into the lateness")))
		}
	}
	if to.Before(now) {
		to = now
	}
	tg.forget()
	tg.keptClk.Set(to)
	tg.replayedClk.Set(to)
}

// Check compares the twins after every step: each waiter's wake-up and fate, the limiter, the
// queue, the timer; and the kept plan, if it stands, against a fresh play.
func (tg *twinGates) Check(t *rapid.T) {
	now := tg.keptClk.Now()
	for i := range tg.keptW {
		kw, rw := tg.keptW[i], tg.replayedW[i]
		if isWoken(kw) != isWoken(rw) || fmt.Sprint(kw.err) != fmt.Sprint(rw.err) {
			t.Fatalf("waiter %d: kept woken %v (%v), replayed woken %v (%v)", i, isWoken(kw), kw.err, isWoken(rw), rw.err)
		}
	}
	if k, r := tg.kept.Limiter().Status(now), tg.replayed.Limiter().Status(now); k.Remaining != r.Remaining || !k.Full.Equal(r.Full) {
		t.Fatalf("limiter: kept %+v, replayed %+v", k, r)
	}
	kn, kok := tg.keptClk.Next()
	rn, rok := tg.replayedClk.Next()
	if queued(tg.kept) != queued(tg.replayed) || kok != rok || !kn.Equal(rn) {
		t.Fatalf("kept %d waiters, timer %v %v; replayed %d, timer %v %v", queued(tg.kept), kn, kok, queued(tg.replayed), rn, rok)
	}
	requirePlanIsReplay(t, tg.kept, now)
	keptW, replayedW := tg.keptW[:0], tg.replayedW[:0]
	for i, w := range tg.keptW {
		if w.err == nil {
			keptW, replayedW = append(keptW, w), append(replayedW, tg.replayedW[i])
		}
	}
	tg.keptW, tg.replayedW = keptW, replayedW
}

// TestGatePlanDecidesAsReplay: whatever the interleaving of takes, tries, cancellations, pauses,
// schedules, time and the runs of woken waiters, with wake-ups on time or late and runs at once
// or later, a Gate that keeps its plan answers exactly as one that plays the queue afresh for
// every take.
func TestGatePlanDecidesAsReplay(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		t.Repeat(rapid.StateMachineActions(newTwinGates(t)))
	})
}
