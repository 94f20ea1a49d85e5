package kernel

// LeakyBucket is the leaky bucket as a meter: Level scaled units of water at Last, draining at the
// policy's rate; a debit pours cost tokens in and is admitted while the bucket does not overflow.
type LeakyBucket struct {
	P     *BucketPolicy
	Level int64
	Last  int64
}

// FreshLeaky returns an empty leaky bucket under p.
func (p *BucketPolicy) FreshLeaky() LeakyBucket {
	return LeakyBucket{P: p, Level: 0, Last: MinInstant}
}

func (b LeakyBucket) levelAt(at int64) int64 {
	return b.Level - b.P.flow(b.Last, at, b.Level)
}

// Debit pours cost tokens in at at.
func (b LeakyBucket) Debit(at, cost int64) (LeakyBucket, int64, bool) {
	if b.P != nil {
		switch next, from, v := b.Fast(at, cost); v {
		case Admitted:
			return next, from, true
		case Refused:
			return b, from, false
		}
	}
	return b.debit(at, cost)
}

// Fast is Debit's common case, small enough to be inlined, as TokenBucket.Fast. b must have a
// policy.
func (b LeakyBucket) Fast(at, cost int64) (LeakyBucket, int64, Verdict) {
	p := b.P
	if at < b.Last || at >= p.below || uint64(cost-1) >= uint64(p.Capacity) {
		return b, 0, Undecided
	}
	// The leak is at − Last (exact in uint64), capped at the level.
	b.Level -= int64(min(uint64(at)-uint64(b.Last), uint64(b.Level)))
	if b.Level += cost * p.Rate.P; b.Level > p.full { // at most 2·full: it fits, see NewBucket
		return b, at + (b.Level - p.full), Refused
	}
	b.Last = at
	return b, at, Admitted
}

// debit is Debit for every case.
func (b LeakyBucket) debit(at, cost int64) (LeakyBucket, int64, bool) {
	CheckCost(cost)
	p := b.P
	if p == nil || cost > p.Capacity {
		return b, Never, false
	}
	at = max(at, b.Last)
	level, pour := b.levelAt(at), cost*p.Rate.P
	if over := level + pour - p.full; over > 0 {
		return b, Until(at, ceilDiv(over, p.Rate.N)), false
	}
	return LeakyBucket{P: p, Level: level + pour, Last: at}, at, true
}

// Status reports the room left in whole tokens and when the bucket is empty again.
func (b LeakyBucket) Status(at int64) Status {
	p := b.P
	if p == nil {
		return Status{Full: Never}
	}
	at = max(at, b.Last)
	level := b.levelAt(at)
	return Status{Limit: p.Capacity, Remaining: (p.full - level) / p.Rate.P,
		Full: Until(at, ceilDiv(level, p.Rate.N))}
}

// String names the policy.
func (b LeakyBucket) String() string {
	if b.P == nil {
		return "leaky (zero)"
	}
	return "leaky " + b.P.Rate.String() + " burst " + itoa(b.P.Capacity)
}
