package typed

import (
	"encoding"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/kernel"
	"github.com/numerus-closus/numerus/internal/limits"
)

// history debits l along a timeline from t0 and returns where it ended, and when.
func history[L Limiter[L]](l L, steps []step) (L, time.Time) {
	at := t0
	for _, s := range steps {
		at = at.Add(s.delta)
		l, _, _ = l.DebitN(at, s.cost)
	}
	return l, at
}

// checkRoundTrip is the round-trip law for L: after any history, the limiter restored from its
// binary or JSON snapshot answers exactly like the original on every future timeline, and saves
// to the same bytes.
func checkRoundTrip[L Limiter[L]](t *testing.T, gen func(*rapid.T) Spec) {
	t.Helper()
	rapid.Check(t, func(t *rapid.T) {
		l, err := FromSpec[L](gen(t))
		require.NoError(t, err)
		l, at := history(l, genTimeline(t))
		bin, err := any(l).(encoding.BinaryMarshaler).MarshalBinary()
		require.NoError(t, err)
		var fromBin L
		require.NoError(t, any(&fromBin).(encoding.BinaryUnmarshaler).UnmarshalBinary(bin))
		again, err := any(fromBin).(encoding.BinaryMarshaler).MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, bin, again)
		js, err := json.Marshal(l)
		require.NoError(t, err)
		var fromJSON L
		require.NoError(t, json.Unmarshal(js, &fromJSON))
		future := genTimeline(t)
		sameAnswers(t, Dynamic(fromBin), Dynamic(l), at, future)
		sameAnswers(t, Dynamic(fromJSON), Dynamic(l), at, future)
	})
}

func TestRoundTrip(t *testing.T) {
	t.Run("gcra", func(t *testing.T) { checkRoundTrip[GCRA](t, leafGen(AlgoGCRA)) })
	t.Run("token", func(t *testing.T) { checkRoundTrip[TokenBucket](t, leafGen(AlgoToken)) })
	t.Run("leaky", func(t *testing.T) { checkRoundTrip[LeakyBucket](t, leafGen(AlgoLeaky)) })
	t.Run("finite", func(t *testing.T) { checkRoundTrip[FiniteBucket](t, leafGen(AlgoFinite)) })
	t.Run("window", func(t *testing.T) { checkRoundTrip[FixedWindow](t, leafGen(AlgoWindow)) })
	t.Run("count", func(t *testing.T) { checkRoundTrip[SlidingWindowCount](t, leafGen(AlgoCount)) })
	t.Run("sliding", func(t *testing.T) { checkRoundTrip[SlidingWindow](t, leafGen(AlgoSliding)) })
	t.Run("buckets", func(t *testing.T) { checkRoundTrip[SlidingWindow](t, leafGen(AlgoBuckets)) })
	t.Run("and", func(t *testing.T) {
		checkRoundTrip[And[GCRA, And[FixedWindow, SlidingWindow]]](t, pair(AlgoAnd, leafGen(AlgoGCRA),
			pair(AlgoAnd, leafGen(AlgoWindow), leafGen(AlgoSliding))))
	})
	t.Run("or", func(t *testing.T) {
		checkRoundTrip[Or[TokenBucket, SlidingWindowCount]](t, pair(AlgoOr, leafGen(AlgoToken), leafGen(AlgoCount)))
	})
}

// TestStateRoundTrip: the same law for a Policy's State, through AppendState and DecodeState and
// through Words and StateOf.
func TestStateRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p, err := Compile(genSpec(t, 3))
		require.NoError(t, err)
		s, at := p.Fresh(), t0
		for _, st := range genTimeline(t) {
			at = at.Add(st.delta)
			s, _, _ = p.DebitN(s, at, st.cost)
		}
		enc := p.AppendState(nil, s)
		fromBin, err := p.DecodeState(enc)
		require.NoError(t, err)
		require.Equal(t, enc, p.AppendState(nil, fromBin))
		fromWords, err := p.StateOf(p.Words(s))
		require.NoError(t, err)
		future := genTimeline(t)
		sameAnswers(t, p.Limiter(fromBin), p.Limiter(s), at, future)
		sameAnswers(t, p.Limiter(fromWords), p.Limiter(s), at, future)
	})
}

