package bench

import (
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/benchpb"
	"github.com/numerus-closus/numerus/typed"
)

// BenchmarkFloor measures what two of the issues' targets cost before any limiter's work: the
// least that the benchmark's own shape makes every implementation pay on this machine. Each case
// does the memory traffic of its scenario and none of the arithmetic, so a target below its floor
// cannot be met by any implementation of the scenario as the issue states it.
//
// case=and3 is the shape of AllOf3/lib=numerus-typed: `l, _, ok = l.Debit(at)` on a value as
// large as typed.And of three typed.GCRA, where an admitted debit writes the two words of each
// leaf that an admitted GCRA debit changes and reads nothing. No policy and no arithmetic: only
// the copies that a value API costs a value this large, which Go returns in no registers (an
// And of three limiters holds at least six words of state, and of the 9 integer result
// registers of amd64, numerus.NextDebitable and the bool take 5), so it is copied into the call,
// out of it and into l.
//
// case=keyed is the shape of Keyed at 10,000 subjects: each check reads the monotonic clock as
// the memory store does and, when admitted, writes one word of the subject's own memory (a
// 256-byte cell, allocated in subject order as the store's entries are), found by its index with
// no hashing and no lock. In mode=parallel the goroutines take the subjects in turn from the
// same starting points as Keyed's, so each cell is written by both cores in turn, as each
// subject's state is there.
func BenchmarkFloor(b *testing.B) {
	for _, r := range results {
		b.Run(name("case", "and3", "result", r), func(b *testing.B) { floorAnd3(b, r) })
	}
	for _, mode := range []string{"serial", "parallel"} {
		for _, r := range results {
			b.Run(name("case", "keyed", "subjects", 10_000, "mode", mode, "result", r), func(b *testing.B) {
				floorKeyed(b, 10_000, mode == "parallel", r)
			})
		}
	}
}

// and3Floor is a value of typed.And of three GCRAs' size, debited with no arithmetic.
type and3Floor struct{ w [12]int64 }

// The floor is of the very size it stands for.
var _ [unsafe.Sizeof(typed.And[typed.GCRA, typed.And[typed.GCRA, typed.GCRA]]{})]struct{} = [unsafe.Sizeof(and3Floor{})]struct{}{}

// Debit writes, if admit, the two words of each of three leaves of 4 words that an admitted
// GCRA debit changes (its TAT and its Last), reading none, and returns the value as a typed
// limiter does: less than any debit does. admit is decided before the call.
func (l and3Floor) Debit(at time.Time, admit bool) (and3Floor, numerus.NextDebitable, bool) {
	if admit {
		ns := at.UnixNano()
		l.w[1], l.w[3] = ns+1, ns
		l.w[5], l.w[7] = ns+2, ns
		l.w[9], l.w[11] = ns+3, ns
	}
	return l, numerus.DebitableFrom(at), admit
}

func floorAnd3(b *testing.B, r result) {
	var l and3Floor
	b.ReportAllocs()
	tl, allowed, ok := newTimeline(b, t0, time.Nanosecond), 0, false
	for b.Loop() {
		if l, _, ok = l.Debit(tl.next(), r == allow); ok {
			allowed++
		}
	}
	checkAllowed(b, r, allowed, b.N)
}

// floorCell is a subject's memory in the keyed floor: a cache line of its own, in a 256-byte
// object as the memory store's entries are.
type floorCell struct {
	at atomic.Int64
	_  [256 - 8]byte
}

func floorKeyed(b *testing.B, n int, parallel bool, r result) {
	cells := make([]*floorCell, n)
	for i := range cells {
		cells[i] = new(floorCell)
	}
	base := time.Now()
	check := func(i int) bool {
		at := int64(time.Since(base))
		if r == allow {
			cells[i].at.Store(at)
			return true
		}
		return cells[i].at.Load() > at // never, as the cells hold instants already read
	}
	b.ReportAllocs()
	var allowed atomic.Int64
	if !parallel {
		ok, i := int64(0), 0
		for b.Loop() {
			if check(i) {
				ok++
			}
			if i++; i == n {
				i = 0
			}
		}
		allowed.Store(ok)
	} else {
		var goroutines atomic.Int64
		b.ResetTimer() // the cells' allocation is setup, as b.Loop makes it in the serial case
		b.RunParallel(func(pb *testing.PB) {
			pb = benchpb.Apart(pb)
			i, ok := int(goroutines.Add(1)*7919)%n, int64(0) // keyedParallel's starting points
			for pb.Next() {
				if check(i) {
					ok++
				}
				if i++; i == n {
					i = 0
				}
			}
			allowed.Add(ok)
		})
	}
	checkAllowed(b, r, int(allowed.Load()), b.N)
}
