package numerus_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
)

// TestExactRate checks that 3/s, which no whole number of nanoseconds divides, does not drift
// (PITFALLS 3), driven by Admissions: back-to-back debits go through each second [t0+k, t0+k+1)
// exactly three times. With a burst of 2, the bucket never caps a refill, so the n-th debit
// after the first is due at ⌈(n−1)/3⌉ seconds to the nanosecond. (With a burst of 1 the bucket is
// full when each answer, rounded up to the nanosecond, comes, so the fraction of a nanosecond
// refilled in between is lost and the schedule lags 2/3ns per debit: still 3 in every second over
// these runs, never more.) The kernel tests run the same over 10^7 debits; 3·10^5 here.
func TestExactRate(t *testing.T) {
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
