package typed

import (
	"github.com/numerus-closus/numerus/internal/inplace"
	"github.com/numerus-closus/numerus/internal/kernel"
)

// This file lets a store keep a State in fewer words than a State holds: the words its policy
// uses, when they all lie inline.

// PackedWords is inplace.Engine's: how many words the States of the policy use, and whether
// they all lie inline.
func (e engine) PackedWords() (n int, ok bool) {
	if e.c == nil {
		return 0, true
	}
	return e.c.words, !e.c.ext
}

// Pack copies the first len(w) inline words of s into w (at most 12).
func (engine) Pack(s *State, w []int64) { copy(w, s.w[:]) }

// Unpack makes s the State whose first inline words are w (at most 12) and the others zero,
// with no extra block.
func (engine) Unpack(s *State, w []int64) {
	*s = State{}
	copy(s.w[:], w)
}

// DebitPacked is inplace.Engine's: DebitIn on the State whose packed words are w, kept in w. A
// GCRA, the commonest policy, debits the words where they lie; others unpack them, debit and
// pack them back.
func (e engine) DebitPacked(w []int64, at, cost int64) (inplace.Outcome, bool) {
	if c := e.c; c != nil && c.gcra != nil && len(w) >= 3 {
		kernel.CheckCost(cost)
		at = min(at, kernel.MaxInstant)
		k, from, ok, st, next := loadGCRA(c.gcra, w[:3]).DebitStatus(at, cost)
		if ok {
			putGCRA(w[:3], k)
		}
		return outcomeOf(st, at, from, ok, next), ok
	}
	var s State
	e.Unpack(&s, w)
	o, ok := e.DebitIn(&s, at, cost)
	if ok {
		e.Pack(&s, w)
	}
	return o, ok
}
