package benchpb

import (
	"sync/atomic"
	"testing"
	"unsafe"
)

// TestApart: goroutines of RunParallel that use Apart's copies of their PBs run b.N iterations in
// all, as with the PBs themselves, and each copy lies in no cache line of its original.
func TestApart(t *testing.T) {
	var runs, wrong atomic.Int64
	testing.Benchmark(func(b *testing.B) {
		var n atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			own := Apart(pb)
			if d := uintptr(unsafe.Pointer(own)) - uintptr(unsafe.Pointer(pb)); d < cacheLine || -d < cacheLine {
				wrong.Add(1)
			}
			for own.Next() {
				n.Add(1)
			}
		})
		runs.Add(1)
		if n.Load() != int64(b.N) {
			wrong.Add(1)
		}
	})
	if runs.Load() == 0 || wrong.Load() != 0 {
		t.Fatalf("%d runs, %d wrong (an iteration count off b.N, or a copy within a line of its PB)", runs.Load(), wrong.Load())
	}
}
