package keyed_test

import (
	"bytes"
	"context"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/kernel"
	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/memory"
	"github.com/numerus-closus/numerus/typed"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

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

// TestDefaultNamespace: without WithNamespace, keys are framed in "ratelimit".
func TestDefaultNamespace(t *testing.T) {
	l, err := keyed.New(memory.New(), numerus.Must(typed.Parse("1/s")), keyed.StringKey{})
	require.NoError(t, err)
	assert.Equal(t, keyed.DefaultNamespace, l.Namespace())
	assert.Equal(t, "ratelimit", keyed.DefaultNamespace)
	assert.Equal(t, "9:ratelimit:alice", l.Key("alice"))
}

// TestRequest: a Limiter's request carries the key, policy and cost its checks send, and its
// clock's instant, or none without a clock; a store deciding it decides as TryAcquire does.
func TestRequest(t *testing.T) {
	plain, err := keyed.New(memory.New(), numerus.Must(typed.Parse("1/s")), keyed.StringKey{})
	require.NoError(t, err)
	r := plain.Request("alice", 1)
	assert.Equal(t, plain.Key("alice"), string(r.Key))
	assert.Equal(t, plain.Policy(), r.Policy)
	assert.Equal(t, int64(1), r.Cost)
	assert.True(t, r.At.IsZero(), "no clock: the store's decides")

	now := t0
	store := memory.New()
	l, err := keyed.New(store, numerus.Must(typed.Parse("1/s")), keyed.IntKey[int]{}, keyed.WithNamespace("n"), keyed.WithClock(func() time.Time { return now }))
	require.NoError(t, err)
	r = l.Request(7, 1)
	assert.Equal(t, l.Key(7), string(r.Key))
	assert.Equal(t, int64(1), r.Cost)
	assert.True(t, r.At.Equal(t0), "the limiter's clock: %v", r.At)
	r.Key = append(r.Key, 'x') // the key is the request's own: appending changes no other
	assert.Equal(t, l.Key(7), string(l.Request(7, 1).Key))

	ctx := context.Background()
	d, err := store.Acquire(ctx, l.Request(7, 1))
	require.NoError(t, err)
	require.True(t, d.Allowed)
	d, err = l.TryAcquire(ctx, 7, 1) // the same subject, at the same instant: the token is gone
	require.NoError(t, err)
	assert.False(t, d.Allowed)
	now = now.Add(time.Second)
	d, err = store.Acquire(ctx, l.Request(7, 1))
	require.NoError(t, err)
	assert.True(t, d.Allowed, "a second later, by the limiter's clock")

	var zero keyed.Limiter[string]
	assert.Equal(t, keyed.Request{Cost: 1}, zero.Request("a", 1))
}

func TestPolicies(t *testing.T) {
	assert.Equal(t, "sliding 10/s", numerus.Must(typed.Parse("10/s")).String())
	assert.Equal(t, "sliding 60/m", numerus.Must(typed.Parse("60/m")).String())
	assert.Equal(t, "sliding 3600/h", numerus.Must(typed.Parse("3600/h")).String())
	assert.Equal(t, "gcra 100/s burst 200", numerus.Must(typed.Parse("gcra 100/s burst 200")).String())
	// 100/s sustained, bursting to 200: 200 at once after a quiet spell, then 100 a second.
	now := t0
	l, err := keyed.New(memory.New(), numerus.Must(typed.Parse("gcra 100/s burst 200")), keyed.StringKey{}, keyed.WithClock(func() time.Time { return now }))
	require.NoError(t, err)
	ctx := context.Background()
	count := func() (n int) {
		for {
			d, err := l.TryAcquire(ctx, "s", 1)
			require.NoError(t, err)
			if !d.Allowed {
				return n
			}
			n++
		}
	}
	assert.Equal(t, 200, count())
	now = now.Add(time.Second)
	assert.Equal(t, 100, count())
	now = now.Add(10 * time.Second)
	assert.Equal(t, 200, count())
}

// mostInAnySpan returns the most of the instants at (nanoseconds, sorted) that lie in one
// half-open span [t, t+span): a second index runs ahead of the first to the first instant
// beyond its span.
func mostInAnySpan(at []int64, span time.Duration) int {
	most, j := 0, 0
	for i := range at {
		for j < len(at) && at[j]-at[i] < int64(span) {
			j++
		}
		most = max(most, j-i)
	}
	return most
}

// TestPerPeriodAdmitsAtMostN: the notation's bare rates, n/s, n/m and n/h, admit at most n of a
// subject's checks in any span of their period (half-open), all n at once, on any timeline of
// one-token checks, and keep no subject from another's tokens.
func TestPerPeriodAdmitsAtMostN(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.Int64Range(1, 30).Draw(t, "n")
		per := rapid.SampledFrom([]time.Duration{time.Second, time.Minute, time.Hour}).Draw(t, "period")
		spec := typed.Spec{Algo: typed.AlgoSliding, Count: n, Period: per} // "n/s", "n/m", "n/h"
		now := t0
		l, err := keyed.New(memory.New(), spec, keyed.StringKey{}, keyed.WithClock(func() time.Time { return now }))
		require.NoError(t, err)
		interval := per / time.Duration(n)
		gaps := rapid.SliceOfN(rapid.OneOf(rapid.Just(time.Duration(0)), rapid.Just(time.Nanosecond),
			rapid.Just(interval-1), rapid.Just(interval), rapid.Just(interval+1),
			rapid.Custom(func(t *rapid.T) time.Duration {
				return time.Duration(rapid.Int64Range(0, int64(per)).Draw(t, "gap"))
			})), 1, int(3*n)+20).Draw(t, "gaps")
		admitted := map[string][]int64{}
		for i, g := range gaps {
			now = now.Add(g)
			subject := rapid.SampledFrom([]string{"a", "b"}).Draw(t, "subject"+strconv.Itoa(i))
			d, err := l.TryAcquire(context.Background(), subject, 1)
			require.NoError(t, err)
			if d.Allowed {
				admitted[subject] = append(admitted[subject], now.UnixNano())
			}
		}
		for subject, at := range admitted {
			require.LessOrEqual(t, mostInAnySpan(at, per), int(n), "%s, subject %s", spec, subject)
		}
		now = now.Add(per) // full again: all n at once
		for i := range n {
			d, err := l.TryAcquire(context.Background(), "a", 1)
			require.NoError(t, err)
			require.True(t, d.Allowed, "%s: check %d of %d at once", spec, i+1, n)
		}
	})
}

