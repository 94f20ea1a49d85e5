package bench

import (
	"testing"
	"time"
)

// timelineBlock is how many instants a timeline computes at once: 96 KiB of time.Time, which the
// loop reads in order. Each block stops and starts the timer (testing.B then reads the memory
// statistics), so a block must not be tiny; and the block holds pointers (a time.Time's
// location), so the collector scans it in every cycle, which a library that allocates pays for in
// its time per debit: at 65,536 instants (1.5 MiB) that scan cost the interface debit, which
// allocates its result, about 15 ns of its 50, while the allocation-free libraries paid nothing.
// At 4,096 instants neither cost shows in the fastest loops.
const timelineBlock = 1 << 12

// A timeline hands out the instants start+step, start+2·step, … to a benchmark loop. It computes
// them ahead, a block at a time, with the benchmark's timer stopped, so that every library's loop
// pays for reading an instant, not for the time arithmetic that makes it (time.Time.Add costs
// about as much as the fastest debit here). The same instants reach every library.
type timeline struct {
	b    timer
	step time.Duration
	last time.Time
	buf  *[timelineBlock]time.Time
	i    int
}

// timer is what a timeline needs of a *testing.B.
type timer interface {
	StopTimer()
	StartTimer()
}

func newTimeline(b timer, start time.Time, step time.Duration) *timeline {
	return &timeline{b: b, step: step, last: start, buf: new([timelineBlock]time.Time), i: timelineBlock}
}

// next returns the next instant.
func (tl *timeline) next() time.Time {
	if tl.i == timelineBlock {
		tl.fill()
	}
	tl.i++
	return tl.buf[(tl.i-1)%timelineBlock]
}

// fill computes the next block.
func (tl *timeline) fill() {
	tl.b.StopTimer()
	for i := range tl.buf {
		tl.last = tl.last.Add(tl.step)
		tl.buf[i] = tl.last
	}
	tl.i = 0
	tl.b.StartTimer()
}

// TestTimeline checks that a timeline hands out every instant in order across blocks.
func TestTimeline(t *testing.T) {
	var clock countingTimer
	tl := newTimeline(&clock, t0, time.Microsecond)
	for i := 1; i <= 3*timelineBlock+5; i++ {
		if got, want := tl.next(), t0.Add(time.Duration(i)*time.Microsecond); !got.Equal(want) {
			t.Fatalf("instant %d: got %v, want %v", i, got, want)
		}
	}
	if clock.stops != 4 || clock.starts != 4 {
		t.Fatalf("the timer was stopped %d and started %d times for 4 blocks", clock.stops, clock.starts)
	}
}

type countingTimer struct{ stops, starts int }

func (c *countingTimer) StopTimer()  { c.stops++ }
func (c *countingTimer) StartTimer() { c.starts++ }