// TestPolicySnapshot: the round-trip law for a Policy and its State through AppendSnapshot and
// SnapshotJSON, which write what a typed limiter of the same spec and state writes; and the
// limiters of Policy.Limiter and Dynamic save themselves, after debits too, so that one held as a
// numerus.Limiter can be saved.
func TestPolicySnapshot(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p, err := Compile(genSpec(t, 3))
		require.NoError(t, err)
		l, at := p.Limiter(p.Fresh()), t0
		for _, st := range genTimeline(t) {
			at = at.Add(st.delta)
			l, _, _ = l.DebitN(at, st.cost)
		}
		bin, err := l.(encoding.BinaryMarshaler).MarshalBinary()
		require.NoError(t, err)
		pb, sb, err := ReadSnapshot(bin)
		require.NoError(t, err)
		again, err := pb.AppendSnapshot([]byte("x"), sb)
		require.NoError(t, err)
		require.Equal(t, append([]byte("x"), bin...), again)
		js, err := json.Marshal(l)
		require.NoError(t, err)
		pj, sj, err := ReadSnapshotJSON(js)
		require.NoError(t, err)
		jsAgain, err := pj.SnapshotJSON(sj)
		require.NoError(t, err)
		require.JSONEq(t, string(js), string(jsAgain))
		future := genTimeline(t)
		sameAnswers(t, pb.Limiter(sb), l, at, future)
		sameAnswers(t, pj.Limiter(sj), l, at, future)
	})
}

func TestDynamicSnapshot(t *testing.T) {
	g, err := NewGCRA(numerus.PerSecond(10), 5)
	require.NoError(t, err)
	g, _, _ = g.DebitN(t0, 3)
	d, _, ok := Dynamic(g).DebitN(t0, 1)
	require.True(t, ok)
	g, _, _ = g.DebitN(t0, 1)
	want, err := g.MarshalBinary()
	require.NoError(t, err)
	got, err := d.(encoding.BinaryAppender).AppendBinary(nil)
	require.NoError(t, err)
	require.Equal(t, want, got)
	wantJSON, err := g.MarshalJSON()
	require.NoError(t, err)
	gotJSON, err := json.Marshal(d)
	require.NoError(t, err)
	require.JSONEq(t, string(wantJSON), string(gotJSON))
	p, s, err := ReadSnapshot(got)
	require.NoError(t, err)
	fromPolicy, err := p.AppendSnapshot(nil, s)
	require.NoError(t, err)
	require.Equal(t, want, fromPolicy, "a Policy writes what the typed limiter of its spec writes")
	_, err = Policy{}.AppendSnapshot(nil, State{})
	require.Error(t, err)
	_, err = Policy{}.SnapshotJSON(State{})
	require.Error(t, err)
}

// TestSnapshotRefusesForeignStates: a State of another policy, which a Policy's debits read as
// their own, is not saved as one of p's when p could never reach it: a snapshot written is a
// snapshot read back. (A log is cut to p's limit first, as p reads it, and saves so.)
func TestSnapshotRefusesForeignStates(t *testing.T) {
	for _, c := range [][2]string{{"finite 2", "finite 100"}, {"token 1/s burst 10", "token 1/s burst 1000"},
		{"window 5/m", "window 100/m"}} {
		p, other := MustCompile(c[0]), MustCompile(c[1])
		s, _, ok := other.DebitN(other.Fresh(), t0, 50) // 50 taken, 50 left: beyond p either way
		require.True(t, ok)
		_, err := p.AppendSnapshot(nil, s)
		require.ErrorIs(t, err, ErrCorrupt, "%s in a state of %s", c[0], c[1])
		_, err = p.SnapshotJSON(s)
		require.ErrorIs(t, err, ErrCorrupt)
		_, err = p.Limiter(s).(encoding.BinaryMarshaler).MarshalBinary()
		require.ErrorIs(t, err, ErrCorrupt)
		saved, err := p.AppendSnapshot(nil, p.Fresh())
		require.NoError(t, err)
		_, _, err = ReadSnapshot(saved)
		require.NoError(t, err)
	}
}

