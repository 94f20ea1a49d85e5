package typed

import "github.com/numerus-closus/numerus/internal/kernel"

// This file lets a store keep a State in fewer words than a State holds: the words its policy
// uses, when they all lie inline.

// PackedWords returns how many words the States of p use, and whether they all lie inline, so
// that [State.Pack] and [State.Unpack] carry a State of p whole: true for every policy without a
// sliding log whose leaves take at most 12 words (gcra 3, token and leaky 2, finite 1, window 3,
// sliding counter 4). The zero Policy uses none.
func (p Policy) PackedWords() (n int, ok bool) {
	if p.c == nil {
		return 0, true
	}
	return p.c.words, !p.c.ext
}

// Pack copies the first len(w) inline words of s into w (at most 12).
func (s *State) Pack(w []int64) { copy(w, s.w[:]) }

// Unpack makes s the State whose first inline words are w (at most 12) and the others zero,
// with no extra block: for a policy whose PackedWords are len(w) or fewer, the State that Pack
// copied w from.
func (s *State) Unpack(w []int64) {
	*s = State{}
	copy(s.w[:], w)
}

// DebitPacked is DebitIn on the State whose packed words are w (see Pack), kept in w: admitted,
// w holds the next state's words. p's PackedWords must be len(w) or fewer. A GCRA, the commonest
// policy, debits the words where they lie; others unpack them, debit and pack them back.
func (p Policy) DebitPacked(w []int64, at, cost int64) (Outcome, bool) {
	if c := p.c; c != nil && c.gcra != nil && len(w) >= 3 {
		kernel.CheckCost(cost)
		at = min(at, kernel.MaxInstant)
		k, from, ok, st, next := loadGCRA(c.gcra, w[:3]).DebitStatus(at, cost)
		if ok {
			putGCRA(w[:3], k)
		}
		return outcomeOf(st, at, from, ok, next), ok
	}
	var s State
	s.Unpack(w)
	o, ok := p.DebitIn(&s, at, cost)
	if ok {
		s.Pack(w)
	}
	return o, ok
}
