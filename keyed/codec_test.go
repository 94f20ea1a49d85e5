package keyed_test

import (
	"bytes"
	"context"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/memory"
)

// TestFramingInjective is the property that no two (namespace, subject) pairs share a key, and
// that SplitKey recovers both from the key.
func TestFramingInjective(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		alpha := rapid.SampledFrom([]byte("0123456789:ab"))
		str := func(name string) []byte { return rapid.SliceOfN(alpha, 0, 8).Draw(t, name) }
		ns1, s1, ns2, s2 := str("ns1"), str("s1"), str("ns2"), str("s2")
		k1, k2 := keyed.AppendFramed(nil, string(ns1), s1), keyed.AppendFramed(nil, string(ns2), s2)
		same := bytes.Equal(ns1, ns2) && bytes.Equal(s1, s2)
		if bytes.Equal(k1, k2) != same {
			t.Fatalf("(%q, %q) and (%q, %q) give keys %q and %q", ns1, s1, ns2, s2, k1, k2)
		}
		ns, s, ok := keyed.SplitKey(k1)
		if !ok || ns != string(ns1) || !bytes.Equal(s, s1) {
			t.Fatalf("SplitKey(%q) = %q, %q, %v", k1, ns, s, ok)
		}
	})
}

func TestSplitKeyRejects(t *testing.T) {
	for _, k := range []string{"", ":", "a:b", "01:a:", "2:a:", "1:ab", "3:ab", "99999999999999999999:a:"} {
		_, _, ok := keyed.SplitKey([]byte(k))
		assert.False(t, ok, "%q", k)
	}
}

// TestIntKeyInjective is the property that IntKey encodes distinct integers of one type apart.
func TestIntKeyInjective(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := rapid.Int64().Draw(t, "a"), rapid.Int64().Draw(t, "b")
		ka, kb := keyed.IntKey[int64]{}.AppendKey(nil, a), keyed.IntKey[int64]{}.AppendKey(nil, b)
		if (a == b) != bytes.Equal(ka, kb) {
			t.Fatalf("%d and %d encode as %q and %q", a, b, ka, kb)
		}
		u, v := rapid.Uint64().Draw(t, "u"), rapid.Uint64().Draw(t, "v")
		if (u == v) != bytes.Equal(keyed.IntKey[uint64]{}.AppendKey(nil, u), keyed.IntKey[uint64]{}.AppendKey(nil, v)) {
			t.Fatalf("%d and %d encode alike", u, v)
		}
	})
}

func TestCodecs(t *testing.T) {
	assert.Equal(t, "-42", string(keyed.IntKey[int8]{}.AppendKey(nil, -42)))
	assert.Equal(t, "18446744073709551615", string(keyed.IntKey[uint64]{}.AppendKey(nil, math.MaxUint64)))
	assert.Equal(t, "-9223372036854775808", string(keyed.IntKey[int]{}.AppendKey(nil, math.MinInt)))
	assert.Equal(t, "x:\x00", string(keyed.BytesKey{}.AppendKey([]byte("x:"), []byte{0})))
	assert.Equal(t, "ab", string(keyed.StringKey{}.AppendKey([]byte("a"), "b")))
	type point struct{ x, y int32 }
	c := keyed.CodecFunc[point](func(dst []byte, p point) []byte {
		return strconv.AppendInt(append(strconv.AppendInt(dst, int64(p.x), 10), ','), int64(p.y), 10)
	})
	l, err := keyed.New(memory.New(), keyed.PerSecond(1), c, keyed.WithNamespace("grid"))
	require.NoError(t, err)
	assert.Equal(t, "4:grid:3,-4", l.Key(point{3, -4}))
}

// TestCodecsThatDoNotAppend: a codec that returns bytes of its own instead of appending to dst
// (against Codec's contract, but easy to write) still gets its subjects framed with the
// namespace, so two namespaces never share a subject, and the limiter never takes the memory it
// returned for a key buffer of its own, to overwrite it at a later check.
func TestCodecsThatDoNotAppend(t *testing.T) {
	ctx := context.Background()
	own := keyed.CodecFunc[string](func(_ []byte, s string) []byte { return []byte(s) })
	store := memory.New()
	a, err := keyed.New(store, keyed.PerHour(1), own, keyed.WithNamespace("a"), keyed.WithClock(func() time.Time { return t0 }))
	require.NoError(t, err)
	b, err := keyed.New(store, keyed.PerHour(1), own, keyed.WithNamespace("b"), keyed.WithClock(func() time.Time { return t0 }))
	require.NoError(t, err)
	require.NotEqual(t, a.Key("x"), b.Key("x"))
	require.Equal(t, string(keyed.AppendFramed(nil, "a", []byte("x"))), a.Key("x"))
	require.True(t, admits(t, a, "x"))
	require.True(t, admits(t, b, "x"), "namespace b shares namespace a's subject x")

	same := keyed.CodecFunc[[]byte](func(_ []byte, s []byte) []byte { return s })
	l, err := keyed.New(memory.New(), keyed.PerHour(1), same, keyed.WithNamespace("ns"))
	require.NoError(t, err)
	subject := make([]byte, 3, 64)
	copy(subject, "abc")
	for _, s := range [][]byte{subject, []byte("zzz"), []byte("yyy")} {
		_, err = l.TryAcquire(ctx, s, 1)
		require.NoError(t, err)
	}
	require.Equal(t, "abc", string(subject))
	require.Equal(t, make([]byte, 61), subject[3:64], "the limiter wrote into the subject's spare capacity")
}

// prefixCodec is a codec of a pointer type, which New must refuse as nil.
type prefixCodec struct{ prefix string }

func (c *prefixCodec) AppendKey(dst []byte, s string) []byte {
	return append(append(dst, c.prefix...), s...)
}
