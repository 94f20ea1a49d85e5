package typed

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/limits"
)

// limitCase is a policy at one of the limits on a policy's size, or one step past it (past), and
// the words an error about it must hold.
type limitCase struct {
	name string
	sp   Spec
	past bool
	says string
}

func finiteLeaf() Spec { return Spec{Algo: AlgoFinite, Count: 3} }

// andOf returns an And of n finite buckets.
func andOf(n int) Spec {
	sp := Spec{Algo: AlgoAnd, Of: make([]Spec, n)}
	for i := range sp.Of {
		sp.Of[i] = finiteLeaf()
	}
	return sp
}

// deep returns levels of And, each of the one below and a finite bucket.
func deep(levels int) Spec {
	sp := finiteLeaf()
	for range levels {
		sp = Spec{Algo: AlgoAnd, Of: []Spec{sp, finiteLeaf()}}
	}
	return sp
}

// manyLeaves returns an Or of two Ands that hold n finite buckets between them.
func manyLeaves(n int) Spec {
	return Spec{Algo: AlgoOr, Of: []Spec{andOf(n / 2), andOf(n - n/2)}}
}

// limitCases holds a policy at each limit on the size of a spec and one a step past it.
func limitCases() []limitCase {
	return []limitCase{
		{"children", andOf(limits.Children), false, ""},
		{"children", andOf(limits.Children + 1), true, "holds more than 1000 specs, the limit"},
		{"depth", deep(limits.Depth), false, ""},
		{"depth", deep(limits.Depth + 1), true, "nests more than 32 levels, the limit"},
		{"leaves", manyLeaves(limits.Leaves), false, ""},
		{"leaves", manyLeaves(limits.Leaves + 1), true, "holds more than 1000 leaves in all, the limit"},
	}
}

// fresh returns the words of a fresh state of each leaf of sp, all finite buckets of 3.
func freshWords(sp Spec) [][]int64 {
	var ws [][]int64
	sp.leaves(func(Spec) { ws = append(ws, []int64{3}) })
	return ws
}

func requireLimit(t *testing.T, err error, c limitCase, want error, reader string) {
	t.Helper()
	if !c.past {
		require.NoError(t, err, "%s: %s at the limit", reader, c.name)
		return
	}
	require.ErrorIs(t, err, want, "%s: %s past the limit", reader, c.name)
	require.ErrorContains(t, err, c.says, "%s: %s past the limit", reader, c.name)
}

// TestValidateLimits: Validate, and so Compile, take a spec at each limit and refuse one a step
// past it, naming the limit.
func TestValidateLimits(t *testing.T) {
	for _, c := range limitCases() {
		requireLimit(t, c.sp.Validate(), c, numerus.ErrInvalidArgument, "Validate")
		_, err := Compile(c.sp)
		requireLimit(t, err, c, numerus.ErrInvalidArgument, "Compile")
	}
	err := Spec{Algo: AlgoAnd, Of: []Spec{finiteLeaf(), andOf(limits.Children + 1)}}.Validate()
	require.ErrorContains(t, err, "invalid of[1].of: holds more than 1000 specs", "the path of the node past the limit")
}

// TestSnapshotLimits: the binary snapshot reader takes a policy at each limit and refuses one a
// step past it as corrupt, naming the limit.
func TestSnapshotLimits(t *testing.T) {
	for _, c := range limitCases() {
		_, _, err := ReadSnapshot(snap(c.sp, freshWords(c.sp)...))
		requireLimit(t, err, c, ErrCorrupt, "ReadSnapshot")
	}
}

