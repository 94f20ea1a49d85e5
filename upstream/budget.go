package upstream

import (
	"fmt"
	"strconv"
	"time"

	"github.com/numerus-closus/numerus"
)

// budget is what an upstream announced of one of its quotas, as a numerus.Limiter: left more
// before until, and from until on what after admits (the quota's next windows, when the upstream
// said how large they are, else anything: the next response steers it again). Requests before
// until take nothing from after, as a window that resets at until counts them not.
//
// An instant earlier than the latest one admitted counts as that one. left is never above what
// after holds at until, so that time passing never takes capacity away.
type budget struct {
	name  string          // the policy's name (and partition key) at the upstream
	left  int64           // what may go before until
	until time.Time       // when the upstream's quota resets
	after numerus.Limiter // from until on
	w     time.Duration   // the windows of after, announced or estimated
	last  time.Time       // the latest instant admitted at, or the zero time
}

// newBudget returns the budget of left before until, then q in each window of w from until:
// windows as the upstream counts them, aligned on until. A q of 0 is unknown: from until on it
// admits anything. A w of 0 is unknown too: the window is then estimated as the longest of est
// (the estimate of an earlier budget of the quota), the time from now to until and a second,
// since a window is at least as long as the time it has left.
func newBudget(name string, left int64, now, until time.Time, q int64, w, est time.Duration) budget {
	after := numerus.AlwaysAllow()
	if w <= 0 {
		w = max(until.Sub(now), est, time.Second)
	}
	if q > 0 {
		if fw, err := numerus.FixedWindow(w, q, until); err == nil {
			after = fw
		}
	}
	left = min(max(left, 0), after.Status(until).Remaining)
	return budget{name: name, left: left, until: until, after: after, w: w}
}

func (b budget) Debit(at time.Time) (numerus.Limiter, numerus.NextDebitable, bool) {
	return b.DebitN(at, 1)
}

func (b budget) DebitN(at time.Time, cost int64) (numerus.Limiter, numerus.NextDebitable, bool) {
	checkCost(cost)
	eff := latest(at, b.last)
	if eff.Before(b.until) {
		if cost > b.left {
			return b, b.fromUntil(cost), false
		}
		b.left -= cost
		b.last = eff
		return b, numerus.DebitableFrom(at), true
	}
	next, from, ok := b.after.DebitN(eff, cost)
	if !ok {
		return b, from, false
	}
	b.after, b.last = next, eff
	return b, numerus.DebitableFrom(at), true
}

// fromUntil answers a debit of cost refused before until: the first instant from until on at
// which after admits it.
func (b budget) fromUntil(cost int64) numerus.NextDebitable {
	_, from, ok := b.after.DebitN(b.until, cost)
	if ok {
		return numerus.DebitableFrom(b.until)
	}
	return from
}

func (b budget) Status(at time.Time) numerus.Status {
	eff := latest(at, b.last)
	if !eff.Before(b.until) {
		return b.after.Status(eff)
	}
	s := b.after.Status(b.until)
	return numerus.Status{Limit: max(s.Limit, b.left), Remaining: b.left, Full: s.Full}
}

func (b budget) String() string {
	return fmt.Sprintf("upstream %s: %d until %s, then %v", strconv.Quote(b.name), b.left,
		b.until.Format(time.RFC3339Nano), b.after)
}

func checkCost(cost int64) {
	if cost < 1 {
		panic(fmt.Sprintf("upstream: cost %d is below 1", cost))
	}
}

// latest returns the later of a and b.
func latest(a, b time.Time) time.Time {
	if a.Before(b) {
		return b
	}
	return a
}
