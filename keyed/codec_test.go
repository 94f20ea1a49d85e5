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

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/memory"
	"github.com/numerus-closus/numerus/typed"
)

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
	l, err := keyed.New(memory.New(), numerus.Must(typed.Parse("1/s")), c, keyed.WithNamespace("grid"))
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
	a, err := keyed.New(store, numerus.Must(typed.Parse("1/h")), own, keyed.WithNamespace("a"), keyed.WithClock(func() time.Time { return t0 }))
	require.NoError(t, err)
	b, err := keyed.New(store, numerus.Must(typed.Parse("1/h")), own, keyed.WithNamespace("b"), keyed.WithClock(func() time.Time { return t0 }))
	require.NoError(t, err)
	require.NotEqual(t, a.Key("x"), b.Key("x"))
	require.Equal(t, "1:a:x", a.Key("x"))
	require.True(t, admits(t, a, "x"))
	require.True(t, admits(t, b, "x"), "namespace b shares namespace a's subject x")

	same := keyed.CodecFunc[[]byte](func(_ []byte, s []byte) []byte { return s })
	l, err := keyed.New(memory.New(), numerus.Must(typed.Parse("1/h")), same, keyed.WithNamespace("ns"))
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
