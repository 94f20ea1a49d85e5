package redisstore_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/redisstore"
)

// TestEncoding: the script's encoding is canonical (reduced rates, origins within one window) and
// compact.
func TestEncoding(t *testing.T) {
	for _, tc := range []struct {
		p    redisstore.Policy
		want string
	}{
		{numerus.Must(redisstore.GCRA(numerus.PerSecond(10), 5)), "g 1 100000 5"},
		{numerus.Must(redisstore.GCRA(numerus.Per(20, 2*time.Second), 5)), "g 1 100000 5"},
		{numerus.Must(redisstore.TokenBucket(7, numerus.Per(3, time.Second))), "t 3 1000000 7"},
		{numerus.Must(redisstore.LeakyBucket(7, numerus.Every(1500*time.Microsecond))), "l 1 1500 7"},
		{numerus.Must(redisstore.FiniteBucket(9)), "f 9"},
		{numerus.Must(redisstore.FixedWindow(time.Second, 4, t0.Add(250*time.Millisecond))), "w 1000000 4 250000"},
		{numerus.Must(redisstore.FixedWindow(time.Second, 4, t0.Add(-750*time.Millisecond))), "w 1000000 4 250000"},
		{numerus.Must(redisstore.SlidingWindowCount(time.Minute, 4, t0)), "c 60000000 4 0"},
		{numerus.Must(redisstore.SlidingWindow(time.Second, 4)), "s 1000000 4"},
		{numerus.Must(redisstore.SlidingWindowBucketed(time.Second, 1, 4)), "b 1000000 4 1000000"},
		{numerus.Must(redisstore.SlidingWindowBucketed(time.Second, 10, 4)), "b 1000000 4 100000"},
		{numerus.Must(redisstore.AllOf(eachKind[3], numerus.Must(redisstore.AnyOf(eachKind[3], eachKind[3])))), "& 2 f 3 | 2 f 3 f 3"},
		{numerus.Must(redisstore.AllOf(eachKind[3])), "f 3"},
	} {
		require.Equal(t, tc.want, redisstore.Encoding(tc.p), tc.p.String())
	}
}

// TestNames: a policy is named as numerus names the same limiter.
func TestNames(t *testing.T) {
	g := numerus.Must(numerus.GCRA(numerus.PerSecond(10), 3))
	w := numerus.Must(numerus.FixedWindow(time.Second, 3, t0))
	core := numerus.AllOf(g, numerus.AnyOf(w, g), numerus.AllOf(g, w))
	store := numerus.Must(redisstore.AllOf(eachKind[0],
		numerus.Must(redisstore.AnyOf(eachKind[4], eachKind[0])),
		numerus.Must(redisstore.AllOf(eachKind[0], eachKind[4]))))
	require.Equal(t, core.String(), store.String())
	require.Equal(t, "invalid (zero) policy", redisstore.Policy{}.String())
}

// TestInvalid: what numerus rejects, and what the script could not keep exact in integer
// microseconds below 2^53, fails with numerus.ErrInvalidArgument.
func TestInvalid(t *testing.T) {
	year := 365 * 24 * time.Hour
	deep := eachKind[0]
	for range 32 {
		deep = numerus.Must(redisstore.AllOf(deep, eachKind[1]))
	}
	for name, err := range map[string]error{
		"zero rate":            second(redisstore.GCRA(numerus.PerSecond(0), 1)),
		"zero burst":           second(redisstore.GCRA(numerus.PerSecond(1), 0)),
		"sub-µs period":        second(redisstore.GCRA(numerus.Per(1, 500), 1)),
		"fractional µs period": second(redisstore.TokenBucket(1, numerus.Per(1, 1500))),
		"burst·period > 2^53":  second(redisstore.GCRA(numerus.Every(time.Hour), 1<<33)),
		"refill > 71 years":    second(redisstore.LeakyBucket(80, numerus.Every(year))),
		"finite 2^53":          second(redisstore.FiniteBucket(1 << 53)),
		"window not in µs":     second(redisstore.FixedWindow(1500, 1, t0)),
		"window > 71 years":    second(redisstore.SlidingWindow(72*year, 1)),
		"start not in µs":      second(redisstore.FixedWindow(time.Second, 1, t0.Add(1))),
		"limit·window > 2^53":  second(redisstore.SlidingWindowCount(24*time.Hour, 104250, t0)),
		"sub-window not in µs": second(redisstore.SlidingWindowBucketed(3*time.Millisecond, 2000, 1)),
		"windows not dividing": second(redisstore.SlidingWindowBucketed(time.Second, 7, 1)),
		"limit 2^53":           second(redisstore.SlidingWindow(time.Second, 1<<53)),
		"empty and":            second(redisstore.AllOf()),
		"empty or":             second(redisstore.AnyOf()),
		"zero child":           second(redisstore.AnyOf(eachKind[0], redisstore.Policy{})),
		"lone zero child":      second(redisstore.AllOf(redisstore.Policy{})),
		"too deep":             second(redisstore.AllOf(deep, eachKind[0])), // 33 levels
	} {
		require.ErrorIs(t, err, numerus.ErrInvalidArgument, name)
	}
	_, err := redisstore.SlidingWindowCount(24*time.Hour, 104249, t0)
	require.NoError(t, err, "104249 · 8.64e10 µs is within 2^53")
}

func second[T any](_ T, err error) error { return err }
