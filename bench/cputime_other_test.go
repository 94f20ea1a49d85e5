//go:build !unix

package bench

import "time"

// cpuTime is 0 where the process's processor time is not read: the cpu-ns metrics read 0.
func cpuTime() time.Duration { return 0 }