func TestDuration(t *testing.T) {
	var zero keyed.Duration
	assert.True(t, zero.IsNever())
	assert.NotEqual(t, keyed.DurationOf(0), zero, "never is not a zero wait")
	assert.Equal(t, "never", zero.String())
	_, ok := zero.Seconds()
	assert.False(t, ok)
	for d, want := range map[time.Duration]int64{0: 0, 1: 1, time.Second: 1, time.Second + 1: 2, 2500 * time.Millisecond: 3, -time.Second: 0} {
		s, ok := keyed.DurationOf(d).Seconds()
		assert.True(t, ok)
		assert.Equal(t, want, s, "%v", d)
	}
	assert.Equal(t, "1.5s", keyed.DurationOf(1500*time.Millisecond).String())
	var d keyed.Decision
	assert.False(t, d.Allowed)
	assert.True(t, d.RetryAfter.IsNever())
}

// TestSetOutcome: an outcome's instants become waits from the decision's instant, Never stays
// Never, remaining is clamped at zero, an admission waits zero, and every field is overwritten.
func TestSetOutcome(t *testing.T) {
	at := kernel.FromTime(t0)
	d := keyed.Decision{Allowed: true, Remaining: 9, Limit: 9, FullAfter: keyed.DurationOf(1), RetryAfter: keyed.DurationOf(1)}
	d.SetOutcome(typed.Outcome{Remaining: -2, Limit: 5, Retry: at + 1500, Full: kernel.Never, Next: at + 1500, Binds: 2}, false, at)
	assert.Equal(t, keyed.Decision{Limit: 5, FullAfter: keyed.Duration{}, RetryAfter: keyed.DurationOf(1500), RefillAfter: keyed.DurationOf(1500), Binding: 2}, d)
	d.SetOutcome(typed.Outcome{Remaining: 3, Limit: 5, Retry: at, Full: at + 7, Next: at + 3}, true, at)
	assert.Equal(t, keyed.Decision{Allowed: true, Remaining: 3, Limit: 5, FullAfter: keyed.DurationOf(7), RetryAfter: keyed.DurationOf(0), RefillAfter: keyed.DurationOf(3)}, d)
	d.SetOutcome(typed.Outcome{Limit: 5, Retry: kernel.Never, Full: at - 1, Next: kernel.Never}, false, at)
	assert.Equal(t, keyed.Decision{Limit: 5, FullAfter: keyed.DurationOf(0), RetryAfter: keyed.Duration{}, RefillAfter: keyed.Duration{}}, d)
	// Admitted at the last instant, whose number is Never's: the retry is still now.
	d.SetOutcome(typed.Outcome{Remaining: 1, Limit: 2, Retry: kernel.Never, Full: kernel.Never}, true, kernel.Never)
	assert.Equal(t, keyed.DurationOf(0), d.RetryAfter)
}

