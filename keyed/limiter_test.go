package keyed_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/memory"
	"github.com/numerus-closus/numerus/typed"
)

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
