package bench

import (
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
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
