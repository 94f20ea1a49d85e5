package numerus

import (
	"time"

	"github.com/numerus-closus/numerus/internal/kernel"
)

// SlidingWindow returns the sliding window log: at most n tokens in any span of the given length,
// an admission at t counting until t + window, exclusive. It keeps one entry per distinct
// instant (at most n), shared between successive values; a debit is O(1) amortized.
//
// It returns an error matching ErrInvalidArgument when window or n is not positive.
func SlidingWindow(window time.Duration, n int64) (Limiter, error) {
	p, inv := kernel.LogOf(int64(window), n, 1)
	if inv != nil {
		return nil, invalid(inv)
	}
	return newSingle(p.FreshLog()), nil
}

// SlidingWindowBucketed returns a sliding window split into windows sub-windows aligned on the
// Unix epoch: at most n tokens in any windows consecutive sub-windows. A token counts from the
// start of its sub-window, so a span of length window may hold n plus what its first sub-window
// holds.
//
// It returns an error matching ErrInvalidArgument when window, windows or n is not positive, or
// when windows does not divide window evenly.
func SlidingWindowBucketed(window time.Duration, windows int, n int64) (Limiter, error) {
	p, inv := kernel.BucketsOf(int64(window), n, int64(windows))
	if inv != nil {
		return nil, invalid(inv)
	}
	return newSingle(p.FreshLog()), nil
}

// SlidingWindowCount returns the sliding window counter: fixed windows aligned on start, with the
// count at e into a window estimated as prev·(window−e)/window + current, exactly. It admits at
// most n tokens in each fixed window and at most 2n in any span of length window.
//
// It returns an error matching ErrInvalidArgument when window or n is not positive, or when start
// is not strictly between 1677 and 2262.
func SlidingWindowCount(window time.Duration, n int64, start time.Time) (Limiter, error) {
	p, err := windowPolicy(window, n, start)
	if err != nil {
		return nil, err
	}
	return newSingle(p.FreshCounter()), nil
}
