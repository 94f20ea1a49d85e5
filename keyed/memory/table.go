package memory

import "sync/atomic"

// minSlots is the size of a shard's first table; tables hold at most 3/4 as many entries as
// slots, and shrink back when they hold fewer than 1/8.
const minSlots = 8

// table is a shard's index from a key's hash to its entry: open addressing with linear probing.
//
// Readers probe it without a lock. Writers hold their shard's lock: they store into the slots
// atomically, delete by shifting the entries that follow back into the hole (no tombstones),
// and publish a new table when it grows or shrinks. A reader may therefore miss an entry that is
// being inserted or moved, read a slot's hash and entry from two different moments, or probe a
// table already replaced: what it finds is only a candidate. A check matches the candidate's
// key, which never changes, without a lock, and before it debits the entry makes sure, under the
// entry's own lock, that it was not dropped since; on a miss it asks again under the shard's lock.
type table struct {
	mask  uint64
	count int // entries held, under the shard's lock
	slots []slot
}

// slot holds an entry and a copy of its hash, so that a probe reads no entry but its candidate.
type slot struct {
	hash atomic.Uint64
	e    atomic.Pointer[entry]
}

func newTable(slots int) *table {
	return &table{mask: uint64(slots - 1), slots: make([]slot, slots)}
}

// home is the first slot an entry of hash h may lie in. Shards are picked by the hash's low
// bits, so slots are picked by its high ones.
func (t *table) home(h uint64) uint64 { return (h >> 32) & t.mask }

// candidate returns the first entry whose slot holds hash h, or nil, reading no entry: without
// the shard's lock, a candidate whose key the caller matches, and whether it was dropped under
// its own lock.
func (t *table) candidate(h uint64) *entry {
	i := t.home(h)
	for range len(t.slots) {
		s := &t.slots[i]
		e := s.e.Load()
		if e == nil || s.hash.Load() == h {
			return e
		}
		i = (i + 1) & t.mask
	}
	return nil
}

// find returns the entry of key, whose hash is h, or nil. The caller holds the shard's lock.
func (t *table) find(h uint64, k *key) *entry {
	i := t.home(h)
	for {
		e := t.slots[i].e.Load()
		if e == nil || e.hash == h && k.matches(e) {
			return e
		}
		i = (i + 1) & t.mask
	}
}

// put stores e into slot i.
func (t *table) put(i uint64, e *entry) {
	t.slots[i].hash.Store(e.hash)
	t.slots[i].e.Store(e)
}

// full reports whether the table has no room for one more entry.
func (t *table) full() bool { return (t.count+1)*4 > len(t.slots)*3 }

// sparse reports whether the table should shrink.
func (t *table) sparse() bool { return len(t.slots) > minSlots && t.count*8 < len(t.slots) }

// insert adds e, which the table does not hold and has room for. The caller holds the lock.
func (t *table) insert(e *entry) {
	i := t.home(e.hash)
	for t.slots[i].e.Load() != nil {
		i = (i + 1) & t.mask
	}
	t.put(i, e)
	t.count++
}

// remove deletes e, which the table holds, shifting back the entries of the probe run that
// follows so that no search stops early. The caller holds the lock.
func (t *table) remove(e *entry) {
	i := t.home(e.hash)
	for t.slots[i].e.Load() != e {
		i = (i + 1) & t.mask
	}
	for j := (i + 1) & t.mask; ; j = (j + 1) & t.mask {
		f := t.slots[j].e.Load()
		if f == nil {
			break
		}
		// f may move back to i unless its home lies after i, up to j: its distance from home
		// is then shorter than the distance from i.
		if (j-t.home(f.hash))&t.mask >= (j-i)&t.mask {
			t.put(i, f)
			i = j
		}
	}
	t.slots[i].e.Store(nil)
	t.count--
}

// sized returns a table of the given size holding entries.
func sized(slots int, entries []*entry) *table {
	t := newTable(slots)
	for _, e := range entries {
		t.insert(e)
	}
	return t
}

// slotsFor returns the table size for n entries: twice n, a power of two, at least minSlots.
func slotsFor(n int) int { return pow2(max(2*n, minSlots)) }
