package numerus

import (
	"time"

	"github.com/numerus-closus/numerus/internal/kernel"
)

// FixedWindow returns a limiter that admits at most n tokens in each window of the given length,
// the windows aligned on start (start + k·window for every integer k, before start as well). A
// refused debit is debitable from the start of the next window.
//
// A fixed window admits up to 2n across a boundary: n at its end and n at the next window's start.
// Use SlidingWindow for a bound over every span.
//
// It returns an error matching ErrInvalidArgument when window or n is not positive, or when start
// is not strictly inside the range of instants (see Time in the package doc): it must lie between
// the first instant of the range (late 1677) and the last (early 2262), which stand for every
// instant beyond them.
func FixedWindow(window time.Duration, n int64, start time.Time) (Limiter, error) {
	p, err := windowPolicy(window, n, start)
	if err != nil {
		return nil, err
	}
	return newSingle(p.FreshWindow()), nil
}

func windowPolicy(window time.Duration, n int64, start time.Time) (*kernel.WindowPolicy, error) {
	p, inv := kernel.WindowOf(int64(window), n, instant(start))
	return p, invalid(inv)
}
