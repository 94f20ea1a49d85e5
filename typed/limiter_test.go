package typed

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
)

func TestConstructorsNameTheParameter(t *testing.T) {
	cases := []struct {
		name, param string
		err         error
	}{
		{"gcra rate", "rate tokens", second(NewGCRA(numerus.PerSecond(0), 1))},
		{"gcra burst", "burst", second(NewGCRA(numerus.PerSecond(1), 0))},
		{"token", "capacity", second(NewTokenBucket(-1, numerus.PerSecond(1)))},
		{"leaky", "rate period", second(NewLeakyBucket(1, numerus.Per(1, 0)))},
		{"finite", "size", second(NewFiniteBucket(0))},
		{"window", "window", second(NewFixedWindow(0, 1))},
		{"count", "limit", second(NewSlidingWindowCount(time.Second, 0))},
		{"sliding", "window", second(NewSlidingWindow(-time.Second, 1))},
		{"buckets", "windows", second(NewSlidingWindowBucketed(time.Second, 7, 1))},
	}
	for _, c := range cases {
		var pe *numerus.ParamError
		require.True(t, errors.As(c.err, &pe), c.name)
		assert.Equal(t, c.param, pe.Param, c.name)
		assert.ErrorIs(t, c.err, numerus.ErrInvalidArgument, c.name)
	}
}

func second[T any](_ T, err error) error { return err }

// TestZeroValuesDeny: the zero value of every typed limiter denies everything, with Never.
func TestZeroValuesDeny(t *testing.T) {
	check := func(name string, l numerus.Limiter) {
		_, from, ok := l.DebitN(t0, 1)
		assert.False(t, ok, name)
		assert.True(t, from.IsNever(), name)
		assert.Zero(t, l.Status(t0).Remaining, name)
	}
	check("gcra", Dynamic(GCRA{}))
	check("token", Dynamic(TokenBucket{}))
	check("leaky", Dynamic(LeakyBucket{}))
	check("finite", Dynamic(FiniteBucket{}))
	check("window", Dynamic(FixedWindow{}))
	check("count", Dynamic(SlidingWindowCount{}))
	check("sliding", Dynamic(SlidingWindow{}))
	check("and", Dynamic(And[GCRA, FixedWindow]{}))
	check("or", Dynamic(Or[GCRA, FixedWindow]{}))
	check("policy", Policy{}.Limiter(State{}))
	_, err := GCRA{}.MarshalBinary()
	assert.Error(t, err)
	_, err = And[GCRA, FixedWindow]{}.MarshalJSON()
	assert.Error(t, err)
}

// TestDynamicMixes: a typed limiter passed through Dynamic composes with numerus limiters.
func TestDynamicMixes(t *testing.T) {
	g := numerus.Must(NewGCRA(numerus.PerSecond(1), 1))
	w := numerus.Must(numerus.FixedWindow(time.Hour, 1, epoch))
	l := numerus.And(Dynamic(g), w)
	l, _, ok := l.Debit(t0)
	require.True(t, ok)
	_, from, ok := l.Debit(t0.Add(time.Second))
	require.False(t, ok)
	require.True(t, from.Equal(numerus.DebitableFrom(t0.Add(time.Hour))))
	assert.Equal(t, "gcra 1/s burst 1 & window 1/h", l.String())
}

func TestFromSpecMismatch(t *testing.T) {
	_, err := FromSpec[GCRA](MustParse(t, "token 1/s"))
	assert.ErrorIs(t, err, ErrMismatch)
	_, err = FromSpec[And[GCRA, GCRA]](MustParse(t, "1/s | 2/s"))
	assert.ErrorIs(t, err, ErrMismatch)
	_, err = FromSpec[GCRA](Spec{Algo: AlgoGCRA})
	assert.ErrorIs(t, err, numerus.ErrInvalidArgument)
}
