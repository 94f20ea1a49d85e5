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
