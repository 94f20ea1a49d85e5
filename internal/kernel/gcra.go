package kernel

// GCRAPolicy is a validated GCRA policy: burst tokens, one more every P/N ns.
type GCRAPolicy struct {
	Rate  Rate
	Burst int64
	limit int64 // Burst·P: the tolerance, scaled by N
}

// NewGCRA returns the policy; the caller has checked rate.FitsBurst(burst) and burst ≥ 1.
func NewGCRA(rate Rate, burst int64) *GCRAPolicy {
	return &GCRAPolicy{Rate: rate, Burst: burst, limit: burst * rate.P}
}

// GCRA is the generic cell rate algorithm: a theoretical arrival time (TAT) that each admitted
// token pushes on by P/N ns; a debit of cost c at t is admitted when max(TAT, t) + c·P/N − t is at
// most Burst·P/N. The TAT keeps its fraction of a nanosecond, so uneven rates never drift.
type GCRA struct {
	P    *GCRAPolicy
	TAT  Frac
	Last int64
}

// Fresh returns a full GCRA under p.
func (p *GCRAPolicy) Fresh() GCRA { return GCRA{P: p, TAT: Frac{MinInstant, 0}, Last: MinInstant} }

// Debit takes cost tokens at at.
func (g GCRA) Debit(at, cost int64) (GCRA, int64, bool) {
	CheckCost(cost)
	p := g.P
	if p == nil || cost > p.Burst {
		return g, Never, false
	}
	at = max(at, g.Last)
	base := Frac{at, 0}
	if g.TAT.after(at) {
		base = g.TAT
	}
	n := p.Rate.N
	next := base.plus(cost*p.Rate.P, n)
	if next.scaledWithin(at, n, p.limit) {
		return GCRA{P: p, TAT: next, Last: at}, at, true
	}
	return g, g.TAT.minus((p.Burst-cost)*p.Rate.P, n).ceil(), false
}

// scaledWithin reports whether (f − at)·n ≤ limit, for f not before at, without overflow.
func (f Frac) scaledWithin(at, n, limit int64) bool {
	d := diff(at, f.Q)
	if n == 1 {
		return d <= uint64(limit)
	}
	q, r := uint64(limit/n), limit%n
	return d < q || (d == q && f.R <= r)
}

// Status reports the tokens and the instant the cell is full again.
func (g GCRA) Status(at int64) Status {
	p := g.P
	if p == nil {
		return Status{Full: Never}
	}
	at = max(at, g.Last)
	if !g.TAT.after(at) {
		return Status{Limit: p.Burst, Remaining: p.Burst, Full: at}
	}
	used := g.TAT.scaledSince(at, p.Rate.N)
	return Status{Limit: p.Burst, Remaining: p.Burst - ceilDiv(used, p.Rate.P), Full: g.TAT.ceil()}
}

// String names the policy.
func (g GCRA) String() string {
	if g.P == nil {
		return "gcra (zero)"
	}
	return "gcra " + g.P.Rate.String() + " burst " + itoa(g.P.Burst)
}
