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
