package numerus

import (
	"time"

	"github.com/numerus-closus/numerus/internal/kernel"
)

// FixedWindow returns a limiter that admits at most n tokens in each window of the given length,
// the windows aligned on start (before start as well); a refusal is debitable from the next
// window's start. It admits up to 2n across a boundary.
//
// It returns an error matching ErrInvalidArgument when window or n is not positive, or when start
// is not strictly between 1677 and 2262.
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
