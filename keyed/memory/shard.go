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
	_       [cacheLine]byte
}

func (sh *shard) table() *table { return sh.index.Load() }

// acquire takes cost tokens under p at at from the subject of key, whose hash is h: from its
// entry, under the entry's lock, or else under the shard's lock. It returns the instant it
// decided at: at, or, if at is a reading of the store's clock (own) and the subject has no entry,
// a reading taken under the shard's lock (see acquireLocked).
func (sh *shard) acquire(h uint64, k *key, p typed.Policy, at, cost int64, s *Store, own bool) (typed.Outcome, bool, int64) {
	if e := sh.table().candidate(h); e != nil {
		e.mu.Lock()
		if e.is(k) {
			var o typed.Outcome
			var ok bool
			if e.policy == p { // the common case, one call less: e.debit's first
				o, ok = p.DebitIn(&e.state, at, cost)
			} else {
				o, ok = e.debit(p, at, cost)
			}
			e.mu.Unlock()
			return o, ok, at
		}
		e.mu.Unlock()
	}
	return sh.acquireLocked(h, k, p, at, cost, s, own)
}

// acquireLocked is acquire under the shard's lock. A reading of the store's clock is taken again
// there: a check that read the clock, then waited for the lock while another check dropped its
// subject's entry (full at that other check's later instant, less the grace), must not start
// afresh at its earlier instant, when the subject was not yet full. Drops happen under this
// lock, so the clock read under it is at least every instant a drop of this shard used.
func (sh *shard) acquireLocked(h uint64, k *key, p typed.Policy, at, cost int64, s *Store, own bool) (typed.Outcome, bool, int64) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if own {
		at = max(at, s.clock())
	}
	if e := sh.table().find(h, k); e != nil {
		e.mu.Lock()
		defer e.mu.Unlock()
		o, ok := e.debit(p, at, cost)
		return o, ok, at
	}
	state := p.Fresh()
	o, ok := p.DebitIn(&state, at, cost)
	if ok {
		sh.sweep(at, s.grace, handChecks)
		sh.insert(&entry{hash: h, key: k.String(), policy: p, state: state})
	}
	return o, ok, at
}

// peek reports whether the subject of key could take one token under p at at. An entry full for
// the grace is dropped, under the shard's lock.
func (sh *shard) peek(h uint64, k *key, p typed.Policy, at, grace int64) (typed.Outcome, bool) {
	if e := sh.table().candidate(h); e != nil {
		e.mu.Lock()
		if e.is(k) && !e.idle(at, grace) {
			o, ok := e.peek(p, at)
			e.mu.Unlock()
			return o, ok
		}
		e.mu.Unlock()
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if e := sh.table().find(h, k); e != nil {
		e.mu.Lock()
		if !e.idle(at, grace) {
			defer e.mu.Unlock()
			return e.peek(p, at)
		}
		sh.drop(e)
	}
	state := p.Fresh()
	return p.PeekIn(&state, at)
}

func (sh *shard) reset(h uint64, k *key) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if e := sh.table().find(h, k); e != nil {
		e.mu.Lock()
		sh.drop(e)
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
// entry into its place. The caller holds the shard's lock and e.mu.
func (sh *shard) drop(e *entry) {
	e.dead = true
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

// sweep checks up to n entries from the hand on, drops those full for grace or more at at, and
// returns how many it dropped. The caller holds the lock.
func (sh *shard) sweep(at, grace int64, n int) int {
	dropped := 0
	for range min(n, len(sh.entries)) {
		if sh.hand >= len(sh.entries) {
			sh.hand = 0
		}
		e := sh.entries[sh.hand]
		e.mu.Lock()
		if e.idle(at, grace) {
			sh.drop(e) // the last entry moves here: check it next
			dropped++
			continue
		}
		e.mu.Unlock()
		sh.hand++
	}
	return dropped
}
