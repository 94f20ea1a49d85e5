package memory

import (
	"strconv"
	"testing"
	"unsafe"

	"github.com/numerus-closus/numerus/typed"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestTableModel runs random inserts, removals and resizes of a shard's table against a map, with
// hashes drawn from a few values so that probe runs collide, wrap around the table's end and get
// shifted back by removals. After each step every key the model holds is found, in a slot that
// holds its hash, and no key it does not hold is found; the table never fills.
func TestTableModel(t *testing.T) {
	p := typed.MustCompile("gcra 1/s")
	rapid.Check(t, func(t *rapid.T) {
		tb := newTable(minSlots)
		model := map[string]uint32{}
		hashes := []uint32{0, 1, 2, 1 << 31, 1<<31 + 1, ^uint32(0), ^uint32(0) - 1}
		t.Repeat(map[string]func(*rapid.T){
			"insert": func(t *rapid.T) {
				subject := strconv.Itoa(rapid.IntRange(0, 40).Draw(t, "key"))
				if _, ok := model[subject]; ok {
					t.Skip("held")
				}
				h := rapid.SampledFrom(hashes).Draw(t, "hash")
				if tb.full() {
					tb = tb.resized()
				}
				state := p.Fresh()
				tb.insert(h, ptr(boundKey("", subject, 0)), p, &state)
				model[subject] = h
			},
			"remove": func(t *rapid.T) {
				subject := strconv.Itoa(rapid.IntRange(0, 40).Draw(t, "key"))
				h, ok := model[subject]
				if !ok {
					t.Skip("not held")
				}
				tb.remove(tb.find(h, ptr(boundKey("", subject, 0))))
				delete(model, subject)
				if tb.sparse() {
					tb = tb.resized()
				}
			},
			"": func(t *rapid.T) { checkTable(t, &tb, model) },
		})
	})
}

func checkTable(t *rapid.T, tb *table, model map[string]uint32) {
	require.Equal(t, len(model), tb.count)
	require.LessOrEqual(t, tb.count*4, len(tb.slots)*3, "the table filled up")
	for k, h := range model {
		i := tb.find(h, ptr(boundKey("", k, 0)))
		require.GreaterOrEqual(t, i, 0, "key %q not found", k)
		require.Equal(t, h, tb.slots[i].hash, "key %q", k)
	}
	for i := range 41 {
		k := strconv.Itoa(i)
		if _, ok := model[k]; !ok {
			for _, h := range model {
				require.Equal(t, -1, tb.find(h, ptr(boundKey("", k, 0))), "key %q, not held, found", k)
			}
		}
	}
}

// TestSlotLayout pins a slot at one cache line, 64 bytes, as the table's doc says.
func TestSlotLayout(t *testing.T) {
	require.Equal(t, uintptr(64), unsafe.Sizeof(slot{}))
}
