package kernel

// SlidingCounter estimates a sliding window from two fixed ones: at elapsed e into the current
// window, the count is Prev·(W−e)/W + Cur. The estimate is compared in 128-bit integers, exactly:
// a debit of c is admitted when Prev·(W−e) + (Cur+c)·W ≤ Limit·W.
type SlidingCounter struct {
	P     *WindowPolicy
	Start int64 // start of the window Cur counts
	Prev  int64
	Cur   int64
	Last  int64
}

// FreshCounter returns an empty sliding counter under p.
func (p *WindowPolicy) FreshCounter() SlidingCounter {
	return SlidingCounter{P: p, Start: MinInstant, Last: MinInstant}
}

// countsAt returns the start of the window holding at, the time elapsed in it, and the previous
// and current counts there.
func (c SlidingCounter) countsAt(at int64) (s, e, prev, cur int64) {
	e = floorMod(at, c.P.Origin, c.P.Width)
	s = SubSat(at, e)
	switch {
	case s == c.Start:
		return s, e, c.Prev, c.Cur
	case c.Start < s && c.Start == c.P.start(s-1):
		return s, e, c.Cur, 0
	}
	return s, e, 0, 0
}

// weighted returns Prev·(W−e) + cur·W.
func (p *WindowPolicy) weighted(prev, cur, e int64) u128 {
	return mul(prev, p.Width-e).add(mul(cur, p.Width))
}

// Debit counts cost tokens at at. CountCase and CountFits decide the common case, CountFrom
// answers its refusals.
func (c SlidingCounter) Debit(at, cost int64) (SlidingCounter, int64, bool) {
	if p := c.P; p != nil && p.CountCase(c.Start, c.Cur, c.Last, at, cost) {
		if !p.CountFits(c.Start, c.Prev, c.Cur, at, cost) {
			return c, p.CountFrom(c.Start, c.Prev, c.Cur, at, cost), false
		}
		c.Cur += cost
		c.Last = at
		return c, at, true
	}
	return c.debit(at, cost)
}

// CountCase reports whether a debit of cost at at of the sliding counter whose fields are start,
// cur and last is Debit's common case, which CountFits decides without a division: at lies in the
// window counted, not before last, that window holds tokens (so that start is the start of a
// window), does not start at MinInstant (where it may have been cut short) and is full again
// before MaxInstant however full it is, the cost is within the limit and Limit·Width leaves room
// for the estimate in int64.
//
// It is the counter's fast path, as GCRA.FastCase is GCRA's, small enough to be inlined. It takes
// the fields one by one rather than a SlidingCounter and returns no value: a SlidingCounter is
// five words, which Go keeps in memory rather than in registers, and copying one in and out of a
// fast path would cost more than the path saves.
func (p *WindowPolicy) CountCase(start, cur, last, at, cost int64) bool {
	e := at - start // the time elapsed in the window, if at lies in it
	return at >= last && uint64(e) < uint64(p.Width) && uint64(start)-fastLo < p.cspan && cur >= 1 &&
		uint64(cost-1) < p.costs
}

// CountFits reports whether a debit CountCase accepts is admitted: the estimate, compared as
// products, prev·(W−e) + (cur+cost)·W ≤ Limit·W, exactly as Debit compares it. CountFrom answers
// its refusals.
func (p *WindowPolicy) CountFits(start, prev, cur, at, cost int64) bool {
	return prev*(p.Width-(at-start))+(cur+cost)*p.Width <= p.limW
}

// CountFrom returns the instant from which a debit that CountFits refuses would be admitted, as
// Debit answers it: the refusal's instant, which takes a division but when FullFrom answers.
func (p *WindowPolicy) CountFrom(start, prev, cur, at, cost int64) int64 {
	if from, ok := p.FullFrom(start, cur, cost); ok {
		return from
	}
	return p.counterFrom(at, at-start, prev, cur, cost)
}

// FullFrom is CountFrom for the commonest refusal: a full window, starting at start, refusing one
// token, whose wait from its start into the next window the policy keeps. It returns false for
// every other debit.
func (p *WindowPolicy) FullFrom(start, cur, cost int64) (int64, bool) {
	if cur != p.Limit || cost != 1 {
		return 0, false
	}
	return Until(start, p.fullNext), true
}

// FullWait is FullFrom for a debit CountCase accepts, as the wait from at, small enough to be
// inlined: such a debit of one token from a full window is refused whatever CountFits says (the
// window alone holds the limit), so a caller asks it first and skips CountFits' products, and
// its window is full again before MaxInstant (see cspan), so the answer is never Never.
func (p *WindowPolicy) FullWait(start, cur, cost, at int64) (int64, bool) {
	if cur != p.Limit || cost != 1 {
		return 0, false
	}
	return start + p.fullNext - at, true
}

// CounterOf returns the sliding counter under p with the counts prev and cur, last admitted at
// last, for a caller that did not keep its Start: it takes the start of the window holding last (a
// division), which Start is wherever a count is not zero, and may be where both are (it then does
// not matter).
func (p *WindowPolicy) CounterOf(prev, cur, last int64) SlidingCounter {
	return SlidingCounter{P: p, Start: p.start(last), Prev: prev, Cur: cur, Last: last}
}

// debit is Debit for every case.
func (c SlidingCounter) debit(at, cost int64) (SlidingCounter, int64, bool) {
	CheckCost(cost)
	p := c.P
	if p == nil || cost > p.Limit {
		return c, Never, false
	}
	at = max(at, c.Last)
	s, e, prev, cur := c.countsAt(at)
	if cost <= p.Limit-cur && p.weighted(prev, cur+cost, e).cmp(mul(p.Limit, p.Width)) <= 0 {
		return SlidingCounter{P: p, Start: s, Prev: prev, Cur: cur + cost, Last: at}, at, true
	}
	return c, p.counterFrom(at, e, prev, cur, cost), false
}

// counterFrom returns the first instant a debit of cost refused at at, elapsed e into its window,
// fits.
func (p *WindowPolicy) counterFrom(at, e, prev, cur, cost int64) int64 {
	if cost <= p.Limit-cur {
		if d := p.decayed(prev, p.Limit-cur-cost); d < p.Width {
			return Until(at, d-e)
		}
	}
	return Until(p.end(at, e), p.decayed(cur, p.Limit-cost))
}

// decayed returns the least elapsed e in [0, W] with weight·(W−e) ≤ room·W.
func (p *WindowPolicy) decayed(weight, room int64) int64 {
	allowed := mul(room, p.Width)
	if weight == 0 || allowed.cmp(mul(weight, p.Width)) >= 0 {
		return 0
	}
	return p.Width - allowed.div(weight)
}

// Status reports the whole tokens the estimate leaves and when both windows are empty.
func (c SlidingCounter) Status(at int64) Status {
	p := c.P
	if p == nil {
		return Status{Full: Never}
	}
	at = max(at, c.Last)
	_, e, prev, cur := c.countsAt(at)
	used, limit := p.weighted(prev, cur, e), mul(p.Limit, p.Width)
	var left int64
	if used.cmp(limit) < 0 {
		left = limit.sub(used).div(p.Width)
	}
	full := at
	switch {
	case cur > 0:
		full = Until(p.end(at, e), p.Width)
	case prev > 0:
		full = p.end(at, e)
	}
	return Status{Limit: p.Limit, Remaining: left, Full: full}
}

// String names the policy.
func (c SlidingCounter) String() string {
	if c.P == nil {
		return "count (zero)"
	}
	return "count " + itoa(c.P.Limit) + "/" + FormatPeriod(c.P.Width)
}
