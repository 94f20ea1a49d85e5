// Package model builds the reference that keyed stores are checked against: for each subject,
// the numerus limiter of the same policy, built with the root package's constructors (not with
// package typed, which the stores run).
package model

import (
	"fmt"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/typed"
)

var epoch = time.Unix(0, 0)

// Core returns the numerus limiter that sp describes. Windows align on the Unix epoch, as in
// package typed.
func Core(sp typed.Spec) (numerus.Limiter, error) {
	switch sp.Algo {
	case typed.AlgoAnd, typed.AlgoOr:
		kids := make([]numerus.Limiter, len(sp.Of))
		for i, c := range sp.Of {
			k, err := Core(c)
			if err != nil {
				return nil, err
			}
			kids[i] = k
		}
		if sp.Algo == typed.AlgoAnd {
			return numerus.AllOf(kids...), nil
		}
		return numerus.AnyOf(kids...), nil
	}
	return leaf(sp)
}

func leaf(sp typed.Spec) (numerus.Limiter, error) {
	rate, burst := numerus.Per(sp.Count, sp.Period), sp.Burst
	if burst == 0 {
		burst = 1 // typed.Spec's default
	}
	switch sp.Algo {
	case typed.AlgoGCRA:
		return numerus.GCRA(rate, burst)
	case typed.AlgoToken:
		return numerus.TokenBucket(burst, rate)
	case typed.AlgoLeaky:
		return numerus.LeakyBucket(burst, rate)
	case typed.AlgoFinite:
		return numerus.FiniteBucket(sp.Count)
	case typed.AlgoWindow:
		return numerus.FixedWindow(sp.Period, sp.Count, epoch)
	case typed.AlgoCount:
		return numerus.SlidingWindowCount(sp.Period, sp.Count, epoch)
	case typed.AlgoSliding:
		return numerus.SlidingWindow(sp.Period, sp.Count)
	case typed.AlgoBuckets:
		return numerus.SlidingWindowBucketed(sp.Period, int(sp.In), sp.Count)
	}
	return nil, fmt.Errorf("model: unknown algorithm %q", sp.Algo)
}

// Decision is what a keyed store should answer, from the core limiter's own words.
type Decision struct {
	Allowed    bool
	Remaining  int64
	Limit      int64
	RetryAfter numerus.NextDebitable // when the check would be admitted (at itself if it was)
	Full       numerus.NextDebitable // when the subject is full again
}

// Subjects is the reference of a keyed limiter: a core limiter per subject, fresh until first
// admitted. The zero Subjects is not usable: use New.
type Subjects struct {
	fresh numerus.Limiter
	m     map[string]numerus.Limiter
}

// New returns the reference of a limiter of sp with no subject seen.
func New(sp typed.Spec) (*Subjects, error) {
	l, err := Core(sp)
	if err != nil {
		return nil, err
	}
	return &Subjects{fresh: l, m: map[string]numerus.Limiter{}}, nil
}

func (s *Subjects) get(subject string) numerus.Limiter {
	if l, ok := s.m[subject]; ok {
		return l
	}
	return s.fresh
}

// Acquire debits cost from subject at at and returns what the store should answer.
func (s *Subjects) Acquire(subject string, at time.Time, cost int64) Decision {
	next, from, ok := s.get(subject).DebitN(at, cost)
	if ok {
		s.m[subject] = next
	}
	st := next.Status(at)
	return Decision{Allowed: ok, Remaining: st.Remaining, Limit: st.Limit, RetryAfter: from, Full: st.Full}
}

// Peek returns what the store should answer to a Peek of subject at at.
func (s *Subjects) Peek(subject string, at time.Time) Decision {
	l := s.get(subject)
	_, from, ok := l.DebitN(at, 1)
	st := l.Status(at)
	return Decision{Allowed: ok, Remaining: st.Remaining, Limit: st.Limit, RetryAfter: from, Full: st.Full}
}

// Reset forgets subject.
func (s *Subjects) Reset(subject string) { delete(s.m, subject) }
