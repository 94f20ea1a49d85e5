package kernel

// next returns the first instant, from at on, at which k holds one token more than Status(at)
// says it does: at itself when it is full (no more will come), Never when it never refills. It
// is the answer of a debit of that many tokens, which k refuses at at, exactly.
func next[K nexter[K]](k K, at int64) int64 { return NextOf(k, at, k.Status(at)) }

// nexter is what next needs of a kernel.
type nexter[K any] interface {
	Debit(at, cost int64) (K, int64, bool)
	Status(at int64) Status
}

// NextOf is k's Next(at), given s, k's Status(at), for a caller that has it already.
func NextOf[K nexter[K]](k K, at int64, s Status) int64 {
	if s.Remaining >= s.Limit {
		return at
	}
	if _, from, ok := k.Debit(at, max(s.Remaining, 0)+1); !ok {
		return from
	}
	return at
}

// Next is the instant from which g holds one token more than it does at at (see next): the
// answer of next's debit, worked out from the debt that Status reads, with neither call.
func (g GCRA) Next(at int64) int64 {
	p := g.P
	if p == nil {
		return at
	}
	a := max(at, g.Last)
	debt := g.debt(a)
	if debt == 0 { // full
		return at
	}
	r := max(p.Burst-ceilDiv(debt, p.Rate.P), 0) // as Status counts them
	if over := (r+1)*p.Rate.P - (p.limit - debt); over > 0 {
		return Until(a, ceilDiv(over, p.Rate.N))
	}
	return at
}

// Next is the instant from which b holds one token more than it does at at (see next).
func (b TokenBucket) Next(at int64) int64 { return next(b, at) }

// Next is the instant from which b holds one token more than it does at at (see next).
func (b LeakyBucket) Next(at int64) int64 { return next(b, at) }

// Next is at when f is full, Never otherwise: a finite bucket never refills.
func (f Finite) Next(at int64) int64 { return next(f, at) }

// Next is the instant from which w holds one token more than it does at at (see next).
func (w FixedWindow) Next(at int64) int64 { return next(w, at) }

// Next is the instant from which c holds one token more than it does at at (see next).
func (c SlidingCounter) Next(at int64) int64 { return next(c, at) }

// Next is the instant from which l holds one token more than it does at at (see next).
func (l Log) Next(at int64) int64 { return next(l, at) }