// snap builds a snapshot by hand: version, spec, and the words of each leaf.
func snap(sp Spec, words ...[]int64) []byte {
	b := appendSpec([]byte{Version}, sp)
	i := 0
	sp.leaves(func(l Spec) {
		b = appendWords(b, l.Algo.kind(), words[i])
		i++
	})
	return b
}

func spec(text string) Spec {
	sp, err := Parse(text)
	if err != nil {
		panic(err)
	}
	return sp
}

// TestDecodeRejects: impossible states and malformed input are errors, never a limiter nor a
// panic.
func TestDecodeRejects(t *testing.T) {
	last := t0.UnixNano()
	sec := int64(time.Second)
	cases := []struct {
		name string
		data []byte
		into encoding.BinaryUnmarshaler
		want error
	}{
		{"empty", nil, new(GCRA), ErrCorrupt},
		{"unknown version", append([]byte{2}, snap(spec("gcra 1/s"), []int64{last, 0, last})[1:]...), new(GCRA), ErrCorrupt},
		{"trailing byte", append(snap(spec("gcra 1/s"), []int64{last, 0, last}), 0), new(GCRA), ErrCorrupt},
		{"unknown algorithm", []byte{Version, 42, 2, 2, 2}, new(GCRA), ErrCorrupt},
		{"invalid policy", snap(Spec{Algo: AlgoGCRA, Count: 1, Period: -1}, []int64{last, 0, last}), new(GCRA), numerus.ErrInvalidArgument},
		{"other type", snap(spec("token 1/s"), []int64{sec, last}), new(GCRA), ErrMismatch},
		{"tat beyond the burst", snap(spec("gcra 1/s burst 2"), []int64{last + 2*sec + 1, 0, last}), new(GCRA), ErrCorrupt},
		{"tat fraction", snap(spec("gcra 3/s"), []int64{last, 3, last}), new(GCRA), ErrCorrupt},
		{"last never", snap(spec("gcra 1/s"), []int64{last, 0, 1<<63 - 1}), new(GCRA), ErrCorrupt},
		{"tokens above capacity", snap(spec("token 1/s burst 2"), []int64{2*sec + 1, last}), new(TokenBucket), ErrCorrupt},
		{"negative tokens", snap(spec("token 1/s"), []int64{-1, last}), new(TokenBucket), ErrCorrupt},
		{"level above capacity", snap(spec("leaky 1/s"), []int64{sec + 1, last}), new(LeakyBucket), ErrCorrupt},
		{"finite left above size", snap(spec("finite 3"), []int64{4}), new(FiniteBucket), ErrCorrupt},
		{"window count above limit", snap(spec("window 5/s"), []int64{last, 6, last}), new(FixedWindow), ErrCorrupt},
		{"window start not last's", snap(spec("window 5/s"), []int64{last - sec, 1, last}), new(FixedWindow), ErrCorrupt},
		{"count estimate above limit", snap(spec("count 5/s"), []int64{last, 5, 5, last}), new(SlidingWindowCount), ErrCorrupt},
		{"log unsorted", snap(spec("sliding 5/s"), []int64{last, last, 1, last - 1, 1}), new(SlidingWindow), ErrCorrupt},
		{"log over limit", snap(spec("sliding 5/s"), []int64{last, last - 1, 3, last, 3}), new(SlidingWindow), ErrCorrupt},
		{"log entry after last", snap(spec("sliding 5/s"), []int64{last, last + 1, 1}), new(SlidingWindow), ErrCorrupt},
		{"log entry expired", snap(spec("sliding 5/s"), []int64{last, last - sec, 1}), new(SlidingWindow), ErrCorrupt},
		{"log entry unrounded", snap(spec("buckets 5/s in 5"), []int64{last, last + 1, 1}), new(SlidingWindow), ErrCorrupt},
		{"log empty entry", snap(spec("sliding 5/s"), []int64{last, last, 0}), new(SlidingWindow), ErrCorrupt},
		{"and of other shape", snap(spec("1/s | 2/s"), []int64{last, 0, last}, []int64{last, 0, last}), new(And[GCRA, GCRA]), ErrMismatch},
		{"huge entry count", append(appendSpec([]byte{Version}, spec("sliding 5/s")), 2, 0xff, 0xff, 0xff, 0xff, 0x0f), new(SlidingWindow), ErrCorrupt},
		{"algorithm code past the last", []byte{Version, byte(kindOr) + 1, 2, 2, 2}, new(GCRA), ErrCorrupt},
		{"log entries at one instant", snap(spec("sliding 5/s"), []int64{last, last - 1, 1, last - 1, 1}), new(SlidingWindow), ErrCorrupt},
		{"bucketed log entries at one instant", snap(spec("buckets 5/s in 5"), []int64{last, last, 1, last, 1}), new(SlidingWindow), ErrCorrupt},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			require.NotPanics(t, func() { err = c.into.UnmarshalBinary(c.data) })
			require.Error(t, err)
			assert.ErrorIs(t, err, c.want)
		})
	}
}

