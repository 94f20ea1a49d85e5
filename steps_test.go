package numerus_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
)

// never stands for Never in a step table, as the answer of a refusal or as Full.
const never = time.Duration(math.MaxInt64)

// step is one debit of a step table and what must follow, instants as offsets from t0.
type step struct {
	at   time.Duration // when to debit
	cost int64         // tokens
	ok   bool          // admitted
	from time.Duration // the answer of a refusal (ignored when admitted), or never
	left int64         // Status(at).Remaining of the limiter after the step
	full time.Duration // Status(at).Full after the step, or never
}

// offset returns n as an offset from t0, or never.
func offset(n numerus.NextDebitable) time.Duration {
	t, ok := n.Time()
	if !ok {
		return never
	}
	return t.Sub(t0)
}

// runSteps debits l step by step, checking each answer and the status after it, and returns
// the limiter that follows. A refusal must return the receiver itself.
func runSteps(t *testing.T, l numerus.Limiter, steps []step) numerus.Limiter {
	t.Helper()
	for i, x := range steps {
		at := t0.Add(x.at)
		name := fmt.Sprintf("step %d: %s: DebitN(t0+%v, %d)", i, l, x.at, x.cost)
		next, from, ok := l.DebitN(at, x.cost)
		require.Equal(t, x.ok, ok, "%s: admitted", name)
		if ok {
			require.Equal(t, x.at, offset(from), "%s: answer of an admission", name)
			l = next
		} else {
			require.Equal(t, x.from, offset(from), "%s: answer", name)
			require.True(t, next == l, "%s: a refusal returned a new value", name)
		}
		st := l.Status(at)
		require.Equal(t, x.left, st.Remaining, "%s: remaining after", name)
		require.Equal(t, x.full, offset(st.Full), "%s: full after", name)
		require.True(t, st.Remaining >= 0 && st.Remaining <= st.Limit, "%s: remaining %d outside [0, %d]",
			name, st.Remaining, st.Limit)
	}
	return l
}

const (
	ms = time.Millisecond
	s  = time.Second
)

// threePerSecond is the table of GCRA(3/s, 2), TokenBucket(2, 3/s) and LeakyBucket(2, 3/s),
// which decide alike: a rate that does not divide a second, so that answers round up to the
// nanosecond while the state keeps the exact fraction.
var threePerSecond = []step{
	{at: 0, cost: 1, ok: true, left: 1, full: 333333334},        // a fresh value holds its burst
	{at: 0, cost: 1, ok: true, left: 0, full: 666666667},        // TAT 666,666,666.67ns
	{at: 0, cost: 1, from: 333333334, left: 0, full: 666666667}, // ceil(333,333,333.33)
	{at: 333333333, cost: 1, from: 333333334, left: 0, full: 666666667},
	{at: 333333334, cost: 1, ok: true, left: 0, full: s},      // no drift: TAT exactly 1s
	{at: 333333334, cost: 2, from: s, left: 0, full: s},       // two tokens by 1s
	{at: s, cost: 2, ok: true, left: 0, full: 1666666667},     // the whole burst at once
	{at: s, cost: 3, from: never, left: 0, full: 1666666667},  // above the burst: Never, no charge
	{at: 5 * s, cost: 2, ok: true, left: 0, full: 5666666667}, // idle: the burst, no more
	{at: 5 * s, cost: 1, from: 5333333334, left: 0, full: 5666666667},
	{at: 4 * s, cost: 1, from: 5333333334, left: 0, full: 5666666667}, // earlier: as at 5s
}

func TestStepsThreePerSecond(t *testing.T) {
	rate := numerus.PerSecond(3)
	for _, l := range []numerus.Limiter{
		numerus.Must(numerus.GCRA(rate, 2)),
		numerus.Must(numerus.TokenBucket(2, rate)),
		numerus.Must(numerus.LeakyBucket(2, rate)),
	} {
		t.Run(l.String(), func(t *testing.T) { runSteps(t, l, threePerSecond) })
	}
}

// TestStepsBucketRefill checks a slow refill: whole tokens rounded down, waits to the nanosecond.
func TestStepsBucketRefill(t *testing.T) {
	table := []step{
		{at: 0, cost: 5, ok: true, left: 0, full: 5 * s},
		{at: 0, cost: 1, from: s, left: 0, full: 5 * s},
		{at: 2500 * ms, cost: 3, from: 3 * s, left: 2, full: 5 * s}, // 2.5 tokens: 2 remain
		{at: 2500 * ms, cost: 2, ok: true, left: 0, full: 7 * s},
		{at: 10 * s, cost: 1, ok: true, left: 4, full: 11 * s}, // refilled to 5, not beyond
		{at: 10 * s, cost: 6, from: never, left: 4, full: 11 * s},
	}
	for _, l := range []numerus.Limiter{
		numerus.Must(numerus.GCRA(numerus.PerSecond(1), 5)),
		numerus.Must(numerus.TokenBucket(5, numerus.PerSecond(1))),
		numerus.Must(numerus.LeakyBucket(5, numerus.PerSecond(1))),
	} {
		t.Run(l.String(), func(t *testing.T) { runSteps(t, l, table) })
	}
}

