package typed

import (
	"encoding"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// boundedLeaves checks that no leaf of a decoded state admits more than its policy: debited one
// token at a time at an instant after everything it saw, each leaf admits at most its limit.
func boundedLeaves(t *testing.T, p Policy, s State) {
	c := p.c
	now := int64(0)
	for i := range c.leaves {
		now = max(now, c.leaves[i].last(&s))
	}
	for i := range c.leaves {
		lf := &c.leaves[i]
		st := lf.status(&s, now)
		require.LessOrEqual(t, st.Remaining, st.Limit, "leaf %d remaining", i)
		if lf.limit() > 1000 {
			continue
		}
		cur := s
		if cur.ext != nil {
			cur.own(c)
		}
		admitted := int64(0)
		for admitted <= lf.limit() {
			next := cur
			if next.ext != nil {
				next.own(c)
			}
			if _, ok := lf.debit(&cur, &next, now, 1); !ok {
				break
			}
			cur, admitted = next, admitted+1
		}
		require.LessOrEqual(t, admitted, lf.limit(), "leaf %d (%s) admitted more than its limit", i, lf.text)
	}
}

func seedSnapshots(f *testing.F) {
	for _, text := range []string{"gcra 10/s burst 5", "token 3/s burst 4 | count 5/s",
		"gcra 10/s burst 5 & (window 5/s & sliding 4/2s)", "buckets 5/s in 4", "finite 3"} {
		p := MustCompile(text)
		s, _, _ := p.DebitN(p.Fresh(), t0, 1)
		b, err := p.AppendSnapshot(nil, s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// FuzzSnapshot feeds arbitrary bytes to the binary decoders: they never panic, and whatever they
// accept admits no more than its policy.
func FuzzSnapshot(f *testing.F) {
	seedSnapshots(f)
	state := MustCompile("gcra 10/s burst 5 & window 5/s | sliding 4/2s")
	f.Fuzz(func(t *testing.T, data []byte) {
		if p, s, err := ReadSnapshot(data); err == nil {
			boundedLeaves(t, p, s)
			require.NoError(t, p.c.spec.Validate())
		}
		if s, err := state.DecodeState(data); err == nil {
			boundedLeaves(t, state, s)
		}
		for _, into := range []encoding.BinaryUnmarshaler{new(GCRA), new(TokenBucket), new(LeakyBucket),
			new(FiniteBucket), new(FixedWindow), new(SlidingWindowCount), new(SlidingWindow),
			new(And[GCRA, And[FixedWindow, SlidingWindow]]), new(Or[TokenBucket, SlidingWindowCount])} {
			_ = into.UnmarshalBinary(data)
		}
	})
}

// FuzzSnapshotJSON feeds arbitrary text to the JSON decoders, with the same promises.
func FuzzSnapshotJSON(f *testing.F) {
	f.Add(`{"version":1,"policy":"gcra 1/s","state":[[0,0,0]]}`)
	f.Add(`{"version":1,"policy":{"or":[{"algo":"sliding","limit":"3/s"},"count 2/m"]},"state":[[5,1,1,3,1],[0,0,1,5]]}`)
	f.Fuzz(func(t *testing.T, data string) {
		if p, s, err := ReadSnapshotJSON([]byte(data)); err == nil {
			boundedLeaves(t, p, s)
		}
		var sp Spec
		if json.Unmarshal([]byte(data), &sp) == nil && sp.Validate() == nil {
			_ = sp.String()
		}
		var l And[SlidingWindow, Or[GCRA, FixedWindow]]
		_ = json.Unmarshal([]byte(data), &l)
	})
}

// FuzzParse feeds arbitrary text to the notation parser: it never panics, and what it accepts is
// valid, compiles, and reads back the same from its String.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"10/s burst 20", "gcra 10/s burst 5 & window 1000/1h", "5/s | 100/min",
		"sliding 100/1m", "count 50/10s", "500/7d", "10/second;100/minute", "buckets 100/m in 6",
		"finite 100", "(5/s | 10/m) & leaky 3/1500ms burst 9", "10/x", "((1/s)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		sp, err := Parse(text)
		if err != nil {
			return
		}
		require.NoError(t, sp.Validate())
		back, err := Parse(sp.String())
		require.NoError(t, err, sp.String())
		require.True(t, sp.Equal(back), "%q read back as %q", sp, back)
		_, err = Compile(sp)
		require.NoError(t, err)
	})
}

// fuzzPolicies are the policies the state fuzzers decode under: every algorithm, periods that do
// not divide evenly, the longest periods, a policy that needs the extra block and one with logs.
var fuzzPolicies = []string{
	"gcra 10/s burst 5", "token 3/s burst 4", "leaky 7/1500ms burst 9", "finite 3", "window 5/s",
	"count 5/s", "sliding 4/2s", "buckets 5/s in 4",
	"gcra 3/7ns burst 2", "token 2/3ns burst 5", "leaky 5/3ns burst 2", "window 3/7ns", "count 4/7ns",
	"sliding 3/7ns", "buckets 6/9ns in 3",
	"window 3/106751d", "count 3/106751d", "sliding 3/106751d", "gcra 1000000/106751d burst 1", "gcra 3/106751d",
	"gcra 10/s burst 5 & window 5/s | sliding 4/2s",
	"token 1/7ns burst 3 & count 3/7ns & buckets 6/9ns in 3 & leaky 5/3ns & gcra 2/s",
}

// fuzzInstants are instants a trace may jump to, beside small steps: the ends of the range.
var fuzzInstants = []int64{math.MinInt64, math.MinInt64 + 1, -1, 0, 1, math.MaxInt64 - 2,
	math.MaxInt64 - 1, math.MaxInt64, t0.UnixNano()}

// trace runs the debits data describes on a fresh state of p, three bytes each: how far to move
// the clock (or, with its top bit set, which of fuzzInstants to jump to), and a cost.
func trace(p Policy, data []byte) (State, int64) {
	s, at := p.Fresh(), t0.UnixNano()
	for ; len(data) >= 3; data = data[3:] {
		step := int64(binary.BigEndian.Uint16(data))
		if step&0x8000 != 0 {
			at = fuzzInstants[int(step)%len(fuzzInstants)]
		} else {
			at += step * step * step // up to 3.5e13 ns: 9.7 hours
		}
		if at == math.MaxInt64 { // Never is no instant
			at--
		}
		in(p).DebitIn(&s, at, int64(data[2]%8)+1)
	}
	return s, at
}

func corruptOrMismatch(t *testing.T, err error, what string) {
	require.True(t, errors.Is(err, ErrCorrupt) || errors.Is(err, ErrMismatch),
		"%s: %v matches neither ErrCorrupt nor ErrMismatch", what, err)
}

// FuzzDecodeState feeds arbitrary bytes to Policy.DecodeState under several policies, and checks
// that every state a trace of debits reaches encodes and decodes back to itself.
//
// Decoding: it never panics; an error matches ErrCorrupt or ErrMismatch; an accepted state admits
// no more than its policy, re-encodes to bytes that decode to the same words, its encoding is a
// fixed point, and it can be snapshot and read back.
//
// Round trip: a state that debits reached is one its policy can reach, so AppendState,
// AppendSnapshot and SnapshotJSON all hold it and their readers give it back, deciding alike.
func FuzzDecodeState(f *testing.F) {
	for i, text := range fuzzPolicies {
		p := MustCompile(text)
		s, _ := trace(p, []byte{0, 0, 1, 0, 10, 2, 0, 0, 7})
		f.Add(uint8(i), p.AppendState(nil, s))
		f.Add(uint8(i), p.AppendState(nil, p.Fresh()))
		if was, ok := p.legacy(); ok { // a state encoded when the default burst was the count
			s, _ := trace(was, []byte{0, 0, 1, 0, 0, 1, 0, 1, 1})
			f.Add(uint8(i), p.AppendState(nil, s))
		}
		f.Add(uint8(i), []byte{0, 1, 0, 0, 0x80, 3, 1, 0x10, 0, 5, 0x88, 0, 1, 0xff, 0xff, 3})
	}
	policies := make([]Policy, len(fuzzPolicies))
	for i, text := range fuzzPolicies {
		policies[i] = MustCompile(text)
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		p := policies[int(which)%len(policies)]

		// Decoding arbitrary bytes.
		if s, err := p.DecodeState(data); err != nil {
			corruptOrMismatch(t, err, "DecodeState")
		} else {
			boundedLeaves(t, p, s)
			enc := p.AppendState(nil, s)
			back, err := p.DecodeState(enc)
			require.NoError(t, err, "a decoded state re-encoded as %x", enc)
			require.Equal(t, p.Words(s), p.Words(back))
			require.Equal(t, enc, p.AppendState(nil, back), "the encoding is not a fixed point")
			_, err = p.AppendSnapshot(nil, s)
			require.NoError(t, err, "a decoded state does not snapshot")
		}

		// Round trips of a reachable state.
		s, at := trace(p, data)
		enc := p.AppendState(nil, s)
		back, err := p.DecodeState(enc)
		require.NoError(t, err, "a reachable state (%v) does not decode from %x", p.Words(s), enc)
		require.Equal(t, p.Words(s), p.Words(back))
		snap, err := p.AppendSnapshot(nil, s)
		require.NoError(t, err, "a reachable state (%v) does not snapshot", p.Words(s))
		rp, rs, err := ReadSnapshot(snap)
		require.NoError(t, err)
		require.True(t, rp.Spec().Equal(p.Spec().explicit()), "snapshots write the bursts out")
		require.Equal(t, p.Words(s), rp.Words(rs))
		js, err := p.SnapshotJSON(s)
		require.NoError(t, err)
		jp, jstate, err := ReadSnapshotJSON(js)
		require.NoError(t, err, "%s", js)
		require.True(t, jp.Spec().Equal(p.Spec().explicit()))
		require.Equal(t, p.Words(s), jp.Words(jstate))
		for _, later := range []int64{at, at + 1, at + 1e9, at + 1e12} {
			if later < at || later == math.MaxInt64 {
				continue
			}
			a, b := s, back
			oa, oka := in(p).DebitIn(&a, later, 1)
			ob, okb := in(p).DebitIn(&b, later, 1)
			require.Equal(t, oka, okb, "at %d", later)
			require.Equal(t, oa, ob, "at %d", later)
		}
	})
}

