package kernel

import "math/bits"

// BucketPolicy is a validated policy for the token and leaky buckets: Capacity tokens, refilled
// (or leaked) at Rate. Amounts are kept scaled by Rate.P, so one token is P units and one
// nanosecond refills N units: the arithmetic is exact for every rate.
type BucketPolicy struct {
	Rate     Rate
	Capacity int64
	full     int64 // Capacity·P
	below    int64 // debits at instants below it take the fast path; MinInstant if none can
}

// NewBucket returns the policy; the caller has checked rate.FitsBurst(capacity) and capacity ≥ 1.
func NewBucket(rate Rate, capacity int64) *BucketPolicy {
	p := &BucketPolicy{Rate: rate, Capacity: capacity, full: capacity * rate.P, below: MinInstant}
	if rate.N == 1 && p.full <= MaxInstant/2 { // one unit a nanosecond: the flow is the time elapsed
		p.below = MaxInstant - p.full + 1 // so that an answer, at most full after at, fits
	}
	return p
}

// Full is the capacity in scaled units.
func (p *BucketPolicy) Full() int64 { return p.full }

// flow returns how many scaled units elapse from last to at, capped at limit.
func (p *BucketPolicy) flow(last, at, limit int64) int64 {
	hi, lo := bits.Mul64(diff(last, at), uint64(p.Rate.N))
	if hi > 0 || lo >= uint64(limit) {
		return limit
	}
	return int64(lo)
}

// TokenBucket holds Tokens scaled units at Last; it refills smoothly and starts full.
type TokenBucket struct {
	P      *BucketPolicy
	Tokens int64
	Last   int64
}

// FreshTokens returns a full token bucket under p.
func (p *BucketPolicy) FreshTokens() TokenBucket {
	return TokenBucket{P: p, Tokens: p.full, Last: MinInstant}
}

func (b TokenBucket) tokensAt(at int64) int64 {
	return b.Tokens + b.P.flow(b.Last, at, b.P.full-b.Tokens)
}

// Debit takes cost tokens at at.
func (b TokenBucket) Debit(at, cost int64) (TokenBucket, int64, bool) {
	if b.P != nil && b.FastCase(at, cost) {
		left, over := b.FastTake(at, cost)
		if over > 0 {
			return b, at + over, false
		}
		return b.FastAdmit(at, left), at, true
	}
	return b.debit(at, cost)
}

// FastCase reports whether a debit of cost at at is Debit's common case, which FastTake and
// FastAdmit decide, small enough to be inlined (see GCRA.FastCase): one unit refilled a nanosecond
// (N = 1), an instant not before Last and below the policy's edge, a cost the bucket can hold.
// b must have a policy.
func (b TokenBucket) FastCase(at, cost int64) bool {
	p := b.P
	return at >= b.Last && at < p.below && uint64(cost-1) < uint64(p.Capacity)
}

// FastTake is the arithmetic of a debit FastCase accepts: the tokens left after it, and how long
// after at it would succeed if it is refused (over > 0); otherwise FastAdmit(at, left) is the
// bucket that follows it.
func (b TokenBucket) FastTake(at, cost int64) (left, over int64) {
	p := b.P
	// The refill is at − Last (exact in uint64), capped at the room left.
	left = b.Tokens + int64(min(uint64(at)-uint64(b.Last), uint64(p.full-b.Tokens))) - cost*p.Rate.P
	return left, -left
}

// FastAdmit returns b after a debit at at that FastTake admitted, leaving left.
func (b TokenBucket) FastAdmit(at, left int64) TokenBucket {
	b.Tokens, b.Last = left, at
	return b
}

// debit is Debit for every case.
func (b TokenBucket) debit(at, cost int64) (TokenBucket, int64, bool) {
	CheckCost(cost)
	p := b.P
	if p == nil || cost > p.Capacity {
		return b, Never, false
	}
	at = max(at, b.Last)
	have, want := b.tokensAt(at), cost*p.Rate.P
	if have >= want {
		return TokenBucket{P: p, Tokens: have - want, Last: at}, at, true
	}
	return b, Until(at, ceilDiv(want-have, p.Rate.N)), false
}

// Status reports the whole tokens held and when the bucket is full again.
func (b TokenBucket) Status(at int64) Status {
	p := b.P
	if p == nil {
		return Status{Full: Never}
	}
	at = max(at, b.Last)
	have := b.tokensAt(at)
	return Status{Limit: p.Capacity, Remaining: have / p.Rate.P,
		Full: Until(at, ceilDiv(p.full-have, p.Rate.N))}
}

// String names the policy.
func (b TokenBucket) String() string {
	if b.P == nil {
		return "token (zero)"
	}
	return "token " + b.P.Rate.String() + " burst " + itoa(b.P.Capacity)
}