func TestStepsFinite(t *testing.T) {
	l := numerus.Must(numerus.FiniteBucket(3))
	st := l.Status(t0)
	require.Equal(t, numerus.Status{Limit: 3, Remaining: 3, Full: numerus.DebitableFrom(t0)}, st)
	runSteps(t, l, []step{
		{at: 0, cost: 2, ok: true, left: 1, full: never}, // never full again once debited
		{at: s, cost: 2, from: never, left: 1, full: never},
		{at: time.Hour, cost: 1, ok: true, left: 0, full: never},
		{at: 2 * time.Hour, cost: 1, from: never, left: 0, full: never},
		{at: 0, cost: 4, from: never, left: 0, full: never},
	})
}

const minute = time.Minute

// TestStepsFixedWindow checks the window end, end ± 1ns, and the documented 2× burst across a
// boundary: n at the end of a window and n at the start of the next.
func TestStepsFixedWindow(t *testing.T) {
	runSteps(t, numerus.Must(numerus.FixedWindow(minute, 3, t0)), []step{
		{at: 59 * s, cost: 3, ok: true, left: 0, full: minute}, // a fresh window holds n
		{at: minute - 1, cost: 1, from: minute, left: 0, full: minute},
		{at: minute, cost: 3, ok: true, left: 0, full: 2 * minute}, // 6 within 1s: the 2× burst
		{at: minute + 1, cost: 1, from: 2 * minute, left: 0, full: 2 * minute},
		{at: 2*minute - 1, cost: 4, from: never, left: 0, full: 2 * minute}, // above n: Never
		{at: 2 * minute, cost: 1, ok: true, left: 2, full: 3 * minute},
		{at: 100 * s, cost: 2, ok: true, left: 0, full: 3 * minute}, // earlier: counts at 2m
		{at: 150 * s, cost: 1, from: 3 * minute, left: 0, full: 3 * minute},
	})
}

// TestStepsFixedWindowStart checks windows aligned on a start, before it as well.
func TestStepsFixedWindowStart(t *testing.T) {
	runSteps(t, numerus.Must(numerus.FixedWindow(minute, 1, t0.Add(7*s))), []step{
		{at: 0, cost: 1, ok: true, left: 0, full: 7 * s}, // the window [-53s, 7s)
		{at: s, cost: 1, from: 7 * s, left: 0, full: 7 * s},
		{at: 7 * s, cost: 1, ok: true, left: 0, full: 67 * s},
	})
}

// TestStepsSlidingCounter checks the estimate prev·(W−e)/W + cur, compared exactly, and its
// answers: the first nanosecond at which the decayed previous window leaves room.
func TestStepsSlidingCounter(t *testing.T) {
	runSteps(t, numerus.Must(numerus.SlidingWindowCount(minute, 10, t0)), []step{
		{at: 50 * s, cost: 10, ok: true, left: 0, full: 2 * minute},
		{at: 55 * s, cost: 1, from: 66 * s, left: 0, full: 2 * minute},   // 10·54/60 + 1 = 10
		{at: 75 * s, cost: 3, from: 78 * s, left: 2, full: 2 * minute},   // 7.5 + 3 > 10; 7 + 3 at 78s
		{at: 75 * s, cost: 2, ok: true, left: 0, full: 3 * minute},       // 7.5 + 2 = 9.5
		{at: 78 * s, cost: 1, ok: true, left: 0, full: 3 * minute},       // 7 + 3 = 10 exactly
		{at: 78 * s, cost: 1, from: 84 * s, left: 0, full: 3 * minute},   // 6 + 4 at 84s
		{at: 130 * s, cost: 1, ok: true, left: 6, full: 4 * minute},      // 3·50/60 + 1 = 3.5
		{at: 250 * s, cost: 10, ok: true, left: 0, full: 6 * minute},     // two windows on: empty
		{at: 250 * s, cost: 11, from: never, left: 0, full: 6 * minute},  // above n: Never
		{at: 200 * s, cost: 1, from: 306 * s, left: 0, full: 6 * minute}, // earlier: as at 250s
	})
}