// TestLogEntriesLimit: a log's state holds at most the entries its policy can hold (its limit, or
// for a bucketed log its sub-windows): a snapshot or a state claiming one more is corrupt before
// any entry is read.
func TestLogEntriesLimit(t *testing.T) {
	last := t0.UnixNano()
	entries := func(n int, step int64) []int64 {
		w := []int64{last}
		for i := range n {
			w = append(w, last-int64(n-1-i)*step, 1)
		}
		return w
	}
	for _, c := range []struct {
		text  string
		limit int
		step  int64
	}{{"sliding 5/s", 5, 1}, {"buckets 100/s in 4", 4, 250e6}} {
		p := MustCompile(c.text)
		for _, n := range []int{c.limit, c.limit + 1} {
			w := entries(n, c.step)
			_, stateErr := p.DecodeState(appendWords(binary.BigEndian.AppendUint32([]byte{Version}, p.c.sum), kindSliding, w))
			_, _, snapErr := ReadSnapshot(snap(p.Spec(), w))
			if n == c.limit {
				require.NoError(t, stateErr, "%s: %d entries", c.text, n)
				require.NoError(t, snapErr, "%s: %d entries", c.text, n)
				continue
			}
			for _, err := range []error{stateErr, snapErr} {
				require.ErrorIs(t, err, ErrCorrupt, "%s: %d entries", c.text, n)
				require.ErrorContains(t, err, fmt.Sprintf("log holds %d entries, more than its policy's %d", n, c.limit))
			}
		}
	}
}

// TestJSONLimits: the JSON readers, of a spec and of a snapshot, take a policy at each limit and
// refuse one a step past it, naming the limit: Spec.UnmarshalJSON with numerus.ErrInvalidArgument,
// ReadSnapshotJSON as corrupt.
func TestJSONLimits(t *testing.T) {
	for _, c := range limitCases() {
		data, err := json.Marshal(c.sp)
		require.NoError(t, err)
		var sp Spec
		requireLimit(t, json.Unmarshal(data, &sp), c, numerus.ErrInvalidArgument, "Spec.UnmarshalJSON")
		state, err := json.Marshal(freshWords(c.sp))
		require.NoError(t, err)
		doc := `{"version":1,"policy":` + string(data) + `,"state":` + string(state) + `}`
		_, _, err = ReadSnapshotJSON([]byte(doc))
		requireLimit(t, err, c, ErrCorrupt, "ReadSnapshotJSON")
	}
}

// TestParseLimits: Parse takes a policy at each limit and refuses one a step past it, naming the
// limit (TestParseErrorTable holds the columns and the words).
func TestParseLimits(t *testing.T) {
	for _, c := range limitCases() {
		_, err := Parse(c.sp.String())
		if !c.past {
			require.NoError(t, err, "%s at the limit", c.name)
			continue
		}
		require.ErrorIs(t, err, numerus.ErrInvalidArgument, c.name)
		require.ErrorIs(t, err, ErrSyntax, c.name)
	}
	parens := func(n int) string { return strings.Repeat("(", n) + "1/s" + strings.Repeat(")", n) }
	_, err := Parse(parens(limits.Depth))
	require.NoError(t, err, "parentheses at the limit")
	_, err = Parse(parens(limits.Depth + 1))
	require.ErrorContains(t, err, "parentheses nest at most 32 levels")
}

// TestTextLimit: the notation and the JSON form of a spec take up to 128 KiB, white space
// included, and refuse a byte more.
func TestTextLimit(t *testing.T) {
	pad := func(s string, n int) string { return s + strings.Repeat(" ", n-len(s)) }
	_, err := Parse(pad("1/s", limits.Text))
	require.NoError(t, err)
	_, err = Parse(pad("1/s", limits.Text+1))
	require.ErrorIs(t, err, numerus.ErrInvalidArgument)
	require.ErrorContains(t, err, "at most 131072 bytes")
	object := func(n int) []byte { return []byte(pad(`{"limit":"1/s"`, n-1) + "}") } // white space within
	var sp Spec
	require.NoError(t, json.Unmarshal(object(limits.Text), &sp))
	err = json.Unmarshal(object(limits.Text+1), &sp)
	require.ErrorIs(t, err, numerus.ErrInvalidArgument)
	require.ErrorContains(t, err, "131073 bytes of JSON, more than the limit of 131072")
	_, _, err = ReadSnapshotJSON([]byte(`{"version":1,"policy":` + string(object(limits.Text+1)) + `,"state":[[0]]}`))
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "more than the limit of 131072")
}

