package memory

import (
	"sync"
	"time"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/typed"
)

// handChecks is how many entries each new entry checks under its shard's clock hand: two, so
// entries back to full are dropped faster than new ones arrive whenever at least half of those
// checked are full.
const handChecks = 2

// shard holds the entries of the keys that hash to it: a map from key to index in a dense slice,
// which the clock hand walks.
type shard struct {
	mu      sync.Mutex
	m       map[string]int32
	entries []entry
	hand    int
	_       [64]byte // keeps shards on separate cache lines
}

// entry is one subject below full, or full for less than the grace: its key (shared with the
// map), the policy its state was written under, and the state.
type entry struct {
	key    string
	policy typed.Policy
	state  typed.State
}

func (sh *shard) acquire(r keyed.Request, at time.Time, grace time.Duration) keyed.Decision {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	i, ok := sh.m[string(r.Key)]
	if !ok {
		next, d := keyed.Debit(r.Policy, r.Policy.Fresh(), at, r.Cost)
		if d.Allowed {
			sh.sweep(at, grace, handChecks)
			sh.insert(string(r.Key), entry{policy: r.Policy, state: next})
		}
		return d
	}
	e := &sh.entries[i]
	if e.policy != r.Policy {
		next, d := keyed.Debit(r.Policy, e.continued(r.Policy, at), at, r.Cost)
		if d.Allowed {
			e.policy, e.state = r.Policy, next
		}
		return d
	}
	return keyed.DebitIn(r.Policy, &e.state, at, r.Cost)
}

func (sh *shard) peek(r keyed.Request, at time.Time, grace time.Duration) keyed.Decision {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	i, ok := sh.m[string(r.Key)]
	if !ok {
		return keyed.Inspect(r.Policy, r.Policy.Fresh(), at)
	}
	e := &sh.entries[i]
	if e.idle(at, grace) {
		sh.remove(int(i))
		return keyed.Inspect(r.Policy, r.Policy.Fresh(), at)
	}
	return keyed.Inspect(r.Policy, e.continued(r.Policy, at), at)
}

func (sh *shard) reset(key []byte) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if i, ok := sh.m[string(key)]; ok {
		sh.remove(int(i))
	}
}

func (sh *shard) len() int {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return len(sh.entries)
}

// continued returns the entry's state under p: itself if it was written under p; fresh if it is
// full (as if it had been dropped, which it may have been); else as typed.Policy.Continue says.
func (e *entry) continued(p typed.Policy, at time.Time) typed.State {
	switch {
	case e.policy == p:
		return e.state
	case e.full(at):
		return p.Fresh()
	}
	return p.Continue(e.policy, e.state, at)
}

// full reports whether the entry's subject is back to full at at, so that dropping it changes no
// decision at at or later.
func (e *entry) full(at time.Time) bool {
	t, ok := e.policy.Status(e.state, at).Full.Time()
	return ok && !t.After(at)
}

// idle reports whether the entry's subject has been full for grace or more at at: whether it
// was full already at at − grace (an instant before its latest check counts as that check's,
// when the subject was not full).
func (e *entry) idle(at time.Time, grace time.Duration) bool { return e.full(at.Add(-grace)) }

func (sh *shard) insert(key string, e entry) {
	e.key = key
	sh.m[key] = int32(len(sh.entries))
	sh.entries = append(sh.entries, e)
}

// remove drops entry i, moving the last entry into its place.
func (sh *shard) remove(i int) {
	last := len(sh.entries) - 1
	delete(sh.m, sh.entries[i].key)
	if i != last {
		sh.entries[i] = sh.entries[last]
		sh.m[sh.entries[i].key] = int32(i)
	}
	sh.entries[last] = entry{}
	sh.entries = sh.entries[:last]
}

// sweep checks up to n entries from the hand on, drops those full for grace or more at at, and
// returns how many it dropped. The caller holds the lock.
func (sh *shard) sweep(at time.Time, grace time.Duration, n int) int {
	dropped := 0
	for range min(n, len(sh.entries)) {
		if sh.hand >= len(sh.entries) {
			sh.hand = 0
		}
		if sh.entries[sh.hand].idle(at, grace) {
			sh.remove(sh.hand) // the last entry moves here: check it next
			dropped++
			continue
		}
		sh.hand++
	}
	return dropped
}
