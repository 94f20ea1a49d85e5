package memory

import (
	"math"
	"sync"

	"github.com/numerus-closus/numerus/internal/inplace"
	"github.com/numerus-closus/numerus/typed"
)

// handChecks is how many entries each new entry checks under its shard's clock hand: three, so
// entries back to full are dropped faster than new ones arrive whenever at least a third of
// those checked are full. (With two, a shard that held more old entries than it got new ones in
// a wave kept some of them through it: a tenth more than the wave, TestMemoryBounded found.)
const handChecks = 3

// fullChecks is how many more entries a new subject checks under the hands of its shard and of
// the shards after it when the store is at its cap, before it is refused or left untracked: a
// bounded search for a subject back to full, to make room.
const fullChecks = 64

// cacheLine is the padding that keeps the shards' locks apart.
const cacheLine = 64

// shard holds the entries of the keys that hash to it, in a table, under one lock: a check takes
// it, reads its subject's slot, and writes it if the state changes.
type shard struct {
	mu      sync.Mutex
	t       table
	hand    int     // the slot the clock hand checks next
	marks   []int64 // by namespace number: the latest instant a dropped entry was full from
	refused uint64  // the hash of the latest refusal of one token to a bound check (see refusal)
	_       [cacheLine]byte
	refusal refusal // read without the lock, on lines of its own
	_       [cacheLine]byte
}

// acquire takes cost tokens under p at at from the subject of key, whose hash is h. A subject
// with no entry is decided at no instant earlier than its namespace's watermark in the shard
// (see mark): its entry may have been dropped, full from an instant no later than the
// watermark, and deciding it afresh at an earlier instant, where it was not full, would hand it
// tokens it had spent. It returns the
// instant it decided at, and ErrFull for a new subject that the store, at its cap, refuses.
func (sh *shard) acquire(s *Store, h uint64, k *key, p typed.Policy, at, cost int64) (inplace.Outcome, bool, int64, error) {
	sh.mu.Lock()
	sh.refusal.forget(uint32(h >> 32))
	if i := sh.t.find(uint32(h>>32), k); i >= 0 {
		o, ok := sh.t.slots[i].debit(p, at, cost)
		sh.mu.Unlock()
		return o, ok, at, nil
	}
	return sh.admit(s, h, k, p, at, cost)
}

// admit is acquire for a subject with no entry, under the shard's lock, which it releases.
func (sh *shard) admit(s *Store, h uint64, k *key, p typed.Policy, at, cost int64) (inplace.Outcome, bool, int64, error) {
	sh.refusal.forget(uint32(h >> 32)) // none is held for a subject with no entry: no harm either
	at = max(at, sh.mark(k.name))
	state := p.Fresh()
	o, ok := in(p).DebitIn(&state, at, cost)
	if !ok {
		sh.mu.Unlock()
		return o, ok, at, nil
	}
	sh.sweep(s, at, handChecks)
	if !s.hold() && (s.sweepAtCap(sh, h, at) == 0 || !s.hold()) {
		sh.mu.Unlock()
		return s.atCap(o, at)
	}
	if sh.t.full() {
		sh.resize()
	}
	sh.t.insert(uint32(h>>32), k, p, &state)
	sh.mu.Unlock()
	return o, ok, at, nil
}

// peek reports whether the subject of key could take one token under p at at, and the instant it
// decided at (see acquire). An entry full for the grace is dropped.
func (sh *shard) peek(s *Store, h uint64, k *key, p typed.Policy, at int64) (inplace.Outcome, bool, int64) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.refusal.forget(uint32(h >> 32))
	if i := sh.t.find(uint32(h>>32), k); i >= 0 {
		sl := &sh.t.slots[i]
		full, idle := sl.idle(at, s.grace)
		if !idle {
			o, ok := sl.peek(p, at)
			return o, ok, at
		}
		sh.drop(s, i, sl.name, full)
		sh.shrink()
	}
	at = max(at, sh.mark(k.name))
	state := p.Fresh()
	o, ok := in(p).PeekIn(&state, at)
	return o, ok, at
}

// reset drops the entry of key, if any, raising no watermark: its next check starts from full,
// as asked.
func (sh *shard) reset(s *Store, h uint64, k *key) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.refusal.forget(uint32(h >> 32))
	if i := sh.t.find(uint32(h>>32), k); i >= 0 {
		sh.remove(s, i)
		sh.shrink()
	}
}

func (sh *shard) len() int {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.t.count
}

// drop removes the entry in slot i, of the namespace numbered name, whose subject is full from
// the instant full, and raises the namespace's watermark to it.
func (sh *shard) drop(s *Store, i int, name uint16, full int64) {
	j := markOf(name)
	if j >= len(sh.marks) {
		sh.marks = append(sh.marks, make([]int64, j+1-len(sh.marks))...)
		for k := range sh.marks[j:] {
			sh.marks[j+k] = math.MinInt64
		}
	}
	sh.marks[j] = max(sh.marks[j], full)
	sh.remove(s, i)
}

// mark returns the watermark of a namespace in the shard: the latest instant from which an
// entry of it that the shard dropped was full, or the earliest instant if none. Namespaces keep
// watermarks apart so that one that lives on another clock (a replay, a test's fake clock)
// moves no other's; the unnumbered ones share one.
func (sh *shard) mark(name uint16) int64 {
	if j := markOf(name); j < len(sh.marks) {
		return sh.marks[j]
	}
	return math.MinInt64
}

// markOf is the index of a namespace's watermark in marks.
func markOf(name uint16) int {
	if name == unnamed {
		return maxNames
	}
	return int(name)
}

// remove empties slot i. The caller shrinks the table after (see shrink).
func (sh *shard) remove(s *Store, i int) {
	sh.refusal.forget(sh.t.slots[i].hash)
	sh.t.remove(i)
	s.release()
}

// shrink rebuilds the table if it is sparse.
func (sh *shard) shrink() {
	if sh.t.sparse() {
		sh.resize()
	}
}

// resize rebuilds the table at twice its entries; the hand starts over.
func (sh *shard) resize() {
	sh.t = sh.t.resized()
	sh.hand = 0
}

// sweep checks up to n entries from the hand on, drops those full for the grace or more at at,
// and returns how many it dropped. It passes over at most the table's slots.
func (sh *shard) sweep(s *Store, at int64, n int) int {
	dropped, checked, skipped := 0, 0, 0
	for checked < n && sh.t.count > 0 && skipped < len(sh.t.slots) {
		if sh.hand >= len(sh.t.slots) {
			sh.hand = 0
		}
		sl := &sh.t.slots[sh.hand]
		if sl.empty() {
			sh.hand++
			skipped++
			continue
		}
		checked++
		if full, idle := sl.idle(at, s.grace); idle {
			sh.drop(s, sh.hand, sl.name, full) // an entry after it may move here: check it next
			dropped++
			continue
		}
		sh.hand++
	}
	sh.shrink()
	return dropped
}
