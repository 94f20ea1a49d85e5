package typed

import (
	"encoding"
	"encoding/json"
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
