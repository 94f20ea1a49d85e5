//go:build unix

package bench

import (
	"syscall"
	"time"
)

// cpuTime returns the processor time the process has used, user and system, on all its threads:
// what a scenario costs, whatever else the machine runs (its wall time grows with the other
// tenants' load; this only with what they do to the caches).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
