package numerus

import (
	"iter"
	"time"

	"github.com/numerus-closus/numerus/internal/limits"
)

// Admissions returns the instants, from start on, at which back-to-back debits of cost would be
// admitted, each with the limiter that follows. It is pure: nothing sleeps, and l is not changed.
// It ends when the limiter says Never, or when a faulty limiter answers an instant not after the
// one asked or refuses 64 times in a row.
func Admissions(l Limiter, start time.Time, cost int64) iter.Seq2[time.Time, Limiter] {
	return func(yield func(time.Time, Limiter) bool) {
		at, refusals := start, 0
		for {
			next, from, ok := l.DebitN(at, cost)
			if ok {
				if !yield(at, next) {
					return
				}
				l, refusals = next, 0
				continue
			}
			t, finite := from.Time()
			if refusals++; !finite || !t.After(at) || refusals == limits.Search {
				return
			}
			at = t
		}
	}
}
