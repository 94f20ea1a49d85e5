package memory

import (
	"math"
	"sync"
	"time"

	"github.com/numerus-closus/numerus/typed"
)

// entry is one subject below full, or full for less than the grace. Its hash and key never
// change; its lock guards the rest but pos, which the shard's lock guards.
//
// A check reads the first 32 bytes (the key's header, the policy, dead) and writes the next 32
// (the lock, and the first three words of the state, all that GCRA, token and leaky buckets,
// finite buckets and fixed windows use). Entries take 160 bytes, so each starts on a cache line
// or halfway into one: either way the bytes a check writes lie in one line, and the bytes it
// reads in that line or the one before. Checks of one subject from two processors thus move
// one line between them, and checks of the next entry touch none of it.
type entry struct {
	key    string
	policy typed.Policy // the policy the state was written under
	dead   bool         // dropped: a check that finds it asks the shard again
	pos    int32        // index in the shard's entries
	mu     sync.Mutex
	state  typed.State
	hash   uint64
}

// is reports whether e is the live entry of key. The caller holds e.mu.
func (e *entry) is(k *key) bool { return !e.dead && k.matches(e.key) }

// debit takes cost tokens under p at at, all or nothing, from the entry's state carried over to p
// if it was written under another policy. The caller holds e.mu.
func (e *entry) debit(p typed.Policy, at, cost int64) (typed.Outcome, bool) {
	e.adopt(p)
	if e.policy == p {
		return p.DebitIn(&e.state, at, cost)
	}
	state := e.continued(p, at)
	o, ok := p.DebitIn(&state, at, cost)
	e.keep(p, state, o, ok, at)
	return o, ok
}

// peek is PeekIn under p on the entry's state, carried over to p if it was written under another
// policy. The caller holds e.mu.
func (e *entry) peek(p typed.Policy, at int64) (typed.Outcome, bool) {
	e.adopt(p)
	if e.policy == p {
		return p.PeekIn(&e.state, at)
	}
	state := e.continued(p, at)
	o, ok := p.PeekIn(&state, at)
	e.keep(p, state, o, false, at)
	return o, ok
}

// adopt makes p the entry's policy if the state's decides like it: the same policy compiled apart
// (two limiters of one text), which is no change at all, so the state stands as it is rather
// than being carried over (which starts a full subject afresh, unlike the grace). The caller
// holds e.mu.
func (e *entry) adopt(p typed.Policy) {
	if e.policy != p && e.policy.DecidesLike(p) {
		e.policy = p
	}
}

// keep makes state, carried over to p and then debited (admitted) or not, the entry's. A
// refusal or a Peek takes no token, but the carried state is kept all the same: the old policy
// must not go on refilling a subject seen under the new one (drained under 20/min and refused
// under 1/h, it would be full again under the old one a minute later, and start afresh under the
// new). Unless the carried state is full: kept, it could be dropped, or carried back to the old
// policy as full, and start afresh there, where it was not full; the old state, left as it is,
// carries over to p as full again at any later check. The caller holds e.mu.
func (e *entry) keep(p typed.Policy, state typed.State, o typed.Outcome, admitted bool, at int64) {
	if admitted || o.Full > at {
		e.policy, e.state = p, state
	}
}

// continued returns the entry's state under p: itself if it was written under p; fresh if it is
// full (as if it had been dropped, which it may have been); else as typed.Policy.Continue says.
func (e *entry) continued(p typed.Policy, at int64) typed.State {
	switch {
	case e.policy == p:
		return e.state
	case e.full(at):
		return p.Fresh()
	}
	return p.Continue(e.policy, e.state, time.Unix(0, at))
}

// full reports whether the entry's subject is back to full at at, so that dropping it changes no
// decision at at or later.
func (e *entry) full(at int64) bool {
	o, _ := e.policy.PeekIn(&e.state, at)
	return o.Full <= at
}

// idle reports whether the entry's subject has been full for grace or more at at: whether it
// was full already at at − grace (an instant before its latest check counts as that check's,
// when the subject was not full).
func (e *entry) idle(at, grace int64) bool {
	if at < math.MinInt64+grace {
		return e.full(math.MinInt64)
	}
	return e.full(at - grace)
}