// TestJSONStateLimits: a JSON snapshot's state holds no more leaves than its policy, no more
// words than each leaf keeps, and no more log entries than its policy can hold.
func TestJSONStateLimits(t *testing.T) {
	last := t0.UnixNano()
	doc := func(policy string, words string) []byte {
		return []byte(`{"state":[` + words + `],"version":1,"policy":"` + policy + `"}`)
	}
	log := func(n int) string {
		w := strconv.FormatInt(last, 10)
		for i := range n {
			w += "," + strconv.FormatInt(last-int64(n-1-i), 10) + ",1"
		}
		return "[" + w + "]"
	}
	_, _, err := ReadSnapshotJSON(doc("sliding 5/s", log(5)))
	require.NoError(t, err, "the state before the policy, at the limit")
	for name, c := range map[string]struct {
		data []byte
		says string
	}{
		"entries":      {doc("sliding 5/s", log(6)), "a leaf's state holds 13 words, more than its policy's 11"},
		"words":        {doc("gcra 1/s", "[0,0,0,0]"), "a leaf's state holds 4 words, more than its policy's 3"},
		"leaves":       {doc("gcra 1/s", "[0,0,0],[0,0,0]"), "state holds more leaves than the policy's 1"},
		"not a number": {doc("finite 3", `["3"]`), "expected a whole number"},
		"a fraction":   {doc("finite 3", `[3.0]`), "expected a whole number"},
		"beyond int64": {doc("finite 3", `[9223372036854775808]`), "beyond 64 bits"},
		"null":         {doc("finite 3", `null`), "expected '['"},
	} {
		_, _, err := ReadSnapshotJSON(c.data)
		require.ErrorIs(t, err, ErrCorrupt, name)
		require.ErrorContains(t, err, c.says, name)
	}
	_, _, err = ReadSnapshotJSON(doc("finite 9223372036854775807", "[ -0 ]"))
	require.NoError(t, err, "white space and -0, as JSON writes numbers")
	var f FiniteBucket
	require.NoError(t, f.UnmarshalJSON(doc("finite 3", "[3]")))
}

// TestTextLimitHoldsEveryValidSpec: the String and the JSON of the longest specs the other limits
// allow, 1,000 leaves of 19-digit numbers, fit in the limit on a text, and so read back.
func TestTextLimitHoldsEveryValidSpec(t *testing.T) {
	const big = math.MaxInt64
	long := []Spec{
		{Algo: AlgoGCRA, Count: big, Period: big, Burst: 1e18},
		{Algo: AlgoBuckets, Count: big, Period: big, In: big},
		{Algo: AlgoToken, Count: big - 1, Period: big / 2, Burst: 1111111111111111111},
	}
	// A binary tree of alternating And and Or, which has the most inner nodes, and the most
	// parentheses, that 1,000 leaves can have.
	leaf := 0
	var tree func(algo Algo, n int) Spec
	tree = func(algo Algo, n int) Spec {
		if n == 1 {
			leaf++
			return long[leaf%len(long)]
		}
		other := AlgoOr
		if algo == AlgoOr {
			other = AlgoAnd
		}
		return Spec{Algo: algo, Of: []Spec{tree(other, n/2), tree(other, n-n/2)}}
	}
	sp := tree(AlgoAnd, limits.Leaves)
	require.NoError(t, sp.Validate())
	require.Equal(t, limits.Leaves, sp.countLeaves())
	text := sp.String()
	data, err := json.Marshal(sp)
	require.NoError(t, err)
	t.Logf("String %d bytes, JSON %d bytes", len(text), len(data))
	back, err := Parse(text)
	require.NoError(t, err)
	require.True(t, sp.Equal(back))
	var fromJSON Spec
	require.NoError(t, json.Unmarshal(data, &fromJSON))
	require.True(t, sp.Equal(fromJSON))
}
