package main

import (
	"time"

	"github.com/numerus-closus/numerus"
)

// policy is the sending policy, the one place it is written: at most 5 messages a second, paced
// one every 200ms (a GCRA of burst 1), at most 100 in any minute and 1,000 in any day (sliding
// logs).
func policy() numerus.Limiter {
	return numerus.AllOf(
		numerus.Must(numerus.GCRA(numerus.PerSecond(5), 1)),
		numerus.Must(numerus.SlidingWindow(time.Minute, 100)),
		numerus.Must(numerus.SlidingWindow(24*time.Hour, 1000)),
	)
}