// TestDecodeTruncated: every strict prefix of a valid snapshot is an error, and leaves the
// destination unchanged.
func TestDecodeTruncated(t *testing.T) {
	l := numerus.Must(FromSpec[And[GCRA, SlidingWindow]](spec("gcra 10/s burst 5 & sliding 3/s")))
	l, _ = history(l, []step{{0, 1}, {time.Millisecond, 1}})
	data, err := l.MarshalBinary()
	require.NoError(t, err)
	for n := range len(data) {
		var got And[GCRA, SlidingWindow]
		err := got.UnmarshalBinary(data[:n])
		require.ErrorIs(t, err, ErrCorrupt, "prefix %d", n)
		require.Equal(t, And[GCRA, SlidingWindow]{}, got)
	}
}

func TestDecodeJSONRejects(t *testing.T) {
	cases := map[string]string{
		"unknown version": `{"version":2,"policy":"gcra 1/s","state":[[0,0,0]]}`,
		"unknown field":   `{"version":1,"policy":"gcra 1/s","state":[[0,0,0]],"x":1}`,
		"missing leaf":    `{"version":1,"policy":"gcra 1/s","state":[]}`,
		"extra leaf":      `{"version":1,"policy":"gcra 1/s","state":[[0,0,0],[1]]}`,
		"short words":     `{"version":1,"policy":"gcra 1/s","state":[[0,0]]}`,
		"beyond burst":    `{"version":1,"policy":"gcra 1/s","state":[[5000000000,0,0]]}`,
		"invalid policy":  `{"version":1,"policy":{"algo":"gcra","limit":"0/s"},"state":[[0,0,0]]}`,
		"not json":        `{"version":1,`,
		"trailing":        `{"version":1,"policy":"gcra 1/s","state":[[0,0,0]]} {}`,
		"trailing ]":      `{"version":1,"policy":"gcra 1/s","state":[[0,0,0]]}]`,
		"trailing }":      `{"version":1,"policy":"gcra 1/s","state":[[0,0,0]]} }`,
		"trailing ]]]x":   `{"version":1,"policy":"gcra 1/s","state":[[0,0,0]]}]]]x`,
	}
	for name, data := range cases {
		var g GCRA
		err := g.UnmarshalJSON([]byte(data))
		assert.ErrorIs(t, err, ErrCorrupt, name)
		_, _, err = ReadSnapshotJSON([]byte(data))
		assert.ErrorIs(t, err, ErrCorrupt, name)
	}
	var g GCRA
	require.NoError(t, g.UnmarshalJSON([]byte(`{"version":1,"policy":"gcra 1/s","state":[[0,0,0]]} `+"\t\r\n")), "white space after")
	var sp Spec
	for _, tail := range []string{"]", "}", "]]", " x"} {
		assert.Error(t, sp.UnmarshalJSON([]byte(`{"algo":"gcra","limit":"10/s"}`+tail)), "spec with %q after", tail)
	}
	require.NoError(t, sp.UnmarshalJSON([]byte(`{"algo":"gcra","limit":"10/s"} `)))
}

