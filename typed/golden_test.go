package typed

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus/internal/kernel"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// goldenSteps is the history every golden limiter has before it is saved.
var goldenSteps = []step{{0, 1}, {0, 2}, {3 * time.Millisecond, 1}, {1500 * time.Millisecond, 1}, {-time.Second, 1}}

// golden checks one typed limiter against its golden files: the current encoder still writes the
// committed bytes, and the committed bytes still read back as a limiter that answers like one
// built now. With -update it rewrites the files instead.
func golden[L Limiter[L]](t *testing.T, name, text string) {
	t.Run(name, func(t *testing.T) {
		l, at := history(build[L](t, text), goldenSteps)
		bin, err := appendSnapshot(nil, l)
		require.NoError(t, err)
		js, err := snapshotJSON(l)
		require.NoError(t, err)
		checkGolden(t, name+".bin", bin)
		checkGolden(t, name+".json", js)

		var fromBin, fromJSON L
		require.NoError(t, readSnapshot(&fromBin, readGolden(t, name+".bin")))
		require.NoError(t, json.Unmarshal(readGolden(t, name+".json"), &fromJSON))
		future := []step{{0, 1}, {time.Millisecond, 2}, {time.Second, 1}, {time.Hour, 3}, {0, 1}}
		sameAnswers(t, Dynamic(fromBin), Dynamic(l), at, future)
		sameAnswers(t, Dynamic(fromJSON), Dynamic(l), at, future)
	})
}

func checkGolden(t *testing.T, file string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", file)
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want := readGolden(t, file)
	require.True(t, bytes.Equal(want, got), "%s: the format changed: bump Version and keep reading the old one\nwant %q\ngot  %q", file, want, got)
}

func readGolden(t *testing.T, file string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "golden", file))
	require.NoError(t, err, "run go test ./typed -run TestGolden -update")
	return data
}

// TestGolden pins version 1 of the snapshot and state formats.
func TestGolden(t *testing.T) {
	golden[GCRA](t, "gcra", "gcra 10/s burst 5")
	golden[TokenBucket](t, "token", "token 3/s burst 4")
	golden[LeakyBucket](t, "leaky", "leaky 3/s burst 4")
	golden[FiniteBucket](t, "finite", "finite 10")
	golden[FixedWindow](t, "window", "window 5/s")
	golden[SlidingWindowCount](t, "count", "count 5/s")
	golden[SlidingWindow](t, "sliding", "sliding 5/s")
	golden[SlidingWindow](t, "buckets", "buckets 5/s in 4")
	golden[And[GCRA, And[FixedWindow, SlidingWindow]]](t, "and", "gcra 10/s burst 5 & (window 5/s & sliding 4/2s)")
	golden[Or[TokenBucket, SlidingWindowCount]](t, "or", "token 3/s burst 4 | count 5/s")
	t.Run("state", func(t *testing.T) {
		p := MustCompile("gcra 10/s burst 5 & window 5/s | sliding 4/2s")
		s, at := p.Fresh(), t0
		for _, st := range goldenSteps {
			at = at.Add(st.delta)
			s, _, _ = p.DebitN(s, at, st.cost)
		}
		enc := p.AppendState(nil, s)
		checkGolden(t, "state.bin", enc)
		got, err := p.DecodeState(readGolden(t, "state.bin"))
		require.NoError(t, err)
		sameAnswers(t, p.Limiter(got), p.Limiter(s), at, []step{{0, 1}, {time.Second, 2}, {time.Hour, 1}})
	})
}

// legacyWords are the words of testdata/legacy's snapshots: a GCRA of 10/s with 6 of its 10
// tokens left, a spent token bucket of 3 and a leaky bucket of 2 holding one token of water.
var legacyWords = [][]int64{{1767225600400000000, 0, 1767225600003000000}, {0, 1767225600000000000},
	{997000000, 1767225600003000000}}

