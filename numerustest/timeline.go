package numerustest

import (
	"fmt"
	"time"

	"pgregory.net/rapid"

	"github.com/numerus-closus/numerus"
)

// debit is one step of a timeline: move the instant by Step, then debit Cost.
type debit struct {
	Step time.Duration
	Cost int64
}

// newEnv returns the environment of the checks, with its generators built once.
func newEnv(c config, newLimiter func() numerus.Limiter) env {
	e := env{config: c, newLimiter: newLimiter}
	s := int64(c.span)
	e.steps = rapid.Map(rapid.OneOf(
		rapid.Just(int64(0)),
		rapid.Int64Range(-1, 1),
		rapid.Int64Range(0, max(s/16, 1)),
		rapid.Map(rapid.Int64Range(-4, 16), func(k int64) int64 { return k * max(s/8, 1) }),
		rapid.Int64Range(-s/2, s),
		rapid.Int64Range(s, 4*s),
	), func(d int64) time.Duration { return time.Duration(d) })
	e.costs = rapid.OneOf(rapid.Just(int64(1)), rapid.Int64Range(1, c.maxCost))
	e.debitGen = rapid.Custom(func(t *rapid.T) debit {
		return debit{Step: e.steps.Draw(t, "step"), Cost: e.costs.Draw(t, "cost")}
	})
	e.laterGen = rapid.OneOf(rapid.Just(int64(1)), rapid.Int64Range(0, 4*s))
	return e
}

func (e env) step(t *rapid.T, label string) time.Duration { return e.steps.Draw(t, label) }

func (e env) cost(t *rapid.T, label string) int64 { return e.costs.Draw(t, label) }

func (e env) debit(t *rapid.T, label string) debit { return e.debitGen.Draw(t, label) }

// debits draws a sequence of at most n debits.
func (e env) debits(t *rapid.T, label string, n int) []debit {
	return rapid.SliceOfN(e.debitGen, 0, n).Draw(t, label)
}

// timeline is a value built by debits from a fresh limiter.
type timeline struct {
	l        numerus.Limiter
	now      time.Time // the instant of the last debit asked
	latest   time.Time // L: the latest instant at which a debit was admitted
	admitted bool      // whether any debit was admitted
}

// history draws a timeline of at most 16 debits.
func (e env) history(t *rapid.T) timeline { return e.replay(e.debits(t, "history", 16)) }

// replay builds the timeline of ds from a fresh limiter.
func (e env) replay(ds []debit) timeline {
	h := timeline{l: e.newLimiter(), now: e.start}
	for _, d := range ds {
		h.now = h.now.Add(d.Step)
		next, _, ok := h.l.DebitN(h.now, d.Cost)
		if !ok {
			continue
		}
		h.l = next
		if !h.admitted || h.now.After(h.latest) {
			h.latest = h.now
		}
		h.admitted = true
	}
	return h
}

// answer is what a limiter says about one debit, and its status at the instant asked.
type answer struct {
	at     time.Time
	cost   int64
	ok     bool
	from   numerus.NextDebitable
	status numerus.Status
}

func (a answer) String() string {
	verdict := "admitted"
	if !a.ok {
		verdict = "refused, " + a.from.String()
	}
	return fmt.Sprintf("DebitN(%s, %d): %s; status %d of %d, full %s", a.at.Format(time.RFC3339Nano),
		a.cost, verdict, a.status.Remaining, a.status.Limit, a.status.Full)
}

func (a answer) equal(b answer) bool {
	return a.ok == b.ok && a.from.Equal(b.from) && a.status.Limit == b.status.Limit &&
		a.status.Remaining == b.status.Remaining && a.status.Full.Equal(b.status.Full)
}

// cursor follows a limiter along a sequence of debits, keeping each admitted result.
type cursor struct {
	l  numerus.Limiter
	at time.Time
}

func (c *cursor) next(d debit) answer {
	c.at = c.at.Add(d.Step)
	s := c.l.Status(c.at)
	next, from, ok := c.l.DebitN(c.at, d.Cost)
	if ok {
		c.l = next
	}
	return answer{at: c.at, cost: d.Cost, ok: ok, from: from, status: s}
}

// answers returns the answers of l along ds from at.
func answers(l numerus.Limiter, at time.Time, ds []debit) []answer {
	c := cursor{l: l, at: at}
	out := make([]answer, len(ds))
	for i, d := range ds {
		out[i] = c.next(d)
	}
	return out
}

// same fails t at the first answer where got differs from want; what says whose answers got are.
func same(t *rapid.T, l numerus.Limiter, what string, got, want []answer) {
	t.Helper()
	for i := range want {
		if !got[i].equal(want[i]) {
			t.Fatalf("%s: %s decides differently at debit %d:\n got  %v\n want %v", l, what, i, got[i], want[i])
		}
	}
}

// later returns an instant from at to at plus four spans, at plus 1ns more often than others.
func (e env) later(t *rapid.T, at time.Time, label string) time.Time {
	return at.Add(time.Duration(e.laterGen.Draw(t, label)))
}
