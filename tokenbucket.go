package numerus

// TokenBucket returns a bucket of capacity tokens that starts full and refills smoothly at
// refill; a debit takes tokens out. It decides exactly like GCRA(refill, capacity).
//
// It returns an error matching ErrInvalidArgument when capacity or refill is not positive, or when
// refilling capacity tokens would take longer than about 292 years divided by the rate's count in
// lowest terms.
func TokenBucket(capacity int64, refill Rate) (Limiter, error) {
	p, err := bucketPolicy(refill, capacity)
	if err != nil {
		return nil, err
	}
	return newSingle(p.FreshTokens()), nil
}
