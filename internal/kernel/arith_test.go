package kernel

import (
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// anyInt64 draws from the whole int64 range, the ends more often than chance would.
var anyInt64 = rapid.OneOf(rapid.Int64(), rapid.SampledFrom([]int64{math.MinInt64, math.MinInt64 + 1,
	-1, 0, 1, MaxInstant, math.MaxInt64}))

func bigOf(v int64) *big.Int { return big.NewInt(v) }

// TestFloorMod checks the offset in a period against big integers, over the whole int64 range:
// instants on either side of the origin, huge distances, periods of 1 and of MaxInt64.
func TestFloorMod(t *testing.T) {
	cases := []struct{ at, origin, w, want int64 }{
		{7, 0, 5, 2},
		{-7, 0, 5, 3},
		{-5, 0, 5, 0},
		{0, 7, 5, 3},
		{math.MinInt64, 0, 1_000_000_000, 1_000_000_000 - 854775808},
		{math.MinInt64, math.MaxInt64, math.MaxInt64, math.MaxInt64 - 1},
		{math.MaxInt64, math.MinInt64, math.MaxInt64, 1},
		{math.MaxInt64, math.MinInt64, 1, 0},
	}
	for _, c := range cases {
		require.Equal(t, c.want, floorMod(c.at, c.origin, c.w), "floorMod(%d, %d, %d)", c.at, c.origin, c.w)
	}
	rapid.Check(t, func(t *rapid.T) {
		at, origin := anyInt64.Draw(t, "at"), anyInt64.Draw(t, "origin")
		w := rapid.OneOf(rapid.Int64Range(1, 100), rapid.Int64Range(1, math.MaxInt64)).Draw(t, "w")
		want := new(big.Int).Mod(new(big.Int).Sub(bigOf(at), bigOf(origin)), bigOf(w)).Int64()
		if got := floorMod(at, origin, w); got != want {
			t.Fatalf("floorMod(%d, %d, %d) = %d, want %d", at, origin, w, got, want)
		}
	})
}

// TestSaturating checks AddSat, SubSat and Until against big integers: exact inside the range,
// saturated (or Never) outside, whatever the sign of the instant.
func TestSaturating(t *testing.T) {
	require.Equal(t, int64(-1), AddSat(-2, 1), "a negative instant plus a little")
	require.Equal(t, int64(MaxInstant), AddSat(MaxInstant-1, 2))
	require.Equal(t, Never, Until(MaxInstant, 1))
	require.Equal(t, int64(MaxInstant), Until(MaxInstant-1, 1))
	require.Equal(t, Never, Until(Never, 0), "Never stays Never")
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.Int64Range(math.MinInt64, MaxInstant).Draw(t, "a")
		d := rapid.OneOf(rapid.Int64Range(0, 100), rapid.Int64Range(0, math.MaxInt64)).Draw(t, "d")
		sum := new(big.Int).Add(bigOf(a), bigOf(d))
		wantAdd, wantUntil := int64(MaxInstant), Never
		if sum.Cmp(bigOf(MaxInstant)) <= 0 {
			wantAdd, wantUntil = sum.Int64(), sum.Int64()
		}
		diffAB := new(big.Int).Sub(bigOf(a), bigOf(d))
		wantSub := int64(MinInstant)
		if diffAB.Cmp(bigOf(MinInstant)) >= 0 {
			wantSub = diffAB.Int64()
		}
		if AddSat(a, d) != wantAdd || Until(a, d) != wantUntil || SubSat(a, d) != wantSub {
			t.Fatalf("a=%d d=%d: AddSat %d (want %d), Until %d (want %d), SubSat %d (want %d)",
				a, d, AddSat(a, d), wantAdd, Until(a, d), wantUntil, SubSat(a, d), wantSub)
		}
	})
}

// TestDivisions checks ceilDiv and GCD against big integers.
func TestDivisions(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.Int64Range(0, math.MaxInt64).Draw(t, "a")
		b := rapid.OneOf(rapid.Int64Range(1, 10), rapid.Int64Range(1, math.MaxInt64)).Draw(t, "b")
		q, m := new(big.Int).QuoRem(bigOf(a), bigOf(b), new(big.Int))
		if m.Sign() > 0 {
			q.Add(q, big.NewInt(1))
		}
		if got := ceilDiv(a, b); got != q.Int64() {
			t.Fatalf("ceilDiv(%d, %d) = %d, want %d", a, b, got, q)
		}
		if a > 0 {
			if got, want := GCD(a, b), new(big.Int).GCD(nil, nil, bigOf(a), bigOf(b)).Int64(); got != want {
				t.Fatalf("GCD(%d, %d) = %d, want %d", a, b, got, want)
			}
		}
	})
}

func bigOf128(x u128) *big.Int {
	v := new(big.Int).SetUint64(x.hi)
	return v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(x.lo))
}

