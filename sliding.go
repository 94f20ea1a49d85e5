package numerus

import (
	"time"

	"github.com/numerus-closus/numerus/internal/kernel"
)

// SlidingWindow returns the sliding window log: at most n tokens in any span of the given length.
// An admission at t counts until t + window, exclusive. The log keeps one entry per distinct
// instant (at most n), shares them between successive values, and debits in O(1) amortized time:
// appending reuses the storage while nobody else appended after the same value, and copies the live
// entries otherwise, so an old value debited again still answers correctly.
//
// It returns an error matching ErrInvalidArgument when window or n is not positive.
func SlidingWindow(window time.Duration, n int64) (Limiter, error) {
	p, inv := kernel.LogOf(int64(window), n, 1)
	if inv != nil {
		return nil, invalid(inv)
	}
	return newSingle(p.FreshLog()), nil
}

// SlidingWindowBucketed returns a sliding window of the given length split into windows equal
// sub-windows aligned on the Unix epoch: at most n tokens in any windows consecutive sub-windows.
// A token counts from the start of its sub-window for one window's length, so a span of length
// window may hold up to n plus what the sub-window it starts in holds. With one sub-window it is a
// fixed window aligned on the epoch. Memory is O(windows). The sub-window holding the first
// instant of the range (late 1677) starts there, cut short, so its tokens count for one window
// from that instant: a little longer than the rule says, never shorter.
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
// count at elapsed e into a window estimated as prev·(window−e)/window + current and compared in
// exact integer arithmetic. It admits at most n tokens in each fixed window and at most 2n in any
// span of length window, with two counters of memory.
//
// It returns an error matching ErrInvalidArgument when window or n is not positive, or when start
// is not strictly inside the range of instants (see Time in the package doc): it must lie between
// the first instant of the range (late 1677) and the last (early 2262), which stand for every
// instant beyond them.
func SlidingWindowCount(window time.Duration, n int64, start time.Time) (Limiter, error) {
	p, err := windowPolicy(window, n, start)
	if err != nil {
		return nil, err
	}
	return newSingle(p.FreshCounter()), nil
}
