package numerus

// TokenBucket returns a bucket of capacity tokens that starts full and refills smoothly at refill
// (never beyond capacity); a debit takes tokens out. It decides exactly like GCRA(refill, capacity):
// in any span of the refill's period it admits at most capacity + N - 1, for a refill of N per
// period.
//
// It returns an error matching ErrInvalidArgument when capacity or refill is not positive, or when
// refilling capacity tokens would take longer than the exact range (about 292 years divided by the
// rate's count in lowest terms; see Time in the package doc).
func TokenBucket(capacity int64, refill Rate) (Limiter, error) {
	p, err := bucketPolicy(refill, capacity)
	if err != nil {
		return nil, err
	}
	return newSingle(p.FreshTokens()), nil
}
