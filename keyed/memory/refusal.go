package memory

import (
	"sync/atomic"

	"github.com/numerus-closus/numerus/typed"
)

// refusal is an entry's latest refusal of one token under its policy, kept so that the checks of
// one token that follow it under that policy, until its Retry, are refused without the entry's
// lock and write no memory: a subject over its limit costs its callers a few loads a check, and a
// hot one is refused by every core at once, none taking the line from another.
//
// It stands on a law of every policy (typed's TestRefusalHolds): while a State is unchanged, a
// one-token debit refused at one instant is refused at every instant before its Retry, earlier
// ones included, with the same Outcome. So the kept Outcome holds until the entry's state or
// policy changes or the entry is dropped, and each of those forgets it under the entry's lock,
// before releasing it (a check that reads the refusal before that is ordered before the change).
// A policy adopted as the same one compiled apart (entry.adopt) changes no decision, and the
// refusal, kept under the other, stands: it answers checks under either.
//
// It is a sequence lock of atomic words: the lock holder makes seq odd, rewrites the words and
// makes seq even again; a reader that finds seq even and unchanged around its loads read one
// refusal whole. Only keeping and forgetting a refusal writes it, and checks of an admitting
// subject do neither: they find the entry's refusing flag false. The refusal names its policy
// but not its key: the reader has matched the entry's key (subject and namespace) first.
type refusal struct {
	seq    atomic.Uint64
	policy atomic.Value // typed.Policy: the policy refused under, the zero Policy for none
	limit  atomic.Int64
	retry  atomic.Int64 // also the Outcome's Next: a refusal of one token leaves none
	full   atomic.Int64
}

// holds returns the refusal if it answers a check of one token under p at at, of the entry's own
// key: a refusal under p, or under a policy that decides like p (the same text compiled apart),
// whose Retry is later than at. A check loads the entry's refusing flag from the line of its key,
// which it reads anyway, and calls holds only if it is set.
func (e *entry) holds(p typed.Policy, at int64) (typed.Outcome, bool) {
	r := &e.refusal
	seq := r.seq.Load()
	kept, _ := r.policy.Load().(typed.Policy)
	if seq&1 != 0 || kept == (typed.Policy{}) || kept != p && !kept.DecidesLike(p) {
		return typed.Outcome{}, false
	}
	o := typed.Outcome{Limit: r.limit.Load(), Retry: r.retry.Load(), Full: r.full.Load(), Binds: int(e.binds.Load())}
	o.Next = o.Retry
	return o, at < o.Retry && r.seq.Load() == seq
}

// settle unlocks e after a check's debit under p, the entry's policy, that changes what e keeps
// of refusals: an admission forgets the refusal kept, a refusal of one token is kept. It is out
// of line, so that the common check, an admission of an entry that keeps none, passes its Outcome
// on in registers rather than spilling it around a call it rarely makes. The caller holds e.mu.
func (e *entry) settle(p typed.Policy, o typed.Outcome, admitted bool, at int64) (typed.Outcome, bool, int64) {
	if admitted {
		e.forget()
	} else {
		e.refuse(p, o)
	}
	e.mu.Unlock()
	return o, admitted, at
}

// refuse keeps o, a refusal of one token under p, the entry's policy. The caller holds e.mu.
func (e *entry) refuse(p typed.Policy, o typed.Outcome) {
	r := &e.refusal
	e.refusing.Store(true)
	r.seq.Add(1)
	r.policy.Store(p)
	r.limit.Store(o.Limit)
	r.retry.Store(o.Retry)
	r.full.Store(o.Full)
	e.binds.Store(int32(o.Binds))
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
	r.policy.Store(typed.Policy{})
	r.seq.Add(1)
	e.refusing.Store(false)
}
