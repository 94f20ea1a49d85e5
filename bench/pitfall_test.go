package bench

import (
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/typed"
	"golang.org/x/time/rate"
)

// TestOutOfOrderInstants backs the README's comparison: at 1/s with a burst of 10, 10,000 checks
// at two instants 10s apart, alternately, may admit at most 20 (the burst, and 10 refilled over
// the 10s). x/time/rate rewinds its clock on the earlier instant and refills again at each later
// one, so it admits all 10,000. numerus treats an earlier instant as the latest seen: one check at
// the first instant, then every check counts at the second, where the burst holds 10 more: 11.
// If this fails for x/time/rate, its behaviour changed: update the README's row.
func TestOutOfOrderInstants(t *testing.T) {
	instants := [2]time.Time{t0, t0.Add(10 * time.Second)}
	xr := rate.NewLimiter(1, 10)
	l := must(numerus.GCRA(numerus.PerSecond(1), 10))
	var theirs, ours int
	for i := range 10_000 {
		at := instants[i%2]
		if xr.AllowN(at, 1) {
			theirs++
		}
		next, _, ok := l.Debit(at)
		if ok {
			ours, l = ours+1, next
		}
	}
	if theirs != 10_000 || ours != 11 {
		t.Fatalf("admitted: x/time/rate %d (the README says 10,000), numerus %d (want 11)", theirs, ours)
	}
}

// TestHundredPerMinute backs the README's comparison row for "100 per minute": a check every
// 10ms for a minute. x/time/rate's NewLimiter(100.0/60, 100), the obvious translation, admits
// its burst and then its rate: 199 in the minute. numerus's notation reads 100/min as the sliding
// log: exactly 100. If this fails for x/time/rate, update the README's row.
func TestHundredPerMinute(t *testing.T) {
	xr := rate.NewLimiter(rate.Limit(100.0/60), 100)
	sp := must(typed.Parse("100/min"))
	p := must(typed.Compile(sp))
	s := p.Fresh()
	var theirs, ours int
	for at := t0; at.Before(t0.Add(time.Minute)); at = at.Add(10 * time.Millisecond) {
		if xr.AllowN(at, 1) {
			theirs++
		}
		if next, _, ok := p.Debit(s, at); ok {
			ours, s = ours+1, next
		}
	}
	if theirs != 199 || ours != 100 {
		t.Fatalf("admitted in a minute: x/time/rate %d (the README says 199), numerus %d (want 100)", theirs, ours)
	}
}