// TestU128 checks the 128-bit products, sums, differences, comparisons and quotients that the
// sliding counter compares its estimate with.
func TestU128(t *testing.T) {
	positive := rapid.OneOf(rapid.Int64Range(0, 1000), rapid.Int64Range(0, math.MaxInt64))
	rapid.Check(t, func(t *rapid.T) {
		a, b := positive.Draw(t, "a"), positive.Draw(t, "b")
		c, d := positive.Draw(t, "c"), positive.Draw(t, "d")
		x, y := mul(a, b), mul(c, d)
		bx, by := new(big.Int).Mul(bigOf(a), bigOf(b)), new(big.Int).Mul(bigOf(c), bigOf(d))
		if bigOf128(x).Cmp(bx) != 0 {
			t.Fatalf("mul(%d, %d) = %v, want %v", a, b, bigOf128(x), bx)
		}
		if got, want := bigOf128(x.add(y)), new(big.Int).Add(bx, by); got.Cmp(want) != 0 {
			t.Fatalf("add: %v, want %v", got, want)
		}
		if x.cmp(y) != bx.Cmp(by) {
			t.Fatalf("cmp(%v, %v) = %d", bx, by, x.cmp(y))
		}
		if x.cmp(y) >= 0 {
			if got, want := bigOf128(x.sub(y)), new(big.Int).Sub(bx, by); got.Cmp(want) != 0 {
				t.Fatalf("sub: %v, want %v", got, want)
			}
		}
		if b > 0 { // a·b / b = a fits in 63 bits
			if got := x.div(b); got != a {
				t.Fatalf("div(%v, %d) = %d, want %d", bx, b, got, a)
			}
		}
	})
}

// TestArrival checks that a GCRA arrival time is exact, the fraction kept in R, and that past
// MaxInstant Q stops there while R keeps the rest.
func TestArrival(t *testing.T) {
	require.Equal(t, Frac{Q: 10, R: 2}, arrival(7, 11, 3))
	require.Equal(t, Frac{Q: MaxInstant, R: 3*3 + 1}, arrival(MaxInstant-2, 16, 3))
	require.Equal(t, Frac{Q: MinInstant + 3, R: 2}, arrival(MinInstant, 11, 3))
	rapid.Check(t, func(t *rapid.T) {
		at := anyInt64.Filter(func(v int64) bool { return v <= MaxInstant }).Draw(t, "at")
		n := rapid.OneOf(rapid.Int64Range(1, 10), rapid.Int64Range(1, 1<<40)).Draw(t, "n")
		s := rapid.Int64Range(0, math.MaxInt64).Draw(t, "s")
		f := arrival(at, s, n)
		got := new(big.Int).Add(new(big.Int).Mul(bigOf(f.Q), bigOf(n)), bigOf(f.R))
		want := new(big.Int).Add(new(big.Int).Mul(bigOf(at), bigOf(n)), bigOf(s))
		if got.Cmp(want) != 0 || f.R < 0 || (f.R >= n && f.Q != MaxInstant) {
			t.Fatalf("arrival(%d, %d, %d) = %+v: %v·n+R, want %v", at, s, n, f, got, want)
		}
	})
}

// TestRates checks the reduction of rates, their notation and the exact-range check.
func TestRates(t *testing.T) {
	r := NewRate(10, 1_000_000_000)
	require.Equal(t, int64(1), r.N)
	require.Equal(t, int64(100_000_000), r.P)
	require.Equal(t, "10/s", r.String())
	require.Equal(t, "500/7d", NewRate(500, 7*24*3600*1_000_000_000).String())
	require.Equal(t, "3/1500ms", NewRate(3, 1_500_000_000).String())
	require.Equal(t, "1/ns", NewRate(1, 1).String())
	require.Equal(t, "7/1001ns", NewRate(7, 1001).String())
	one := NewRate(1, 1)
	require.True(t, one.FitsBurst(MaxInstant-1))
	require.False(t, one.FitsBurst(MaxInstant))
	_, inv := RateOf(0, 1)
	require.Equal(t, "rate tokens", inv.Param)
	_, inv = RateOf(1, -1)
	require.Equal(t, "rate period", inv.Param)
	require.Panics(t, func() { CheckCost(0) })
}

// TestWindowEdges checks that window starts clamp to MinInstant for the window that begins before
// it, while its end is exact.
func TestWindowEdges(t *testing.T) {
	p, inv := WindowOf(1_000_000_000, 1, 0)
	require.Nil(t, inv)
	e := floorMod(MinInstant, 0, p.Width)
	require.Equal(t, int64(MinInstant), p.start(MinInstant))
	require.Equal(t, MinInstant+p.Width-e, p.end(MinInstant, e))
	require.Equal(t, int64(-1_000_000_000), p.start(-1))
	require.Equal(t, Never, p.end(MaxInstant, floorMod(MaxInstant, 0, p.Width)))
}
