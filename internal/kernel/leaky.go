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
	if b.P != nil && b.FastCase(at, cost) {
		level, over := b.FastTake(at, cost)
		if over > 0 {
			return b, at + over, false
		}
		return b.FastAdmit(at, level), at, true
	}
	return b.debit(at, cost)
}

// FastCase reports whether a debit of cost at at is Debit's common case, which FastTake and
// FastAdmit decide, small enough to be inlined, as TokenBucket.FastCase. b must have a policy.
func (b LeakyBucket) FastCase(at, cost int64) bool {
	p := b.P
	return at >= b.Last && at < p.below && uint64(cost-1) < uint64(p.Capacity)
}

// FastTake is the arithmetic of a debit FastCase accepts: the level after it, and how long after
// at it would succeed if it is refused (over > 0); otherwise FastAdmit(at, level) is the bucket
// that follows it.
func (b LeakyBucket) FastTake(at, cost int64) (level, over int64) {
	p := b.P
	// The leak is at − Last (exact in uint64), capped at the level; the result is at most
	// 2·full: it fits, see NewBucket.
	level = b.Level - int64(min(uint64(at)-uint64(b.Last), uint64(b.Level))) + cost*p.Rate.P
	return level, level - p.full
}

// FastAdmit returns b after a debit at at that FastTake admitted, at level.
func (b LeakyBucket) FastAdmit(at, level int64) LeakyBucket {
	b.Level, b.Last = level, at
	return b
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
