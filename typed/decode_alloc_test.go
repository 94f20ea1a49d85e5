package typed

import (
	"encoding/binary"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus/internal/limits"
)

// issueSnapshot is the binary snapshot of issue 28: an And of 300,000 finite buckets, each fresh,
// in 900 KB. Read, it took 3.0 s and 424 MB, and then 55 ms a debit.
func issueSnapshot() []byte {
	const n = 300_000
	b := binary.AppendUvarint([]byte{Version, byte(kindAnd)}, n)
	for range n {
		b = append(b, byte(kindFinite), 6) // finite 3
	}
	for range n {
		b = append(b, 6) // 3 left
	}
	return b
}

// issueText is the text of issue 28: 1 MB of '&', on which Parse allocated 211 MB before failing.
func issueText() string { return strings.Repeat("&", 1<<20) }

// widestSnapshot is a binary snapshot of the largest policy the limits allow, an And of 1,000
// finite buckets, fresh.
func widestSnapshot() []byte {
	return snap(andOf(limits.Children), freshWords(andOf(limits.Children))...)
}

// fullLog is the binary snapshot of a sliding log holding as many entries as it can, in as few
// bytes as a valid one can: entries one nanosecond apart from the epoch, of a token each.
func fullLog(n int) []byte {
	w := []int64{int64(n)}
	for i := range n {
		w = append(w, int64(i+1), 1)
	}
	return snap(Spec{Algo: AlgoSliding, Count: int64(n), Period: 1e9}, w)
}

// resultBudget bounds what a valid input at the limits allocates for its result beside the
// budget of ten times its bytes: the Policy of 1,000 leaves it compiles (about 0.7 MB for finite
// buckets, three bytes each in a snapshot) or the State of one.
const resultBudget = 1 << 20

// TestDecodersAllocateInProportion: every decoder, given the inputs of issue 28 or input past the
// limits, allocates at most ten times its input's bytes; given a valid input at the limits, at
// most that and the result the limits bound.
func TestDecodersAllocateInProportion(t *testing.T) {
	policy := `{"and":[` + strings.Repeat(`{"algo":"finite","limit":"3"},`, 300_000-1) + `"finite 3"]}`
	jsonIssue := []byte(`{"version":1,"policy":` + policy + `,"state":[` + strings.Repeat("[3],", 300_000-1) + "[3]]}")
	p := MustCompile(andOf(limits.Children).String())
	widestJSON, err := p.SnapshotJSON(p.Fresh())
	require.NoError(t, err)
	widestState := p.AppendState(nil, p.Fresh())
	log := fullLog(100_000)
	lp, ls, err := ReadSnapshot(log)
	require.NoError(t, err)
	logJSON, err := lp.SnapshotJSON(ls)
	require.NoError(t, err)
	snapshot, text := issueSnapshot(), issueText()
	amps, leaves := strings.Repeat("&", limits.Text), strings.Repeat("1/s&", limits.Text/4)
	parse := func(s string) func() error { return func() error { _, err := Parse(s); return err } }
	readJSON := func(b []byte) func() error { return func() error { _, _, err := ReadSnapshotJSON(b); return err } }
	read := func(b []byte) func() error { return func() error { return readSnapshotErr(b) } }
	cases := []struct {
		name  string
		size  int
		valid bool
		read  func() error
	}{
		{"issue snapshot: ReadSnapshot", len(snapshot), false, read(snapshot)},
		{"issue snapshot: UnmarshalBinary", len(snapshot), false, func() error { return new(And[FiniteBucket, FiniteBucket]).UnmarshalBinary(snapshot) }},
		{"issue snapshot, JSON: ReadSnapshotJSON", len(jsonIssue), false, readJSON(jsonIssue)},
		{"issue text: Parse", len(text), false, parse(text)},
		{"128 KiB of &: Parse", len(amps), false, parse(amps)},
		{"128 KiB of 1/s&: Parse", len(leaves), false, parse(leaves)},
		{"widest policy: ReadSnapshot", len(widestSnapshot()), true, read(widestSnapshot())},
		{"widest policy: ReadSnapshotJSON", len(widestJSON), true, readJSON(widestJSON)},
		{"widest policy: DecodeState", len(widestState), true, func() error { _, err := p.DecodeState(widestState); return err }},
		{"widest policy: Parse", len(p.String()), true, parse(p.String())},
		{"full log: ReadSnapshot", len(log), true, read(log)},
		{"full log: ReadSnapshotJSON", len(logJSON), true, readJSON(logJSON)},
	}
	for _, c := range cases {
		var err error
		bytes := allocated(func() { err = c.read() })
		t.Logf("%s: %d bytes in, %d allocated (%.2f×)", c.name, c.size, bytes, float64(bytes)/float64(c.size))
		require.Equal(t, c.valid, err == nil, "%s: %v", c.name, err)
		budget := uint64(10 * c.size)
		if c.valid {
			budget += resultBudget
		}
		require.LessOrEqual(t, bytes, budget, "%s: %d bytes allocated for %d", c.name, bytes, c.size)
	}
}

func readSnapshotErr(b []byte) error {
	_, _, err := ReadSnapshot(b)
	return err
}

// BenchmarkDecodeIssueInputs reads the inputs of issue 28: the snapshot of an And of 300,000
// leaves (900 KB) and 1 MB of '&' given to Parse; both fail, and the benchmark checks that they
// do, and reports each input's size.
func BenchmarkDecodeIssueInputs(b *testing.B) {
	snapshot, text := issueSnapshot(), issueText()
	b.Run("input=snapshot-300000-leaves", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if readSnapshotErr(snapshot) == nil {
				b.Fatal("read")
			}
		}
		b.ReportMetric(float64(len(snapshot)), "input-bytes")
	})
	b.Run("input=1MB-of-&", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Parse(text); err == nil {
				b.Fatal("parsed")
			}
		}
		b.ReportMetric(float64(len(text)), "input-bytes")
	})
}

// allocated returns the bytes f allocates: the least of three runs, so that what another goroutine
// of the test binary allocates meanwhile does not count.
func allocated(f func()) uint64 {
	least := uint64(math.MaxUint64)
	for range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	return least
}

// TestDecodeAllocatesInProportion: decoding allocates in proportion to the input, however many
// children its counts claim. Thirty-three nested "and" headers, each claiming half the input's
// bytes in children, made the decoder allocate 3,100 times the input before it failed; claims
// within the limit on children, nested or side by side, stay within ten times the input.
func TestDecodeAllocatesInProportion(t *testing.T) {
	const size = 1 << 16
	nested := []byte{Version}
	for range limits.Depth + 1 {
		nested = binary.AppendUvarint(append(nested, byte(kindAnd)), limits.Children)
	}
	nested = append(nested, make([]byte, size-len(nested))...)
	wide := binary.AppendUvarint([]byte{Version, byte(kindAnd)}, limits.Children)
	for len(wide) < 2*limits.Children-2 { // a child short, and no state
		wide = append(wide, byte(kindFinite), 2)
	}
	for name, data := range map[string][]byte{"nested": nested, "wide": wide} {
		var err error
		allocated := allocated(func() { _, _, err = ReadSnapshot(data) })
		require.ErrorIs(t, err, ErrCorrupt, name)
		assert.LessOrEqual(t, allocated, uint64(10*len(data)), "%s: %d bytes allocated for %d", name, allocated, len(data))
	}
}
