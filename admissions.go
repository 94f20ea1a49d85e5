package numerus

import (
	"iter"
	"time"

	"github.com/numerus-closus/numerus/internal/limits"
)

// Admissions returns the instants, from start on, at which back-to-back debits of cost would be
// admitted, each with the limiter that follows it. It ends when the limiter says Never, and when
// it answers an instant not after the one asked or refuses 64 times in a row (the rounds an And
// searches), as a schedule.Gate gives up too: no limiter that obeys the laws of package
// numerustest does either (its answers are tight, so at most one refusal comes before each
// admission), and a faulty one cannot make it loop. It is pure: nothing sleeps, and l is not
// changed. The instant after a refusal is the limiter's own answer, so the sequence is exact: the
// n-th instant is when the n-th of a batch of debits goes through.
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