// TestStateRejects: a State decodes only under the policy it was saved with, and only if valid.
func TestStateRejects(t *testing.T) {
	p, q := MustCompile("10/s burst 5"), MustCompile("10/s burst 6")
	enc := p.AppendState(nil, p.Fresh())
	_, err := q.DecodeState(enc)
	assert.ErrorIs(t, err, ErrMismatch)
	for n := range len(enc) {
		_, err := p.DecodeState(enc[:n])
		assert.ErrorIs(t, err, ErrCorrupt, "prefix %d", n)
	}
	_, err = p.StateOf([][]int64{{t0.UnixNano() + int64(time.Second), 0, t0.UnixNano()}})
	assert.ErrorIs(t, err, ErrCorrupt)
	_, err = Policy{}.DecodeState(enc)
	assert.ErrorIs(t, err, ErrCorrupt)
}

// TestDecodeRejectsWhatTheChecksCatchAlone: states that only one check of the decoders turns
// away, each read by a typed limiter and by ReadSnapshot (binary) or ReadSnapshotJSON: a TAT at
// the never instant, a counter whose counts lie in a window after last, and a bucketed log entry
// not rounded to its sub-window but otherwise valid.
func TestDecodeRejectsWhatTheChecksCatchAlone(t *testing.T) {
	last, sec := t0.UnixNano(), int64(time.Second)
	cases := []struct {
		name string
		data []byte
		into interface{ UnmarshalBinary([]byte) error }
	}{
		{"tat never", snap(spec("gcra 1/s burst 2"), []int64{kernel.Never, 0, kernel.Never - 1}), new(GCRA)},
		{"count start after last", snap(spec("count 5/s"), []int64{last + sec, 0, 5, last}), new(SlidingWindowCount)},
		{"log entry unrounded, before last", snap(spec("buckets 5/s in 5"), []int64{last, last - 1, 1}), new(SlidingWindow)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.ErrorIs(t, c.into.UnmarshalBinary(c.data), ErrCorrupt)
			_, _, err := ReadSnapshot(c.data)
			assert.ErrorIs(t, err, ErrCorrupt)
		})
	}
}

// TestDecodeJSONRejectsExtraWords: a leaf's state holding more words than its algorithm keeps is
// corrupt, for a typed limiter and for ReadSnapshotJSON alike (the binary form cannot say it: the
// extra words are trailing bytes).
func TestDecodeJSONRejectsExtraWords(t *testing.T) {
	last := t0.UnixNano()
	for _, c := range []struct {
		policy string
		words  string
		into   interface{ UnmarshalJSON([]byte) error }
	}{
		{"gcra 1/s", fmt.Sprintf("[%d,0,%d,0]", last, last), new(GCRA)},
		{"token 1/s", fmt.Sprintf("[0,%d,0]", last), new(TokenBucket)},
		{"finite 3", "[3,3]", new(FiniteBucket)},
		{"count 5/s", fmt.Sprintf("[%d,0,0,%d,0]", last, last), new(SlidingWindowCount)},
	} {
		doc := fmt.Sprintf(`{"version":1,"policy":%q,"state":[%s]}`, c.policy, c.words)
		assert.ErrorIs(t, c.into.UnmarshalJSON([]byte(doc)), ErrCorrupt, doc)
		_, _, err := ReadSnapshotJSON([]byte(doc))
		assert.ErrorIs(t, err, ErrCorrupt, doc)
	}
}

// TestDecodeRejectsDeepNesting: a binary snapshot whose policy nests deeper than any valid one
// is corrupt as soon as it is read, whatever type it is read into: not another shape, and not
// read level by level first.
func TestDecodeRejectsDeepNesting(t *testing.T) {
	deep := func(levels int) []byte {
		sp, words := spec("gcra 1/s"), [][]int64{{0, 0, 0}}
		for range levels {
			sp = Spec{Algo: AlgoAnd, Of: []Spec{sp, spec("gcra 1/s")}}
			words = append(words, []int64{0, 0, 0})
		}
		return snap(sp, words...)
	}
	_, _, err := ReadSnapshot(deep(limits.Depth))
	require.NoError(t, err, "at the limit")
	var g GCRA
	err = g.UnmarshalBinary(deep(limits.Depth + 1))
	assert.ErrorIs(t, err, ErrCorrupt)
	assert.NotErrorIs(t, err, ErrMismatch)
	assert.ErrorContains(t, err, "nests more than 32 levels")
	_, _, err = ReadSnapshot(deep(limits.Depth + 1))
	assert.ErrorContains(t, err, "nests more than 32 levels")
}
