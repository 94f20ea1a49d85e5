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

// Debit counts cost tokens at at.
func (c SlidingCounter) Debit(at, cost int64) (SlidingCounter, int64, bool) {
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
