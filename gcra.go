package numerus

import "github.com/numerus-closus/numerus/internal/kernel"

// GCRA returns a limiter running the generic cell rate algorithm: burst tokens at once, then one
// every rate interval, tracked as a single theoretical arrival time. It decides exactly like
// TokenBucket(burst, rate) and LeakyBucket(burst, rate); it is the smallest state of the three.
// A fresh GCRA admits burst tokens at its first instant.
//
// It returns an error matching ErrInvalidArgument when rate or burst is not positive, or when
// burst intervals exceed about 292 years.
func GCRA(rate Rate, burst int64) (Limiter, error) {
	r, inv := rate.kernel()
	if inv != nil {
		return nil, invalid(inv)
	}
	p, inv := kernel.GCRAOf(r, burst)
	if inv != nil {
		return nil, invalid(inv)
	}
	return newSingle(p.Fresh()), nil
}