// fuzzTyped are the typed limiters the snapshot fuzzer decodes into.
func fuzzTyped() []interface {
	encoding.BinaryUnmarshaler
	encoding.BinaryMarshaler
	json.Unmarshaler
	json.Marshaler
} {
	return []interface {
		encoding.BinaryUnmarshaler
		encoding.BinaryMarshaler
		json.Unmarshaler
		json.Marshaler
	}{new(GCRA), new(TokenBucket), new(LeakyBucket), new(FiniteBucket), new(FixedWindow),
		new(SlidingWindowCount), new(SlidingWindow), new(And[GCRA, And[FixedWindow, SlidingWindow]]),
		new(Or[TokenBucket, SlidingWindowCount])}
}

// FuzzTypedSnapshot feeds arbitrary bytes to ReadSnapshot and to every typed limiter's
// UnmarshalBinary and UnmarshalJSON. An error matches ErrCorrupt (ReadSnapshot) or ErrCorrupt or
// ErrMismatch (the typed decoders); what a typed decoder accepts ReadSnapshot accepts too, with
// the same words; and whatever is accepted saves again to a snapshot that reads back the same,
// in both forms, and is a fixed point.
func FuzzTypedSnapshot(f *testing.F) {
	seedSnapshots(f)
	for _, text := range []string{"gcra 10/s burst 5 & (window 5/s & sliding 4/2s)",
		"token 3/s burst 4 | count 5/s", "sliding 3/7ns", "buckets 6/9ns in 3", "count 3/106751d"} {
		p := MustCompile(text)
		s, _ := trace(p, []byte{0, 0, 1, 0, 10, 2, 0, 0, 7, 0x80, 4, 1})
		b, err := p.AppendSnapshot(nil, s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		js, err := p.SnapshotJSON(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(js)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, s, err := ReadSnapshot(data)
		if err != nil {
			require.ErrorIs(t, err, ErrCorrupt)
		} else {
			b, err := p.AppendSnapshot(nil, s)
			require.NoError(t, err)
			p2, s2, err := ReadSnapshot(b)
			require.NoError(t, err)
			require.True(t, p.Spec().Equal(p2.Spec()))
			require.Equal(t, p.Words(s), p2.Words(s2))
			b2, err := p2.AppendSnapshot(nil, s2)
			require.NoError(t, err)
			require.Equal(t, b, b2)
		}
		jp, js, jerr := ReadSnapshotJSON(data)
		if jerr != nil {
			require.ErrorIs(t, jerr, ErrCorrupt)
		} else {
			b, err := jp.SnapshotJSON(js)
			require.NoError(t, err)
			jp2, js2, err := ReadSnapshotJSON(b)
			require.NoError(t, err)
			require.True(t, jp.Spec().Equal(jp2.Spec()))
			require.Equal(t, jp.Words(js), jp2.Words(js2))
		}
		for i, into := range fuzzTyped() {
			if err := into.UnmarshalBinary(data); err != nil {
				corruptOrMismatch(t, err, "UnmarshalBinary")
			} else {
				require.NoError(t, err)
				require.NoError(t, ReadSnapshotErr(data), "typed %d accepts what ReadSnapshot refuses", i)
				b, err := into.MarshalBinary()
				require.NoError(t, err)
				again := fuzzTyped()[i]
				require.NoError(t, again.UnmarshalBinary(b))
				b2, err := again.MarshalBinary()
				require.NoError(t, err)
				require.Equal(t, b, b2, "typed %d: the snapshot is not a fixed point", i)
				rp, rs, err := ReadSnapshot(b)
				require.NoError(t, err)
				require.Equal(t, p.Words(s), rp.Words(rs), "typed %d reads other words than ReadSnapshot", i)
				js, err := into.MarshalJSON()
				require.NoError(t, err)
				viaJSON := fuzzTyped()[i]
				require.NoError(t, viaJSON.UnmarshalJSON(js), "%s", js)
				b3, err := viaJSON.MarshalBinary()
				require.NoError(t, err)
				require.Equal(t, b, b3, "typed %d: binary and JSON snapshots disagree", i)
			}
			if err := into.UnmarshalJSON(data); err != nil {
				corruptOrMismatch(t, err, "UnmarshalJSON")
			} else {
				require.NoError(t, jerr, "typed %d accepts JSON that ReadSnapshotJSON refuses", i)
				js, err := into.MarshalJSON()
				require.NoError(t, err)
				again := fuzzTyped()[i]
				require.NoError(t, again.UnmarshalJSON(js), "%s", js)
				js2, err := again.MarshalJSON()
				require.NoError(t, err)
				require.Equal(t, string(js), string(js2))
			}
		}
	})
}

// ReadSnapshotErr is ReadSnapshot's error alone.
func ReadSnapshotErr(data []byte) error {
	_, _, err := ReadSnapshot(data)
	return err
}

// FuzzSpecJSON feeds arbitrary text to Spec.UnmarshalJSON. It never panics, what it reads called
// directly is valid JSON (its reader is its own, not encoding/json's), and a spec it reads that
// is valid writes back (MarshalJSON, and String as a JSON string) to JSON that reads as the same
// spec, and compiles.
func FuzzSpecJSON(f *testing.F) {
	for _, s := range []string{`"10/s burst 20 & window 1000/h"`, `{"algo":"gcra","limit":"10/s","burst":5}`,
		`{"and":[{"algo":"window","limit":"5/s"},"sliding 4/2s"]}`, `{"or":["count 2/m",{"algo":"finite","limit":"3"}]}`,
		`{"algo":"buckets","limit":"100/m","in":6}`, `{"limit":"3/7ns"}`, `{"and":[]}`, `null`, `"(1/s"`,
		`{"and":[{"or":["1/s","2/s"]},{"and":["3/s","4/s"]}]}`, ` {"algo":"leaky","limit":"5 / 3 ns","burst":2} `} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		var direct Spec
		if direct.UnmarshalJSON([]byte(data)) == nil {
			require.True(t, json.Valid([]byte(data)), "read JSON that is not valid")
		}
		var sp Spec
		if err := json.Unmarshal([]byte(data), &sp); err != nil || sp.Validate() != nil {
			return
		}
		b, err := json.Marshal(sp)
		require.NoError(t, err)
		var back Spec
		require.NoError(t, json.Unmarshal(b, &back), "%s", b)
		require.True(t, sp.Equal(back), "%s read back as %s", b, back)
		str, err := json.Marshal(sp.String())
		require.NoError(t, err)
		var fromString Spec
		require.NoError(t, json.Unmarshal(str, &fromString), "%s", str)
		require.True(t, sp.Equal(fromString), "%s read back as %s", str, fromString)
		_, err = Compile(sp)
		require.NoError(t, err)
	})
}
