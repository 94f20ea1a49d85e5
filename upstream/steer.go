package upstream

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/numerus-closus/numerus"
)

// maxBudgets bounds the budgets one gate keeps: of the quotas an upstream names, a gate keeps the
// first 16 (by name and partition key), so that no response grows its limiter without bound.
const maxBudgets = 16

// sameWindow is how far apart two announcements of one quota may put its reset and still be of
// the same window: the fields count in whole seconds, so the same reset reads up to a second
// apart from one response to the next.
const sameWindow = time.Second

// steered is the limiter of one upstream's gate: the local policy and every budget the upstream
// announced must admit a debit. numerus.AllOf of them decides it, and answers a refusal; an
// admission then charges each of them at the instant AllOf admitted it. They are kept apart,
// rather than as AllOf's own next value, so that a new announcement can replace a budget while
// the local policy keeps its state.
//
// An instant earlier than the latest one admitted counts as that one, for every part.
type steered struct {
	local   numerus.Limiter
	budgets []budget // at most maxBudgets; never shared with another steered value
	last    time.Time
	taken   int64 // the tokens admitted so far: the requests let go
}

func newSteered(local numerus.Limiter) steered { return steered{local: local} }

// all is the And of the parts, which decides.
func (s steered) all() numerus.Limiter {
	ls := make([]numerus.Limiter, 0, 1+len(s.budgets))
	ls = append(ls, s.local)
	for _, b := range s.budgets {
		ls = append(ls, b)
	}
	return numerus.AllOf(ls...)
}

func (s steered) Debit(at time.Time) (numerus.Limiter, numerus.NextDebitable, bool) {
	return s.DebitN(at, 1)
}

func (s steered) DebitN(at time.Time, cost int64) (numerus.Limiter, numerus.NextDebitable, bool) {
	eff := latest(at, s.last)
	if _, from, ok := s.all().DebitN(eff, cost); !ok {
		return s, from, false
	}
	next, ok := s.charge(eff, cost)
	if !ok { // a part that is not a pure value changed its mind
		return s, s.Status(eff).Full, false
	}
	return next, numerus.DebitableFrom(at), true
}

// charge debits every part at at, which AllOf admitted.
func (s steered) charge(at time.Time, cost int64) (steered, bool) {
	local, _, ok := s.local.DebitN(at, cost)
	next := steered{local: local, budgets: make([]budget, len(s.budgets)), last: at, taken: s.taken + cost}
	for i, b := range s.budgets {
		nb, _, admitted := b.DebitN(at, cost)
		next.budgets[i], ok = nb.(budget), ok && admitted
	}
	return next, ok
}

func (s steered) Status(at time.Time) numerus.Status { return s.all().Status(latest(at, s.last)) }

func (s steered) String() string {
	parts := make([]string, 0, 1+len(s.budgets))
	parts = append(parts, s.local.String())
	for _, b := range s.budgets {
		parts = append(parts, b.String())
	}
	return strings.Join(parts, " & ")
}

// steer returns s with the quotas a response announced applied at now, inflight requests having
// gone and not yet been answered (the upstream may not have counted them). A quota replaces the
// budget of its name, unless both are of the same window (see merge); a new name is added while
// there are fewer than maxBudgets. Budgets past their reset that know nothing beyond it are
// dropped.
func (s steered) steer(now time.Time, qs []quota, inflight int64) steered {
	out := s
	out.budgets = slices.Clone(s.budgets)
	for _, q := range qs {
		i := slices.IndexFunc(out.budgets, func(b budget) bool { return b.name == q.name })
		switch {
		case i >= 0:
			out.budgets[i] = merge(out.budgets[i], q, now, inflight)
		case len(out.budgets) < maxBudgets:
			out.budgets = append(out.budgets, q.budget(now, inflight, 0))
		}
	}
	out.budgets = slices.DeleteFunc(out.budgets, func(b budget) bool { return b.over(now) })
	return out
}

// merge applies q to b, the budget of its name, at now. While b runs, a q whose reset is no more
// than sameWindow after b's is of b's window: it keeps the lesser of the two budgets and the later
// of the two resets, so that a response that left its upstream before another, and came after
// it, cannot grant again what the other's spent. Otherwise q is a new window and replaces b.
func merge(b budget, q quota, now time.Time, inflight int64) budget {
	nb := q.budget(now, inflight, b.w)
	if !now.Before(b.until) || nb.until.After(b.until.Add(sameWindow)) {
		return nb
	}
	return newBudget(q.name, min(b.left, nb.left), now, latest(b.until, nb.until), q.limit, q.window, b.w)
}

// over reports whether b, at now, has reset and admits anything: it no longer restrains.
func (b budget) over(now time.Time) bool {
	return !now.Before(b.until) && b.after.Status(now).Limit == math.MaxInt64
}