// TestNewRejects covers what New refuses besides invalid specs (the conformance kit has those):
// a nil store (a nil interface, or a nil pointer in one) or codec, and a store's own check.
func TestNewRejects(t *testing.T) {
	_, err := keyed.New[string](nil, numerus.Must(typed.Parse("1/s")), keyed.StringKey{})
	assert.ErrorIs(t, err, numerus.ErrInvalidArgument)
	_, err = keyed.New[string](memory.New(), numerus.Must(typed.Parse("1/s")), nil)
	assert.ErrorIs(t, err, numerus.ErrInvalidArgument)
	var none *memory.Store
	assert.NotPanics(t, func() { _, err = keyed.New(none, numerus.Must(typed.Parse("1/s")), keyed.StringKey{}) }, "a nil *memory.Store")
	assert.ErrorIs(t, err, numerus.ErrInvalidArgument)
	for name, codec := range map[string]keyed.Codec[string]{
		"a nil CodecFunc": keyed.CodecFunc[string](nil), "a nil pointer codec": (*prefixCodec)(nil),
	} {
		_, err = keyed.New(memory.New(), numerus.Must(typed.Parse("1/s")), codec)
		assert.ErrorIs(t, err, numerus.ErrInvalidArgument, name)
	}
	_, err = keyed.New(picky{memory.New()}, numerus.Must(typed.Parse("1/s")), keyed.StringKey{})
	assert.ErrorIs(t, err, numerus.ErrInvalidArgument)
	_, err = keyed.New(picky{memory.New()}, numerus.Must(typed.Parse("1/m")), keyed.StringKey{})
	assert.NoError(t, err)
	for param, err := range map[string]error{
		"store":  second(keyed.New[string](nil, numerus.Must(typed.Parse("1/s")), keyed.StringKey{})),
		"codec":  second(keyed.New[string](memory.New(), numerus.Must(typed.Parse("1/s")), nil)),
		"option": second(keyed.New(memory.New(), numerus.Must(typed.Parse("1/s")), keyed.StringKey{}, nil)),
	} {
		var pe *numerus.ParamError
		if assert.ErrorAs(t, err, &pe, param) {
			assert.Equal(t, param, pe.Param)
		}
	}
}

func second[T any](_ T, err error) error { return err }

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

// picky is a store that runs only policies of a minute or more.
type picky struct{ keyed.Store }

func (picky) CheckPolicy(p typed.Policy) error {
	if p.Spec().Period < time.Minute {
		return &numerus.ParamError{Param: "period", Problem: "must be a minute or more in this store"}
	}
	return nil
}

// TestBoundChecksCost: a limiter of string subjects on a store that binds them (the memory
// store) refuses a cost below 1 or above the capacity before the Bound sees it, as the other
// path does.
func TestBoundChecksCost(t *testing.T) {
	l, err := keyed.New(memory.New(), numerus.Must(typed.Parse("gcra 1/h burst 3")), keyed.StringKey{})
	require.NoError(t, err)
	for _, cost := range []int64{0, -1, 4, math.MinInt64, math.MaxInt64} {
		_, err := l.TryAcquire(context.Background(), "s", cost)
		assert.ErrorIs(t, err, numerus.ErrInvalidArgument, "cost %d", cost)
	}
}

// TestOnlyStringKeyBinds: a codec of strings other than StringKey is not bound past: its
// encoding decides the subject (here, "Alice" and "ALICE" are one).
func TestOnlyStringKeyBinds(t *testing.T) {
	lower := keyed.CodecFunc[string](func(dst []byte, s string) []byte { return append(dst, strings.ToLower(s)...) })
	l, err := keyed.New(memory.New(), numerus.Must(typed.Parse("1/h")), lower)
	require.NoError(t, err)
	require.True(t, admits(t, l, "Alice"))
	require.False(t, admits(t, l, "ALICE"), "the codec makes Alice and ALICE one subject")
}

// admits reports whether l admits one token of subject, failing on an error.
func admits[S any](t *testing.T, l keyed.Limiter[S], subject S) bool {
	t.Helper()
	d, err := l.TryAcquire(context.Background(), subject, 1)
	require.NoError(t, err)
	return d.Allowed
}
