package memory

import (
	"math"
	"time"

	"github.com/numerus-closus/numerus/internal/inplace"
	"github.com/numerus-closus/numerus/typed"
)

// slot is one subject's entry, held in its shard's table itself, so that a check reads one cache
// line: 64 bytes, its policy, its state, its key and the high half of its hash. The zero slot is
// empty.
//
// The state lies in w when its policy's fits there (packs: every single algorithm but the
// sliding log and the sliding counter), else in more. The subject lies in sub when it is no
// longer than inlineSubject bytes, else in more; the namespace is its number among the store's
// names (see names), or, past them, in more. more is nil for most subjects.
type slot struct {
	policy typed.Policy        // the policy the state was written under; the zero Policy when empty
	w      [packedWords]int64  // the state, when policy packs
	more   *more               // what does not fit the slot, or nil
	hash   uint32              // the high half of the key's hash
	name   uint16              // the namespace's number in the store's names, or unnamed
	n      uint8               // the subject's length when it lies in sub, else long
	sub    [inlineSubject]byte // the subject, when it fits
}

// more holds what does not fit a slot.
type more struct {
	state   typed.State // when the slot's policy does not pack
	subject string      // when the slot's n is long
	prefix  string      // when the slot's name is unnamed
}

const (
	packedWords   = 3  // the state words a slot holds: a GCRA's, a window's
	inlineSubject = 17 // the longest subject a slot holds: IPv4 addresses, most account numbers
	long          = math.MaxUint8
)

// in returns p's in-place operations (see package inplace).
func in(p typed.Policy) inplace.Engine[typed.State] { return p.InPlace(inplace.Key{}) }

// packs reports whether the states of e's policy fit a slot's words. It takes the engine, not
// the policy, so that it stays small enough to inline.
func packs(e inplace.Engine[typed.State]) bool {
	n, ok := e.PackedWords()
	return ok && n <= packedWords
}

func (sl *slot) empty() bool { return sl.policy == typed.Policy{} }

// fill makes the empty slot the entry of key k, whose hash's high half is h, holding state under
// p. It copies the key: never the caller's memory, which may be reused.
func (sl *slot) fill(h uint32, k *key, p typed.Policy, state *typed.State) {
	sl.hash, sl.name = h, k.name
	if k.name == unnamed {
		sl.more = &more{prefix: k.namespace()}
	}
	if n := k.subjectLen(); n <= inlineSubject {
		sl.n = uint8(n)
		k.copySubject(sl.sub[:n])
	} else {
		sl.n = long
		if sl.more == nil {
			sl.more = &more{}
		}
		sl.more.subject = k.subjectString()
	}
	sl.set(p, state)
}

// state returns the slot's state.
func (sl *slot) state() typed.State {
	if e := in(sl.policy); packs(e) {
		var s typed.State
		e.Unpack(&s, sl.w[:])
		return s
	}
	return sl.more.state
}

// set makes state, under p, the slot's.
func (sl *slot) set(p typed.Policy, state *typed.State) {
	sl.policy = p
	if e := in(p); packs(e) {
		e.Pack(state, sl.w[:])
		if sl.more != nil {
			sl.more.state = typed.State{}
		}
		return
	}
	if sl.more == nil {
		sl.more = &more{}
	}
	sl.more.state = *state
}

// debit takes cost tokens under p at at, all or nothing, from the slot's state carried over to p
// if it was written under another policy. Under a policy whose state does not pack, where
// DebitIn copies the state's extra block (two allocations), a check of one token peeks first,
// which allocates nothing, and is refused from it when it refuses: a subject over its limit
// costs no allocation under any policy.
func (sl *slot) debit(p typed.Policy, at, cost int64) (inplace.Outcome, bool) {
	e := in(p)
	if sl.adopt(p) {
		if !packs(e) {
			if cost == 1 {
				if o, ok := e.PeekIn(&sl.more.state, at); !ok {
					return o, false
				}
			}
			return e.DebitIn(&sl.more.state, at, cost)
		}
		return e.DebitPacked(sl.w[:], at, cost)
	}
	state := sl.continued(p, at)
	o, ok := e.DebitIn(&state, at, cost)
	if ok || cost <= o.Limit { // a cost above the capacity is an invalid request: it carries nothing
		sl.keep(p, &state, o, ok, at)
	}
	return o, ok
}

// peek is PeekIn under p on the slot's state, carried over to p if it was written under another
// policy.
func (sl *slot) peek(p typed.Policy, at int64) (inplace.Outcome, bool) {
	if sl.adopt(p) {
		s := sl.state()
		return in(p).PeekIn(&s, at)
	}
	state := sl.continued(p, at)
	o, ok := in(p).PeekIn(&state, at)
	sl.keep(p, &state, o, false, at)
	return o, ok
}

// adopt makes p the slot's policy if the state's decides like it: the same policy compiled apart
// (two limiters of one text), which is no change at all, so the state stands as it is rather
// than being carried over (which starts a full subject afresh, unlike the grace). It reports
// whether p is the slot's policy now.
func (sl *slot) adopt(p typed.Policy) bool {
	if sl.policy != p && sl.policy.DecidesLike(p) {
		state := sl.state()
		sl.set(p, &state)
	}
	return sl.policy == p
}

// keep makes state, carried over to p and then debited (admitted) or not, the slot's. A refusal
// or a Peek takes no token, but the carried state is kept all the same: the old policy must not
// go on refilling a subject seen under the new one (drained under 20/min and refused under 1/h,
// it would be full again under the old one a minute later, and start afresh under the new).
// Unless the carried state is full: kept, it could be dropped, or carried back to the old policy
// as full, and start afresh there, where it was not full; the old state, left as it is, carries
// over to p as full again at any later check.
func (sl *slot) keep(p typed.Policy, state *typed.State, o inplace.Outcome, admitted bool, at int64) {
	if admitted || o.Full > at {
		sl.set(p, state)
	}
}

// continued returns the slot's state under p: fresh if it is full (as if it had been dropped,
// which it may have been); else as typed.Policy.Continue says.
func (sl *slot) continued(p typed.Policy, at int64) typed.State {
	if _, full := sl.full(at); full {
		return p.Fresh()
	}
	return p.Continue(sl.policy, sl.state(), time.Unix(0, at))
}

// full returns the instant the slot's subject is full again, and whether that is at at or
// before, so that dropping it changes no decision at at or later.
func (sl *slot) full(at int64) (int64, bool) {
	s := sl.state()
	o, _ := in(sl.policy).PeekIn(&s, at)
	return o.Full, o.Full <= at
}

// idle reports whether the slot's subject has been full for grace or more at at: whether it was
// full already at at − grace (an instant before its latest check counts as that check's, when
// the subject was not full), and the instant it was full from.
func (sl *slot) idle(at, grace int64) (int64, bool) {
	if at < math.MinInt64+grace {
		return sl.full(math.MinInt64)
	}
	return sl.full(at - grace)
}
