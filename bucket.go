package numerus

import "github.com/numerus-closus/numerus/internal/kernel"

// FiniteBucket returns a bucket of n tokens that never refills: once it has given n tokens it
// answers Never. A debit of more than is left is Never too, since nothing comes back.
//
// It returns an error matching ErrInvalidArgument when n is not positive.
func FiniteBucket(n int64) (Limiter, error) { return build(kernel.FiniteOf(n)) }
