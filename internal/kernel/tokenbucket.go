package kernel

import "math/bits"

// BucketPolicy is a validated policy for the token and leaky buckets: Capacity tokens, refilled
// (or leaked) at Rate. Amounts are kept scaled by Rate.P, so one token is P units and one
// nanosecond refills N units: the arithmetic is exact for every rate.
type BucketPolicy struct {
	Rate     Rate
	Capacity int64
	full     int64 // Capacity·P
}

// NewBucket returns the policy; the caller has checked rate.FitsBurst(capacity) and capacity ≥ 1.
func NewBucket(rate Rate, capacity int64) *BucketPolicy {
	return &BucketPolicy{Rate: rate, Capacity: capacity, full: capacity * rate.P}
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
