package numerus_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/numerus-closus/numerus"
)

// TestNextDebitable checks the order of answers, with Never after every instant, and its zero
// value, accessors and String.
func TestNextDebitable(t *testing.T) {
	far := numerus.DebitableFrom(time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC))
	early := numerus.DebitableFrom(t0)
	late := numerus.DebitableFrom(t0.Add(time.Nanosecond))
	never := numerus.Never()

	require.True(t, numerus.NextDebitable{}.IsNever(), "the zero value is Never")
	require.True(t, numerus.NextDebitable{}.Equal(never))
	require.True(t, never.After(far), "Never is after every instant")
	require.True(t, early.Before(late))
	require.Equal(t, -1, early.Compare(late))
	require.Equal(t, 1, never.Compare(far))
	require.Equal(t, -1, far.Compare(never))
	require.Equal(t, 0, never.Compare(numerus.Never()))
	require.True(t, early.Equal(numerus.DebitableFrom(t0.In(time.FixedZone("x", 3600)))), "Equal ignores the location")
	require.Equal(t, late, numerus.Latest(early, late))
	require.Equal(t, never, numerus.Latest(far, never))
	require.Equal(t, early, numerus.Earliest(late, early))
	require.Equal(t, far, numerus.Earliest(never, far))

	at, ok := early.Time()
	require.True(t, ok)
	require.True(t, at.Equal(t0))
	_, ok = never.Time()
	require.False(t, ok)

	wait, ok := late.Wait(t0)
	require.True(t, ok)
	require.Equal(t, time.Nanosecond, wait)
	wait, ok = early.Wait(t0.Add(time.Hour))
	require.True(t, ok)
	require.Equal(t, time.Duration(0), wait, "an instant already past is no wait")
	// a wait beyond a Duration saturates, and Time keeps the instant
	year1 := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	farAnswer := numerus.DebitableFrom(time.Date(1677, 9, 22, 0, 0, 0, 0, time.UTC))
	wait, ok = farAnswer.Wait(year1)
	require.True(t, ok)
	require.Equal(t, time.Duration(math.MaxInt64), wait)
	farAt, _ := farAnswer.Time()
	require.True(t, farAt.After(year1.Add(wait)), "the longest Duration ends before the instant")
	_, ok = never.Wait(t0)
	require.False(t, ok)

	require.Equal(t, "never", never.String())
	require.Equal(t, "from 2026-01-01T00:00:00.000000001Z", late.String())
}

// TestNextDebitableOrder is the property that Compare is a total order consistent with the
// instants and with Before, After and Equal, and that Latest and Earliest pick by it.
func TestNextDebitableOrder(t *testing.T) {
	answer := rapid.Custom(func(t *rapid.T) numerus.NextDebitable {
		if rapid.IntRange(0, 4).Draw(t, "never") == 0 {
			return numerus.Never()
		}
		return numerus.DebitableFrom(t0.Add(time.Duration(rapid.Int64Range(-3, 3).Draw(t, "offset"))))
	})
	rapid.Check(t, func(t *rapid.T) {
		a, b, c := answer.Draw(t, "a"), answer.Draw(t, "b"), answer.Draw(t, "c")
		if a.Compare(b) != -b.Compare(a) {
			t.Fatalf("Compare not antisymmetric: %v, %v", a, b)
		}
		if a.Compare(b) <= 0 && b.Compare(c) <= 0 && a.Compare(c) > 0 {
			t.Fatalf("Compare not transitive: %v, %v, %v", a, b, c)
		}
		if a.Before(b) != (a.Compare(b) < 0) || a.After(b) != (a.Compare(b) > 0) || a.Equal(b) != (a.Compare(b) == 0) {
			t.Fatalf("Before, After or Equal disagree with Compare: %v, %v", a, b)
		}
		ta, fa := a.Time()
		tb, fb := b.Time()
		if fa && fb && a.Compare(b) != ta.Compare(tb) {
			t.Fatalf("Compare disagrees with the instants: %v, %v", a, b)
		}
		if l := numerus.Latest(a, b); l.Before(a) || l.Before(b) || !(l.Equal(a) || l.Equal(b)) {
			t.Fatalf("Latest(%v, %v) = %v", a, b, l)
		}
		if e := numerus.Earliest(a, b); e.After(a) || e.After(b) || !(e.Equal(a) || e.Equal(b)) {
			t.Fatalf("Earliest(%v, %v) = %v", a, b, e)
		}
	})
}

// TestDebitableAfter checks that DebitableAfter(at, d) is the answer DebitableFrom(at.Add(d)) in
// every respect a caller can see, for every d: its instant (location and monotonic reading kept),
// order, wait and text, a negative d counting as zero and the largest d not wrapping to Never.
func TestDebitableAfter(t *testing.T) {
	zones := []*time.Location{time.UTC, time.FixedZone("x", -7200)}
	rapid.Check(t, func(t *rapid.T) {
		at := time.Unix(0, rapid.Int64().Draw(t, "at")).In(rapid.SampledFrom(zones).Draw(t, "zone"))
		if rapid.Bool().Draw(t, "monotonic") {
			at = time.Now().Add(time.Duration(rapid.Int64Range(-1e15, 1e15).Draw(t, "offset")))
		}
		d := time.Duration(rapid.OneOf(rapid.Int64(), rapid.Int64Range(-2, 2),
			rapid.Int64Range(math.MaxInt64-2, math.MaxInt64)).Draw(t, "d"))
		lazy, eager := numerus.DebitableAfter(at, d), numerus.DebitableFrom(at.Add(max(d, 0)))
		lt, lok := lazy.Time()
		et, _ := eager.Time()
		if !lok || lazy.IsNever() || lt != et {
			t.Fatalf("DebitableAfter(%v, %v).Time() = %v, %v; want %v", at, d, lt, lok, et)
		}
		other := numerus.DebitableFrom(at.Add(time.Duration(rapid.Int64().Draw(t, "other"))))
		if lazy.Compare(other) != eager.Compare(other) || !lazy.Equal(eager) || lazy.String() != eager.String() {
			t.Fatalf("DebitableAfter(%v, %v) differs from DebitableFrom(%v)", at, d, et)
		}
		lw, _ := lazy.Wait(at)
		ew, _ := eager.Wait(at)
		if lw != ew {
			t.Fatalf("wait %v, want %v", lw, ew)
		}
	})
}

// TestWait checks the wait before a debit, as its answer gives it: zero when it is admitted now,
// the exact wait otherwise, and false for Never.
func TestWait(t *testing.T) {
	l := numerus.Must(numerus.TokenBucket(1, numerus.PerSecond(3)))
	delay := func(cost int64) (time.Duration, bool) {
		_, from, _ := l.DebitN(t0, cost)
		return from.Wait(t0)
	}
	d, ok := delay(1)
	require.True(t, ok)
	require.Equal(t, time.Duration(0), d)
	l, _, _ = l.Debit(t0)
	d, ok = delay(1)
	require.True(t, ok)
	require.Equal(t, 333333334*time.Nanosecond, d)
	_, ok = delay(2)
	require.False(t, ok)
}
