package memory

import (
	"sync/atomic"

	"github.com/numerus-closus/numerus/typed"
)

// refusal is an entry's latest refusal of one token to a bound check, kept so that the bound
// checks of one token that follow it, until its Retry, are refused without the entry's lock and
// write no memory: a subject over its limit costs its callers a few loads a check, and a hot one
// is refused by every core at once, none taking the line from another.
//
// It stands on a law of every policy (typed's TestRefusalHolds): while a State is unchanged, a
// one-token debit refused at one instant is refused at every instant before its Retry, earlier
// ones included, with the same Outcome. So the kept Outcome holds until the entry's state or
// policy changes or the entry is dropped, and each of those, under the entry's lock, forgets it
// first.
//
// It is a sequence lock of atomic words: the lock holder makes seq odd, rewrites the words and
// makes seq even again; a reader that finds seq even and unchanged around its loads read one
// refusal whole. Only keeping and forgetting a refusal writes it, and checks of an admitting
// subject do neither: they find the entry's refusing flag, under the lock, false.
type refusal struct {
	seq   atomic.Uint32
	by    atomic.Pointer[bound] // the bound refused; nil for none
	limit atomic.Int64
	retry atomic.Int64
	full  atomic.Int64
}

// holds returns the refusal if it answers a check of one token by b at at: a refusal of one
// token to a bound of b's namespace and policy, whose Retry is later than at. A check loads the
// entry's refusing flag first, from a line it reads anyway, and calls holds only if it is set.
func (r *refusal) holds(b *bound, at int64) (typed.Outcome, bool) {
	seq := r.seq.Load()
	by := r.by.Load()
	if seq&1 != 0 || by == nil || by != b && (by.p != b.p || by.prefix != b.prefix) {
		return typed.Outcome{}, false
	}
	o := typed.Outcome{Limit: r.limit.Load(), Retry: r.retry.Load(), Full: r.full.Load()}
	return o, at < o.Retry && r.seq.Load() == seq
}

// settle unlocks e after a check's debit that changes what e keeps of refusals: an admission
// forgets the refusal kept, a refusal of one token to a bound check (by) is kept. It is out of
// line, so that the common check, an admission of an entry that keeps none, passes its Outcome
// on in registers rather than spilling it around a call it rarely makes. The caller holds e.mu.
func (e *entry) settle(by *bound, o typed.Outcome, admitted bool, at int64) (typed.Outcome, bool, int64) {
	if admitted {
		e.forget()
	} else {
		e.refuse(by, o)
	}
	e.mu.Unlock()
	return o, admitted, at
}

// refuse keeps o, a refusal of one token to b. The caller holds e.mu.
func (e *entry) refuse(b *bound, o typed.Outcome) {
	r := &e.refusal
	e.refusing.Store(true)
	r.seq.Add(1)
	r.by.Store(b)
	r.limit.Store(o.Limit)
	r.retry.Store(o.Retry)
	r.full.Store(o.Full)
	r.seq.Add(1)
}

// unrefuse forgets the refusal kept, if any, before the entry's state or policy changes or the
// entry is dropped. The caller holds e.mu.
func (e *entry) unrefuse() {
	if e.refusing.Load() {
		e.forget()
	}
}

func (e *entry) forget() {
	r := &e.refusal
	r.seq.Add(1)
	r.by.Store(nil)
	r.seq.Add(1)
	e.refusing.Store(false)
}
