package kernel

// GCRAPolicy is a validated GCRA policy: burst tokens, one more every P/N ns.
type GCRAPolicy struct {
	Rate  Rate
	Burst int64
	limit int64 // Burst·P: the tolerance, scaled by N
	below int64 // debits at instants below it take the fast path; MinInstant if none can
	step  Frac  // P/N: one token's emission interval, for DebitStatus
	fracs int64 // like below, for DebitStatus of one token at a fractional rate (N > 1)
}

// NewGCRA returns the policy; the caller has checked rate.FitsBurst(burst) and burst ≥ 1.
func NewGCRA(rate Rate, burst int64) *GCRAPolicy {
	p := &GCRAPolicy{Rate: rate, Burst: burst, limit: burst * rate.P, below: MinInstant,
		step: Frac{Q: rate.P / rate.N, R: rate.P % rate.N}, fracs: MinInstant}
	switch span := p.limit / rate.N; {
	case span > MaxInstant/4:
	case rate.N == 1: // whole ns per token: the TAT has no fraction
		p.below = MaxInstant - 2*p.limit + 1 // so that at + 2·limit cannot overflow in FastTake
	default: // the TAT lies at most span+1 ns ahead of at, and one step at most span more
		p.fracs = MaxInstant - 2*span - 3
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
		if g.FastCase(at, cost) && g.TAT.R == 0 { // a fraction here: another policy's state
			tat, over := g.FastTake(at, cost)
			if over > 0 {
				return g, at + over, false
			}
			return g.FastAdmit(at, tat), at, true
		}
	}
	return g.debit(at, cost)
}

// FastCase reports whether a debit of cost at at is Debit's common case, which FastTake and
// FastAdmit decide, small enough to be inlined: a whole number of nanoseconds per token, an
// instant not before Last and far enough from MaxInstant that nothing saturates, and a cost the
// burst can hold. A state of p that it accepts has a TAT with no fraction (only one saturated at
// MaxInstant has one, and its Last lies past below), and max(TAT, at) − at is at most the
// tolerance, so nothing overflows. Debit decides every other case. g must have a policy and a
// state of p: a caller that may hold another policy's (a typed State read by a policy it was not
// written under) calls Debit or DebitStatus, which turn away a fraction the fast path would drop.
//
// The common case is three calls rather than one returning a verdict, so that a caller branches
// on the outcome itself: a verdict passed out of an inlined call and switched on costs a typed
// debit about a sixth of its time.
func (g GCRA) FastCase(at, cost int64) bool {
	p := g.P
	return at >= g.Last && at < p.below && uint64(cost-1) < uint64(p.Burst)
}

// FastTake is the arithmetic of a debit FastCase accepts: the TAT after it, and how far past the
// tolerance that lies. Positive, the debit is refused and succeeds over ns after at; otherwise it
// is admitted, and FastAdmit(at, tat) is the GCRA that follows it.
func (g GCRA) FastTake(at, cost int64) (tat, over int64) {
	p := g.P
	t := max(g.TAT.Q, at) + cost*p.Rate.P // at most at + 2·limit: it fits, as at < below
	return t, t - at - p.limit
}

// FastAdmit returns g after a debit at at that FastTake admitted, moving the TAT to tat.
func (g GCRA) FastAdmit(at, tat int64) GCRA {
	g.TAT.Q, g.Last = tat, at
	return g
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

// DebitStatus is Debit(at, cost) followed by Status(at) and Next(at) of the GCRA it leaves (the
// receiver when refused), in one pass: what a store answers on every check. Its common cases
// share the debt between the three and divide once, for the tokens owed, from which both the
// tokens remaining and the next token follow (twice when refused, for the wait too; and once
// more for the next token at a fractional rate): a cost the burst holds at an instant not before
// Last and far from MaxInstant, with a whole number of nanoseconds per token (below p.below), or
// a cost of one token at a fractional rate (below p.fracs), whose TAT moves on by the step P/N,
// carrying its fraction, with no division. The rest take Debit, Status and Next.
func (g GCRA) DebitStatus(at, cost int64) (GCRA, int64, bool, Status, int64) {
	p := g.P
	if p == nil || at < g.Last || uint64(cost-1) >= uint64(p.Burst) || at >= p.below && (at >= p.fracs || cost != 1) ||
		uint64(g.TAT.R) >= uint64(p.Rate.N) { // a fraction no state of p holds: another policy's
		return g.debitStatus(at, cost)
	}
	n, tat, debt := p.Rate.N, g.TAT, int64(0)
	if tat.after(at) { // the TAT lies at most limit/N ahead: no product overflows
		debt = (tat.Q-at)*n + tat.R
	} else {
		tat = Frac{Q: at}
	}
	from, ok := at, true
	if over := debt + cost*p.Rate.P - p.limit; over > 0 {
		from, ok = at+ceilDiv(over, n), false
	} else {
		if debt += cost * p.Rate.P; n == 1 {
			tat.Q += cost * p.Rate.P
		} else if tat.Q, tat.R = tat.Q+p.step.Q, tat.R+p.step.R; tat.R >= n { // cost is 1
			tat.Q, tat.R = tat.Q+1, tat.R-n
		}
		g.TAT, g.Last = tat, at
	}
	// With m tokens owed (at most Burst counted, as Next counts no fewer than 0 remaining), the
	// next one comes when the debt falls to (m−1)·P, which Next's debit of Burst−m+1 tokens
	// waits for.
	m, next := ceilDiv(debt, p.Rate.P), at
	if m > 0 {
		next = at + ceilDiv(debt-(min(m, p.Burst)-1)*p.Rate.P, n)
	}
	return g, from, ok, Status{Limit: p.Burst, Remaining: p.Burst - m, Full: tat.ceil()}, next
}

// debitStatus is DebitStatus for every case.
func (g GCRA) debitStatus(at, cost int64) (GCRA, int64, bool, Status, int64) {
	next, from, ok := g.Debit(at, cost)
	if ok {
		g = next
	}
	return g, from, ok, g.Status(at), g.Next(at)
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
