package numerus

import "github.com/numerus-closus/numerus/internal/kernel"

// LeakyBucket returns a leaky bucket used as a meter: it holds capacity tokens, starts empty and
// drains at leak; a debit that would overflow it is refused. It decides exactly like
// TokenBucket(capacity, leak).
//
// It returns an error matching ErrInvalidArgument when capacity or leak is not positive, or when
// draining capacity tokens would take longer than about 292 years divided by the rate's count in
// lowest terms.
func LeakyBucket(capacity int64, leak Rate) (Limiter, error) {
	p, err := bucketPolicy(leak, capacity)
	if err != nil {
		return nil, err
	}
	return newSingle(p.FreshLeaky()), nil
}

func bucketPolicy(rate Rate, capacity int64) (*kernel.BucketPolicy, error) {
	r, inv := rate.kernel()
	if inv != nil {
		return nil, invalid(inv)
	}
	p, inv := kernel.BucketOf(r, capacity)
	return p, invalid(inv)
}
