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
// What never changes comes first, then what a check writes (the lock, the state's first words),
// and the state's last words, which small policies leave alone, come last: entries lie side by
// side (160 bytes apart), and this way a check writes no cache line that holds what a check of
// the next entry reads.
type entry struct {
	hash   uint64
	key    string
	mu     sync.Mutex
	dead   bool         // dropped: a check that finds it asks the shard again
	pos    int32        // index in the shard's entries
	policy typed.Policy // the policy the state was written under
	state  typed.State
}

// is reports whether e is the live entry of key. The caller holds e.mu.
func (e *entry) is(k *key) bool { return !e.dead && k.matches(e.key) }

// debit takes cost tokens under p at at, from the entry's state carried over to p if it was
// written under another policy; it keeps the result if admitted. The caller holds e.mu.
func (e *entry) debit(p typed.Policy, at, cost int64) (typed.Outcome, bool) {
	if e.policy == p {
		return p.DebitIn(&e.state, at, cost)
	}
	state := e.continued(p, at)
	o, ok := p.DebitIn(&state, at, cost)
	if ok {
		e.policy, e.state = p, state
	}
	return o, ok
}

// peek is PeekIn under p on the entry's state. The caller holds e.mu.
func (e *entry) peek(p typed.Policy, at int64) (typed.Outcome, bool) {
	if e.policy == p {
		return p.PeekIn(&e.state, at)
	}
	state := e.continued(p, at)
	return p.PeekIn(&state, at)
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
