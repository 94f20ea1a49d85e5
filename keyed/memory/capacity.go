package memory

import (
	"errors"
	"sync/atomic"

	"github.com/numerus-closus/numerus/internal/inplace"
)

// ErrFull is the error of a check of a new subject that a store at its cap ([WithMaxSubjects])
// refuses: it holds as many subjects as it may, none of them dropped, as none of them is full.
// keyed.Limiter returns it as it returns any error of its store; httplimit answers it as its
// error handling says.
var ErrFull = errors.New("memory: store holds its maximum of subjects")

// WithMaxSubjects caps the store at n subjects held at once (n < 1 is no cap, the default), and
// so its memory. At the cap the store drops no subject below full: a check of a new subject that
// finds none back to full to drop returns ErrFull, counted in [Stats].Refused, unless
// [WithUntracked] says otherwise.
func WithMaxSubjects(n int) Option {
	return optionFunc(func(s *Store) { s.limit.max = int64(max(n, 0)) })
}

// WithUntracked makes a store at its cap ([WithMaxSubjects]) admit the check of a new subject
// without keeping its state, as a fresh subject's, rather than refuse it with ErrFull: the
// subject is limited by nothing until the store has room for it. Each is counted in
// [Stats].Untracked. Use it where failing open beats failing closed.
func WithUntracked() Option {
	return optionFunc(func(s *Store) { s.limit.untrack = true })
}

// Stats is what a store reports of its subjects and of its cap.
type Stats struct {
	// Subjects is the number of subjects held, as Len returns it.
	Subjects int
	// Refused is the number of checks of new subjects refused with ErrFull at the cap.
	Refused uint64
	// Untracked is the number of checks of new subjects admitted at the cap without keeping
	// their state (WithUntracked).
	Untracked uint64
}

// Stats returns the store's figures.
func (s *Store) Stats() Stats {
	return Stats{Subjects: s.Len(), Refused: s.limit.refused.Load(), Untracked: s.limit.untracked.Load()}
}

// capacity is a store's cap and its counts. held counts the subjects held only under a cap.
type capacity struct {
	max       int64 // 0 for none
	untrack   bool  // admit new subjects at the cap without keeping them
	held      atomic.Int64
	refused   atomic.Uint64
	untracked atomic.Uint64
}

// hold reserves room for one more subject, and reports whether there was any.
func (s *Store) hold() bool {
	c := &s.limit
	if c.max == 0 {
		return true
	}
	if c.held.Add(1) > c.max {
		c.held.Add(-1)
		return false
	}
	return true
}

// release gives back the room of a subject dropped.
func (s *Store) release() {
	if s.limit.max != 0 {
		s.limit.held.Add(-1)
	}
}

// atCap answers the admitted check at at of a new subject that found no room: untracked, or
// refused with ErrFull.
func (s *Store) atCap(o inplace.Outcome, at int64) (inplace.Outcome, bool, int64, error) {
	if s.limit.untrack {
		s.limit.untracked.Add(1)
		return o, true, at, nil
	}
	s.limit.refused.Add(1)
	return inplace.Outcome{}, false, at, ErrFull
}

// sweepAtCap looks for room at the cap: it moves the hands of sh, the shard of hash h, whose lock
// the caller holds, and of the shards after it whose locks are free (it waits for none, so two
// checks that look in each other's shards cannot deadlock), over fullChecks entries in all, until
// it drops one, and returns how many it dropped.
func (s *Store) sweepAtCap(sh *shard, h uint64, at int64) int {
	budget := fullChecks
	dropped := sh.sweep(s, at, budget)
	budget -= min(budget, sh.t.count)
	for i, n := int(h&s.mask), 1; dropped == 0 && budget > 0 && n < len(s.shards); n++ {
		i = (i + 1) % len(s.shards)
		if other := &s.shards[i]; other.mu.TryLock() {
			checks := min(budget, other.t.count)
			dropped += other.sweep(s, at, checks)
			budget -= max(checks, 1) // an empty shard costs its lock
			other.mu.Unlock()
		}
	}
	return dropped
}
