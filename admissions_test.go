package numerus_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/limits"
)

// TestAdmissions checks the pure schedule: instants of back-to-back debits with the limiter after
// each, an end at Never, an early stop, and l left as it was.
func TestAdmissions(t *testing.T) {
	l := numerus.Must(numerus.GCRA(numerus.PerSecond(2), 2))
	var got []time.Duration
	for at := range numerus.Admissions(l, t0, 1) {
		if got = append(got, at.Sub(t0)); len(got) == 5 {
			break
		}
	}
	require.Equal(t, []time.Duration{0, 0, 500 * time.Millisecond, time.Second, 1500 * time.Millisecond}, got)
	require.Equal(t, int64(2), l.Status(t0).Remaining, "Admissions changed the limiter")

	n := 0
	for range numerus.Admissions(numerus.Must(numerus.FiniteBucket(3)), t0, 1) {
		n++
	}
	require.Equal(t, 3, n, "the schedule of a finite bucket ends at Never")

	for at, next := range numerus.Admissions(numerus.Must(numerus.SlidingWindow(time.Minute, 3)), t0, 2) {
		require.True(t, at.Equal(t0))
		require.Equal(t, int64(1), next.Status(t0).Remaining, "the limiter after the first debit")
		break
	}
}

// stuck is a faulty user-written limiter: it refuses everything and answers the instant asked,
// breaking the tightness law. It panics past a thousand debits, so that a loop fails fast.
type stuck struct{ calls *int }

func (s stuck) Debit(at time.Time) (numerus.Limiter, numerus.NextDebitable, bool) {
	return s.DebitN(at, 1)
}

func (s stuck) DebitN(at time.Time, _ int64) (numerus.Limiter, numerus.NextDebitable, bool) {
	if *s.calls++; *s.calls > 1000 {
		panic("stuck: asked again and again")
	}
	return s, numerus.DebitableFrom(at), false
}

func (stuck) Status(at time.Time) numerus.Status {
	return numerus.Status{Limit: 1, Full: numerus.DebitableFrom(at)}
}

func (stuck) String() string { return "stuck" }

// TestAdmissionsFaultyLimiter checks that Admissions ends, instead of looping forever, on a limiter
// that answers the very instant it refused.
func TestAdmissionsFaultyLimiter(t *testing.T) {
	calls := 0
	for range numerus.Admissions(stuck{&calls}, t0, 1) {
		t.Fatal("stuck admitted a debit")
	}
	require.Equal(t, 1, calls)
}

// creeping is a faulty limiter that refuses everything and answers a nanosecond later each time:
// its answers move on, but none is ever admitted. It panics past a thousand debits.
type creeping struct{ stuck }

func (c creeping) DebitN(at time.Time, cost int64) (numerus.Limiter, numerus.NextDebitable, bool) {
	c.stuck.DebitN(at, cost)
	return c, numerus.DebitableAfter(at, 1), false
}

func (c creeping) Debit(at time.Time) (numerus.Limiter, numerus.NextDebitable, bool) {
	return c.DebitN(at, 1)
}

// TestAdmissionsCreepingLimiter checks that Admissions ends after limits.Search refusals in a row, where a
// lawful limiter refuses at most once before each admission.
func TestAdmissionsCreepingLimiter(t *testing.T) {
	calls := 0
	for range numerus.Admissions(creeping{stuck{&calls}}, t0, 1) {
		t.Fatal("creeping admitted a debit")
	}
	require.Equal(t, limits.Search, calls)
}

// TestAdmissionsExactRate checks that 3/s, which no whole number of nanoseconds divides, does not
// drift (PITFALLS 3), driven by Admissions: back-to-back debits go through each second [t0+k, t0+k+1)
// exactly three times. With a burst of 2, the bucket never caps a refill, so the n-th debit after
// the first is due at ⌈(n−1)/3⌉ seconds to the nanosecond. (With a burst of 1 the bucket is full
// when each answer, rounded up to the nanosecond, comes, so the fraction of a nanosecond refilled
// in between is lost and the schedule lags 2/3ns per debit: still 3 in every second over these
// runs, never more.) The kernel's TestExactRate runs the same over 10^7 debits of the kernels; this
// one, 3·10^5 through the exported constructors and Admissions, guards the Rate they take too.
func TestAdmissionsExactRate(t *testing.T) {
	events := 300_000
	if testing.Short() || race {
		events = 30_000
	}
	rate := numerus.PerSecond(3)
	for _, burst := range []int64{1, 2} {
		for _, l := range []numerus.Limiter{
			numerus.Must(numerus.GCRA(rate, burst)),
			numerus.Must(numerus.TokenBucket(burst, rate)),
			numerus.Must(numerus.LeakyBucket(burst, rate)),
		} {
			t.Run(l.String(), func(t *testing.T) {
				t.Parallel()
				exactRate(t, l, burst, events)
			})
		}
	}
}

func exactRate(t *testing.T, l numerus.Limiter, burst int64, events int) {
	second, inSecond, n := int64(0), 0, 0
	var last time.Time
	for at := range numerus.Admissions(l, t0, 1) {
		if k := int64(at.Sub(t0) / time.Second); k != second {
			want := 3
			if second == 0 {
				want = 3 + int(burst) - 1 // the burst at t0, then 3/s
			}
			if inSecond != want {
				t.Fatalf("%d debits in second %d, want %d", inSecond, second, want)
			}
			second, inSecond = k, 0
		}
		inSecond, last = inSecond+1, at
		if n++; n == events {
			break
		}
	}
	if burst == 2 {
		due := (int64(events-2)*int64(time.Second) + 2) / 3 // ⌈(n−1)/3 s⌉ for the n-th, n from 0
		require.Equal(t, time.Duration(due), last.Sub(t0))
	}
}
