package memory

import "github.com/numerus-closus/numerus/typed"

// minSlots is the size of a shard's first table.
const minSlots = 8

// table is a shard's index of its slots: open addressing with linear probing, each entry in its
// slot, so that a check of an existing subject reads one cache line (the probe's next slot is the
// next line, which the processor fetches ahead). A table of any size, not only powers of two:
// a key's home is the high half of its hash scaled to the size. It grows to twice its entries
// when they fill three quarters of it, and shrinks to twice its entries when they fill less
// than a quarter, so it is from half to three quarters full as it grows: 85 to 128 bytes a
// subject. Deletes shift the entries that follow back into the hole (no tombstones). The caller
// holds the shard's lock.
type table struct {
	slots []slot
	count int
}

func newTable(n int) table { return table{slots: make([]slot, n)} }

// home is the first slot an entry whose hash's high half is h may lie in.
func (t *table) home(h uint32) int { return int(uint64(h) * uint64(len(t.slots)) >> 32) }

// next is the slot after i.
func (t *table) next(i int) int {
	if i++; i == len(t.slots) {
		return 0
	}
	return i
}

// find returns the slot of key k, whose hash's high half is h, or -1.
func (t *table) find(h uint32, k *key) int {
	for i := t.home(h); ; i = t.next(i) {
		sl := &t.slots[i]
		switch {
		case sl.empty():
			return -1
		case sl.hash == h && k.matches(sl):
			return i
		}
	}
}

// findSubject is find for a bound check's key, given as slot.holds takes it, with no key built.
// A subject of 8 to 16 bytes in a numbered namespace, the common case, is matched here, by its
// words read from the slot where they lie (see words), with no call.
func (t *table) findSubject(h uint32, name uint16, prefix, subject string, w [2]uint64) int {
	n := len(subject)
	common := 8 <= n && n <= 16 && name != unnamed
	for i := t.home(h); ; i = t.next(i) {
		sl := &t.slots[i]
		switch {
		case sl.empty():
			return -1
		case sl.hash != h:
		case common:
			if sl.name == name && int(sl.n) == n && le64(sl.sub[:8]) == w[0] && le64(sl.sub[n-8:n]) == w[1] {
				return i
			}
		case sl.holds(name, prefix, subject, w):
			return i
		}
	}
}

// full reports whether the table has no room for one more entry.
func (t *table) full() bool { return (t.count+1)*4 > len(t.slots)*3 }

// sparse reports whether the table should shrink.
func (t *table) sparse() bool { return len(t.slots) > minSlots && t.count*4 < len(t.slots) }

// insert makes an empty slot the entry of k, which the table does not hold and has room for.
func (t *table) insert(h uint32, k *key, p typed.Policy, state *typed.State) {
	i := t.home(h)
	for !t.slots[i].empty() {
		i = t.next(i)
	}
	t.slots[i].fill(h, k, p, state)
	t.count++
}

// remove empties slot i, shifting back the entries of the probe run that follows so that no
// search stops early. An entry only moves back towards its home, to a slot from i on.
func (t *table) remove(i int) {
	n := len(t.slots)
	dist := func(from, to int) int { return (to - from + n) % n }
	for j := t.next(i); !t.slots[j].empty(); j = t.next(j) {
		// the entry at j may move back to i unless its home lies after i, up to j: its
		// distance from home is then shorter than the distance from i.
		if dist(t.home(t.slots[j].hash), j) >= dist(i, j) {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = slot{}
	t.count--
}

// resized returns the table holding t's entries in slotsFor(t.count) slots.
func (t *table) resized() table {
	r := newTable(slotsFor(t.count))
	for i := range t.slots {
		if sl := &t.slots[i]; !sl.empty() {
			j := r.home(sl.hash)
			for !r.slots[j].empty() {
				j = r.next(j)
			}
			r.slots[j] = *sl
		}
	}
	r.count = t.count
	return r
}

// slotsFor returns the table size for n entries: twice n, at least minSlots.
func slotsFor(n int) int { return max(2*n+2, minSlots) }
