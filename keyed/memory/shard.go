package memory

import (
	"sync"
	"sync/atomic"

	"github.com/numerus-closus/numerus/typed"
)

// handChecks is how many entries each new entry checks under its shard's clock hand: three, so
// entries back to full are dropped faster than new ones arrive whenever at least a third of
// those checked are full. (With two, a shard that held more old entries than it got new ones in
// a wave kept some of them through it: a tenth more than the wave, TestMemoryBounded found.)
const handChecks = 3

// cacheLine is the padding that keeps the shards' locks apart.
const cacheLine = 64

// shard holds the entries of the keys that hash to it: an index from key to entry that checks
// read without a lock, and a dense slice of the entries, which the clock hand walks. Its lock
// serializes what changes the index: new entries, dropped ones, the hand.
//
// A check of an existing subject takes only its entry's lock, so checks of different subjects
// write no memory in common. Entries are allocated one by one: subjects created together lie
// together in memory.
type shard struct {
	mu      sync.Mutex
	index   atomic.Pointer[table] // replaced under mu
	entries []*entry
	hand    int
	dropped int64 // the latest reading of the store's clock that dropped an entry here
	_       [cacheLine]byte
}

func (sh *shard) table() *table { return sh.index.Load() }

// acquire takes cost tokens under p at at from the subject of key, whose hash is h: from the
// refusal its entry keeps, with no lock, or from its entry, under the entry's lock, or else under
// the shard's lock. It returns the instant it decided at: at, or later for a reading of the
// store's clock (own) that found no entry (see since).
func (sh *shard) acquire(h uint64, k *key, p typed.Policy, at, cost, grace int64, own bool) (typed.Outcome, bool, int64) {
	if e := sh.table().candidate(h); e != nil && k.matches(e) {
		if cost == 1 && e.refusing.Load() {
			if o, ok := e.holds(p, at); ok {
				return o, false, at
			}
		}
		if e.dead.Load() { // dropped; also fetches the lock's line with the key's (see entry)
			return sh.acquireLocked(h, k, p, at, cost, grace, own)
		}
		e.mu.Lock()
		if !e.dead.Load() && e.adopt(p) {
			o, ok := p.DebitIn(&e.state, at, cost)
			if ok && e.refusing.Load() || !ok && cost == 1 {
				return e.settle(p, o, ok, at)
			}
			e.mu.Unlock()
			return o, ok, at
		}
		e.mu.Unlock()
	}
	return sh.acquireLocked(h, k, p, at, cost, grace, own)
}

// acquireLocked is acquire under the shard's lock, at the instant since returns: from the entry
// of key if there is one, or from a fresh state kept as a new entry if the debit is admitted.
func (sh *shard) acquireLocked(h uint64, k *key, p typed.Policy, at, cost, grace int64, own bool) (typed.Outcome, bool, int64) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	at = sh.since(at, own)
	if e := sh.table().find(h, k); e != nil {
		e.mu.Lock()
		defer e.mu.Unlock()
		o, ok := e.debit(p, at, cost)
		return o, ok, at
	}
	state := p.Fresh()
	o, ok := p.DebitIn(&state, at, cost)
	if ok {
		sh.sweep(at, grace, handChecks, own)
		sh.insert(newEntry(h, k, p, state))
	}
	return o, ok, at
}

// since returns the instant of a check under the shard's lock: a reading of the store's clock
// (own) raised to the latest one that dropped an entry here. A check reads the clock before it
// takes a lock; if another check dropped its subject's entry meanwhile (full at that check's
// later reading, less the grace), it would start afresh at its earlier reading, when the subject
// was not yet full. The raised reading is one the clock gave already, so it is no later than
// now: as if the check had read the clock after the drop. The caller holds the lock.
func (sh *shard) since(at int64, own bool) int64 {
	if own {
		return max(at, sh.dropped)
	}
	return at
}

// peek reports whether the subject of key could take one token under p at at, and the instant it
// decided at (see acquire): from the refusal its entry keeps, or under the entry's lock. An entry
// full for the grace is dropped, under the shard's lock. (A refusal kept means the subject is
// not full at at, so not idle either.)
func (sh *shard) peek(h uint64, k *key, p typed.Policy, at, grace int64, own bool) (typed.Outcome, bool, int64) {
	if e := sh.table().candidate(h); e != nil && k.matches(e) {
		if e.refusing.Load() { // PeekIn reports what DebitIn of one token would
			if o, ok := e.holds(p, at); ok {
				return o, false, at
			}
		}
		if !e.dead.Load() { // also fetches the lock's line with the key's (see entry)
			e.mu.Lock()
			if !e.dead.Load() && !e.idle(at, grace) {
				o, ok := e.peek(p, at)
				e.mu.Unlock()
				return o, ok, at
			}
			e.mu.Unlock()
		}
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	at = sh.since(at, own)
	if e := sh.table().find(h, k); e != nil {
		e.mu.Lock()
		if !e.idle(at, grace) {
			defer e.mu.Unlock()
			o, ok := e.peek(p, at)
			return o, ok, at
		}
		sh.drop(e, at, own)
	}
	state := p.Fresh()
	o, ok := p.PeekIn(&state, at)
	return o, ok, at
}

func (sh *shard) reset(h uint64, k *key) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if e := sh.table().find(h, k); e != nil {
		e.mu.Lock()
		sh.drop(e, 0, false)
	}
}

func (sh *shard) len() int {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return len(sh.entries)
}

// insert adds e to the index and the entries, growing the index if it is full. The caller holds
// the lock.
func (sh *shard) insert(e *entry) {
	if sh.table().full() {
		sh.index.Store(sized(slotsFor(len(sh.entries)+1), sh.entries))
	}
	e.pos = int32(len(sh.entries))
	sh.entries = append(sh.entries, e)
	sh.table().insert(e)
}

// drop marks e dead, unlocks it and removes it from the index and the entries, moving the last
// entry into its place, for a check at at, a reading of the store's clock if own. The caller
// holds the shard's lock and e.mu.
func (sh *shard) drop(e *entry, at int64, own bool) {
	if own {
		sh.dropped = max(sh.dropped, at)
	}
	e.unrefuse()
	// dead before the unlock: a check waiting for the lock must find it set. dead is atomic,
	// for the checks that load it before the lock, so the race detector does not police this
	// order; TestCheckOfDroppedEntry does, though only when the waiter wakes in between.
	e.dead.Store(true)
	e.mu.Unlock()
	sh.table().remove(e)
	last := sh.entries[len(sh.entries)-1]
	sh.entries[e.pos], last.pos = last, e.pos
	sh.entries[len(sh.entries)-1] = nil
	sh.entries = sh.entries[:len(sh.entries)-1]
	if sh.table().sparse() {
		sh.index.Store(sized(slotsFor(len(sh.entries)), sh.entries))
	}
}

// sweep checks up to n entries from the hand on, drops those full for grace or more at at (a
// reading of the store's clock if own), and returns how many it dropped. The caller holds the
// lock.
func (sh *shard) sweep(at, grace int64, n int, own bool) int {
	dropped := 0
	for range min(n, len(sh.entries)) {
		if sh.hand >= len(sh.entries) {
			sh.hand = 0
		}
		e := sh.entries[sh.hand]
		e.mu.Lock()
		if e.idle(at, grace) {
			sh.drop(e, at, own) // the last entry moves here: check it next
			dropped++
			continue
		}
		e.mu.Unlock()
		sh.hand++
	}
	return dropped
}