// TestStepsSlidingLog checks that a refusal answers when the oldest entries that must go have
// expired, and that a window after the last entry is empty again.
func TestStepsSlidingLog(t *testing.T) {
	runSteps(t, numerus.Must(numerus.SlidingWindow(minute, 3)), []step{
		{at: 0, cost: 1, ok: true, left: 2, full: minute},
		{at: 10 * s, cost: 1, ok: true, left: 1, full: 70 * s},
		{at: 20 * s, cost: 1, ok: true, left: 0, full: 80 * s},
		{at: 30 * s, cost: 1, from: minute, left: 0, full: 80 * s}, // the oldest, at 0, expires
		{at: minute - 1, cost: 1, from: minute, left: 0, full: 80 * s},
		{at: minute, cost: 1, ok: true, left: 0, full: 2 * minute},
		{at: 61 * s, cost: 2, from: 80 * s, left: 0, full: 2 * minute}, // 10s and 20s must go
		{at: 61 * s, cost: 4, from: never, left: 0, full: 2 * minute},
		{at: 80 * s, cost: 2, ok: true, left: 0, full: 140 * s},
		{at: 80 * s, cost: 1, from: 2 * minute, left: 0, full: 140 * s},
		{at: 200 * s, cost: 3, ok: true, left: 0, full: 260 * s}, // everything expired
	})
}

// TestStepsBucketed checks sub-windows of 10s aligned on the Unix epoch (t0 is on one): a token
// counts from the start of its sub-window, so it expires one window after that start.
func TestStepsBucketed(t *testing.T) {
	runSteps(t, numerus.Must(numerus.SlidingWindowBucketed(minute, 6, 3)), []step{
		{at: 5 * s, cost: 1, ok: true, left: 2, full: minute},
		{at: 15 * s, cost: 1, ok: true, left: 1, full: 70 * s},
		{at: 25 * s, cost: 1, ok: true, left: 0, full: 80 * s},
		{at: 35 * s, cost: 1, from: minute, left: 0, full: 80 * s},
		{at: minute - 1, cost: 1, from: minute, left: 0, full: 80 * s},
		{at: minute, cost: 1, ok: true, left: 0, full: 2 * minute}, // the token of 5s: gone at 60s
		{at: 69 * s, cost: 1, from: 70 * s, left: 0, full: 2 * minute},
		{at: 70 * s, cost: 1, ok: true, left: 0, full: 130 * s},
		{at: 71 * s, cost: 1, from: 80 * s, left: 0, full: 130 * s},
		{at: 71 * s, cost: 4, from: never, left: 0, full: 130 * s},
	})
}

// TestStepsAboveCapacity checks every algorithm: a cost above the capacity is Never and charges
// nothing, and a fresh value admits its whole capacity at its first instant.
func TestStepsAboveCapacity(t *testing.T) {
	rate := numerus.PerSecond(3)
	for _, c := range []struct {
		l    numerus.Limiter
		full time.Duration // Full after the capacity was debited at t0
	}{
		{numerus.Must(numerus.GCRA(rate, 4)), 1333333334},
		{numerus.Must(numerus.TokenBucket(4, rate)), 1333333334},
		{numerus.Must(numerus.LeakyBucket(4, rate)), 1333333334},
		{numerus.Must(numerus.FiniteBucket(4)), never},
		{numerus.Must(numerus.FixedWindow(minute, 4, t0)), minute},
		{numerus.Must(numerus.SlidingWindow(minute, 4)), minute},
		{numerus.Must(numerus.SlidingWindowBucketed(minute, 3, 4)), minute},
		{numerus.Must(numerus.SlidingWindowCount(minute, 4, t0)), 2 * minute},
	} {
		t.Run(c.l.String(), func(t *testing.T) {
			runSteps(t, c.l, []step{
				{at: 0, cost: 5, from: never, left: 4, full: 0},
				{at: 0, cost: 4, ok: true, left: 0, full: c.full},
				{at: 0, cost: 5, from: never, left: 0, full: c.full},
			})
		})
	}
}

// TestStepsOneBucket checks that a bucketed window of one sub-window is a fixed window aligned on
// the Unix epoch, as documented, and not the exact log.
func TestStepsOneBucket(t *testing.T) {
	l := numerus.Must(numerus.SlidingWindowBucketed(minute, 1, 2))
	runSteps(t, l, []step{
		{at: 30 * s, cost: 1, ok: true, left: 1, full: minute},
		{at: 59 * s, cost: 1, ok: true, left: 0, full: minute},
		{at: 59 * s, cost: 1, from: minute, left: 0, full: minute}, // the log would say 90s
		{at: minute, cost: 2, ok: true, left: 0, full: 2 * minute},
	})
}
