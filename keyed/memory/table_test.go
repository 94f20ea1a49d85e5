package memory

import (
	"strconv"
	"testing"
	"unsafe"

	"github.com/numerus-closus/numerus/typed"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestTableModel runs random inserts, removals and resizes of a shard's index against a map,
// with hashes drawn from a few values so that probe runs collide, wrap around the table's end
// and get shifted back by removals. After each step every key the model holds is found, with its
// entry as the first candidate of its hash when no other key shares that hash, and no key it
// does not hold is found; the table never fills.
func TestTableModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tb := newTable(minSlots)
		model := map[string]*entry{}
		hashes := []uint64{0, 1 << 32, 2 << 32, 7 << 32, 7<<32 + 1, 15 << 32}
		t.Repeat(map[string]func(*rapid.T){
			"insert": func(t *rapid.T) {
				subject := strconv.Itoa(rapid.IntRange(0, 40).Draw(t, "key"))
				if model[subject] != nil {
					t.Skip("held")
				}
				e := newEntry(rapid.SampledFrom(hashes).Draw(t, "hash"), &key{subject: subject}, typed.Policy{}, typed.State{})
				if tb.full() {
					tb = sized(slotsFor(len(model)+1), values(model))
				}
				tb.insert(e)
				model[subject] = e
			},
			"remove": func(t *rapid.T) {
				key := strconv.Itoa(rapid.IntRange(0, 40).Draw(t, "key"))
				e := model[key]
				if e == nil {
					t.Skip("not held")
				}
				tb.remove(e)
				delete(model, key)
				if tb.sparse() {
					tb = sized(slotsFor(len(model)), values(model))
				}
			},
			"": func(t *rapid.T) { checkTable(t, tb, model) },
		})
	})
}

func values(m map[string]*entry) []*entry {
	es := make([]*entry, 0, len(m))
	for _, e := range m {
		es = append(es, e)
	}
	return es
}

func checkTable(t *rapid.T, tb *table, model map[string]*entry) {
	require.Equal(t, len(model), tb.count)
	require.LessOrEqual(t, tb.count*4, len(tb.slots)*3, "the table filled up")
	shared := map[uint64]int{}
	for _, e := range model {
		shared[e.hash]++
	}
	for k, e := range model {
		require.Same(t, e, tb.find(e.hash, &key{subject: k}), "key %q", k)
		if shared[e.hash] == 1 {
			require.Same(t, e, tb.candidate(e.hash), "candidate of key %q", k)
		}
	}
	for i := range 41 {
		k := strconv.Itoa(i)
		if model[k] == nil {
			for h := range shared {
				require.Nil(t, tb.find(h, &key{subject: k}), "key %q, not held, found", k)
			}
		}
	}
}

// TestEntryLayout pins the layout that entry's doc describes, in an entry of the 256-byte size
// class: the first cache line holds the key and the refusing flag, the second the policy, the
// lock, dead and the first five words of the state, and the fourth the refusal kept, which a
// check of an admitting subject never touches, with the hash and pos.
func TestEntryLayout(t *testing.T) {
	var e entry
	require.Equal(t, uintptr(256), unsafe.Sizeof(e))
	require.Equal(t, uintptr(56), unsafe.Offsetof(e.inline)+inlineSubject)
	require.LessOrEqual(t, unsafe.Offsetof(e.refusing)+unsafe.Sizeof(e.refusing), uintptr(64))
	for _, off := range []uintptr{unsafe.Offsetof(e.policy), unsafe.Offsetof(e.mu), unsafe.Offsetof(e.dead)} {
		require.GreaterOrEqual(t, off, uintptr(64))
		require.Less(t, off, uintptr(128))
	}
	require.LessOrEqual(t, unsafe.Offsetof(e.state)+5*8, uintptr(128))
	require.Equal(t, uintptr(192), unsafe.Offsetof(e.refusal))
	require.GreaterOrEqual(t, unsafe.Offsetof(e.hash), uintptr(192))
}
