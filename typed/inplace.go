package typed

import "github.com/numerus-closus/numerus/internal/kernel"

// This file is the API of stores: a debit on a State kept in place, on instants in nanoseconds
// since the Unix epoch (of the years 1678 to 2262; math.MaxInt64 is never), reporting in one call
// what a store's answer needs. It runs the same kernels as DebitN and Status, in the same order.

// Outcome is what [Policy.DebitIn] and [Policy.PeekIn] report beside the verdict: the subject's
// Status after the debit and when the same debit would be admitted, in nanoseconds since the
// Unix epoch, or math.MaxInt64 when that never comes.
//
// The zero Outcome holds a limit of zero, with Retry and Full at the epoch.
type Outcome struct {
	// Remaining is the whole tokens left, rounded down, as numerus.Status reports them.
	Remaining int64
	// Limit is the policy's capacity, as numerus.Status reports it.
	Limit int64
	// Retry is the instant the same debit would be admitted: the debit's own instant when it was
	// admitted, else the exact earliest one, or never.
	Retry int64
	// Full is the instant the subject is full again if it takes nothing more, or never.
	Full int64
	// Next is the instant from which the subject holds one token more than Remaining, if it
	// takes nothing more (a debit of Remaining+1 would be admitted then): the debit's own instant
	// when it is full, never when it never refills.
	Next int64
	// Binds is the index, among the policy's leaves in the order the notation writes them, of
	// the limit that binds: on a refusal the one whose wait Retry is (in an And the latest, in an
	// Or the earliest); on an admission the one whose tokens Remaining counts (in an And the one
	// with the fewest left, of those the one whose next token comes last; in an Or the one with
	// the most, of those the one whose next token comes first). It is 0 for a policy of one leaf.
	Binds int
}

var zeroOutcome = Outcome{Retry: kernel.Never, Full: kernel.Never, Next: kernel.Never}

// DebitIn takes cost tokens at at (nanoseconds since the Unix epoch) from the State *s, all or
// nothing, in place, and reports whether it admitted and the Outcome. It decides as DebitN does,
// in about half the time of DebitN and Status. Copies of *s made earlier never change. A cost
// below 1 panics.
func (p Policy) DebitIn(s *State, at, cost int64) (Outcome, bool) {
	kernel.CheckCost(cost)
	at = min(at, kernel.MaxInstant) // as time.Unix(0, Never) is: the range ends a ns before Never
	c := p.c
	switch {
	case c == nil:
		return zeroOutcome, false
	case c.gcra != nil: // the commonest policy, with one call less: debitFirst's first case
		k, from, ok, st, next := loadGCRA(c.gcra, s.w[:3]).DebitStatus(at, cost)
		if ok {
			putGCRA(s.w[:3], k)
		}
		return outcomeOf(st, at, from, ok, next), ok
	case c.single != nil: // the common case: any State fits a policy without an extra block
		return c.single.debitFirst(&s.w, at, cost, true)
	case !c.fits(s):
		return c.debitForeign(s, at, cost)
	}
	from, ok := c.debitIn(s, at, cost)
	return c.outcome(s, at, cost, from, ok), ok
}

// debitForeign is DebitIn on a State that does not fit c: on a fitted copy, kept if admitted.
func (c *compiled) debitForeign(s *State, at, cost int64) (Outcome, bool) {
	fitted := *s
	c.fit(&fitted)
	from, ok := c.debitIn(&fitted, at, cost)
	if ok {
		*s = fitted
	}
	return c.outcome(&fitted, at, cost, from, ok), ok
}

// PeekIn reports what DebitIn(s, at, 1) would report, changing nothing: whether one token could
// be taken at at, when it could be if not, and the Status of *s at at.
func (p Policy) PeekIn(s *State, at int64) (Outcome, bool) {
	at = min(at, kernel.MaxInstant)
	c := p.c
	switch {
	case c == nil:
		return zeroOutcome, false
	case c.single != nil:
		return c.single.debitFirst(&s.w, at, 1, false)
	case !c.fits(s):
		fitted := *s
		c.fit(&fitted)
		return p.PeekIn(&fitted, at)
	}
	from, ok := c.debit(0, s, nil, c.effective(s, at), 1)
	return c.outcome(s, at, 1, from, ok), ok
}

// debitIn runs the debit on *s, which fits c: admitted, *s holds the next state; refused, it is
// unchanged. Leaves read and write only their own words, so a tree without an And debits in
// place; an And may undo its admitted children, from a copy of the words.
func (c *compiled) debitIn(s *State, at, cost int64) (int64, bool) {
	if lf := c.single; lf != nil { // the common case, without the tree's dispatch
		return lf.debit(s, s, at, cost)
	}
	at = c.effective(s, at)
	if c.ext {
		dst := *s
		dst.own(c)
		from, ok := c.debit(0, s, &dst, at, cost)
		if ok {
			*s = dst
		}
		return from, ok
	}
	if !c.and {
		return c.debit(0, s, s, at, cost)
	}
	src := *s
	return c.debit(0, &src, s, at, cost)
}

// outcome completes the answer of a debit at at with the status of s and its binding limit.
func (c *compiled) outcome(s *State, at, cost, from int64, ok bool) Outcome {
	if lf := c.single; lf != nil {
		return outcomeOf(lf.status(s, at), at, from, ok, lf.next(s, at))
	}
	eff := c.effective(s, at)
	b := c.binding(0, s, eff)
	o := outcomeOf(b.st, at, from, ok, c.next(s, at, eff, b.st))
	o.Binds = b.leaf
	if !ok {
		o.Binds = c.answering(0, s, eff, cost, from)
	}
	return o
}

// fits reports whether s can be read under c as it is (see fit): its extra block has the size c
// reads, and its logs the parameters of c's.
func (c *compiled) fits(s *State) bool {
	e := s.ext
	if !c.ext {
		return true
	}
	if e == nil || len(e.w) != max(c.words-inlineWords, 0) || len(e.logs) != c.logs {
		return false
	}
	for i := range c.leaves {
		if lf := &c.leaves[i]; lf.k.isLog() && !sameLog(e.logs[lf.off].P, lf.log) {
			return false
		}
	}
	return true
}