// TestLegacyBursts: the snapshots under testdata/legacy were written at commit 6554fb4, by
// Policy.AppendSnapshot and SnapshotJSON of "10/s & (token 3/s | leaky 2/s)" after four debits
// (burst0-state.bin by AppendState), when a burst left to its default was the count and
// snapshots wrote it as 0. Read back, they hold the bursts they were written under, written
// out, and decide as they did then.
func TestLegacyBursts(t *testing.T) {
	was := MustCompile("gcra 10/s burst 10 & (token 3/s burst 3 | leaky 2/s burst 2)")
	s, err := was.StateOf(legacyWords)
	require.NoError(t, err)
	at := time.Unix(0, legacyWords[0][2])
	future := []step{{0, 1}, {0, 5}, {0, 1}, {time.Millisecond, 1}, {300 * time.Millisecond, 4}, {time.Hour, 10}}
	bin, err := os.ReadFile(filepath.Join("testdata", "legacy", "burst0.bin"))
	require.NoError(t, err)
	js, err := os.ReadFile(filepath.Join("testdata", "legacy", "burst0.json"))
	require.NoError(t, err)
	for name, read := range map[string]func() (Policy, State, error){
		"bin":  func() (Policy, State, error) { return ReadSnapshot(bin) },
		"json": func() (Policy, State, error) { return ReadSnapshotJSON(js) },
	} {
		p, got, err := read()
		require.NoError(t, err, name)
		require.True(t, p.Spec().Equal(was.Spec()), "%s: read as %s", name, p)
		require.Equal(t, legacyWords, p.Words(got), name)
		sameAnswers(t, p.Limiter(got), was.Limiter(s), at, future)
	}
	var typedBin, typedJSON And[GCRA, Or[TokenBucket, LeakyBucket]]
	require.NoError(t, typedBin.UnmarshalBinary(bin))
	require.NoError(t, json.Unmarshal(js, &typedJSON))
	sameAnswers(t, Dynamic(typedBin), was.Limiter(s), at, future)
	sameAnswers(t, Dynamic(typedJSON), was.Limiter(s), at, future)
}

// TestLegacyBurstsCarriedOver: read under the same notation now, where each burst left to its
// default is 1, the State of testdata/legacy is one the policy could never reach (its GCRA is
// 400ms ahead, where a burst of 1 allows 100ms). DecodeState, whose encoding names the policy by
// its notation alone, reads it under the policy it was written under and carries it over: the
// GCRA holds 1 token, not its 6, and no leaf admits more than its new burst. A snapshot, which
// names its bursts, reads back as written, and a store's Continue to the new policy carries it
// over alike.
func TestLegacyBurstsCarriedOver(t *testing.T) {
	was := MustCompile("gcra 10/s burst 10 & (token 3/s burst 3 | leaky 2/s burst 2)")
	now := MustCompile("gcra 10/s & (token 3/s | leaky 2/s)")
	at := time.Unix(0, legacyWords[0][2])
	_, err := now.StateOf(legacyWords)
	require.ErrorIs(t, err, ErrCorrupt, "the words are beyond the new bursts")

	enc, err := os.ReadFile(filepath.Join("testdata", "legacy", "burst0-state.bin"))
	require.NoError(t, err)
	got, err := now.DecodeState(enc)
	require.NoError(t, err)
	held, err := was.StateOf(legacyWords)
	require.NoError(t, err)
	require.Equal(t, now.Words(now.Continue(was, held, at)), now.Words(got))
	_, err = now.DecodeState(now.AppendState(nil, got))
	require.NoError(t, err, "carried over, it encodes as a state of the new policy")

	bin, err := os.ReadFile(filepath.Join("testdata", "legacy", "burst0.bin"))
	require.NoError(t, err)
	sp, snapped, err := ReadSnapshot(bin)
	require.NoError(t, err)
	require.True(t, sp.DecidesLike(was))
	for name, s := range map[string]State{"DecodeState": got, "Continue": now.Continue(sp, snapped, at)} {
		require.Equal(t, int64(1), now.c.leaves[0].status(&s, kernel.FromTime(at)).Remaining, "%s: the GCRA's tokens", name)
		boundedLeaves(t, now, s) // each leaf admits at most its new burst
	}
}
