package kernel

// GCRAPolicy is a validated GCRA policy: burst tokens, one more every P/N ns.
type GCRAPolicy struct {
	Rate  Rate
	Burst int64
	limit int64 // Burst·P: the tolerance, scaled by N
	below int64 // debits at instants below it take the fast path; MinInstant if none can
}

// NewGCRA returns the policy; the caller has checked rate.FitsBurst(burst) and burst ≥ 1.
func NewGCRA(rate Rate, burst int64) *GCRAPolicy {
	p := &GCRAPolicy{Rate: rate, Burst: burst, limit: burst * rate.P, below: MinInstant}
	if rate.N == 1 && p.limit <= MaxInstant/4 { // whole ns per token: the TAT has no fraction
		p.below = MaxInstant - 2*p.limit + 1 // so that at + 2·limit cannot overflow in Fast
	}
	return p
}

// GCRA is the generic cell rate algorithm: a theoretical arrival time (TAT) that each admitted
// token pushes on by P/N ns; a debit of cost c at t is admitted when max(TAT, t) + c·P/N − t is at
// most Burst·P/N. The TAT keeps its fraction of a nanosecond, so uneven rates never drift, and it
// is kept exactly past MaxInstant too (see Frac), so that the last instants admit no more than a
// token bucket does.
type GCRA struct {
	P    *GCRAPolicy
	TAT  Frac
	Last int64
}

// Fresh returns a full GCRA under p.
func (p *GCRAPolicy) Fresh() GCRA { return GCRA{P: p, TAT: Frac{Q: MinInstant}, Last: MinInstant} }

// debt returns (TAT − at)·N, how far the TAT lies ahead of at scaled by N, or 0 if it does not;
// for at not before Last it is at most Burst·P.
func (g GCRA) debt(at int64) int64 {
	if !g.TAT.after(at) {
		return 0
	}
	return int64(diff(at, g.TAT.Q))*g.P.Rate.N + g.TAT.R
}

// Debit takes cost tokens at at.
func (g GCRA) Debit(at, cost int64) (GCRA, int64, bool) {
	if g.P != nil {
		if next, from, v := g.Fast(at, cost); v != Undecided {
			return next, from, v == Admitted
		}
	}
	return g.debit(at, cost)
}

// Fast is Debit's common case, small enough to be inlined: a whole number of nanoseconds per
// token, an instant not before Last and far enough from MaxInstant that nothing saturates, and a
// cost the burst can hold. The TAT has no fraction then, and max(TAT, at) − at is at most the
// tolerance, so nothing overflows. It returns Undecided for every other case, which Debit decides.
// g must have a policy.
func (g GCRA) Fast(at, cost int64) (GCRA, int64, Verdict) {
	p := g.P
	if at < g.Last || at >= p.below || uint64(cost-1) >= uint64(p.Burst) {
		return g, 0, Undecided
	}
	t := max(g.TAT.Q, at) + cost*p.Rate.P // at most at + 2·limit: it fits, as at < below
	if over := t - at - p.limit; over > 0 {
		return g, at + over, Refused
	}
	g.TAT.Q, g.Last = t, at
	return g, at, Admitted
}

// debit is Debit for every case.
func (g GCRA) debit(at, cost int64) (GCRA, int64, bool) {
	CheckCost(cost)
	p := g.P
	if p == nil || cost > p.Burst {
		return g, Never, false
	}
	at = max(at, g.Last)
	debt, need := g.debt(at), cost*p.Rate.P
	if over := need - (p.limit - debt); over > 0 {
		return g, Until(at, ceilDiv(over, p.Rate.N)), false
	}
	return GCRA{P: p, TAT: arrival(at, debt+need, p.Rate.N), Last: at}, at, true
}

// arrival returns the instant at + s/n (s ≥ 0) as a Frac.
func arrival(at, s, n int64) Frac {
	if n == 1 && at <= MaxInstant-s { // the common case: a whole number of ns per token
		return Frac{Q: at + s}
	}
	if q := s / n; at <= MaxInstant-q {
		return Frac{Q: at + q, R: s % n}
	}
	k := int64(diff(at, MaxInstant)) // fits: it is below s/n
	return Frac{Q: MaxInstant, R: s - k*n}
}

// Status reports the tokens and the instant the cell is full again.
func (g GCRA) Status(at int64) Status {
	p := g.P
	if p == nil {
		return Status{Full: Never}
	}
	at = max(at, g.Last)
	debt := g.debt(at)
	return Status{Limit: p.Burst, Remaining: p.Burst - ceilDiv(debt, p.Rate.P),
		Full: Until(at, ceilDiv(debt, p.Rate.N))}
}

// String names the policy.
func (g GCRA) String() string {
	if g.P == nil {
		return "gcra (zero)"
	}
	return "gcra " + g.P.Rate.String() + " burst " + itoa(g.P.Burst)
}
