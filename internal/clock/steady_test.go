package clock

import (
	"testing"
	"testing/synctest"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestZeroSteady: the zero Steady reads the system clock, as Real does.
func TestZeroSteady(t *testing.T) {
	var zero Steady
	require.WithinDuration(t, time.Now(), zero.Now(), time.Second)
}

// TestSteadyInABubble: inside a testing/synctest bubble the steady clock moves with the bubble's
// fake time, as Real does.
func TestSteadyInABubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := NewSteady()
		start := time.Now()
		time.Sleep(time.Minute)
		require.True(t, s.Now().Equal(start.Add(time.Minute)), "%v", s.Now())
	})
}

// TestSteadyKeepsItsWallReading: a steady clock whose start's wall reading lies an hour ahead of
// the system's (as after the wall clock was set back an hour) reads an hour ahead still: it adds
// monotonic time to its start and never reads the wall clock again.
func TestSteadyKeepsItsWallReading(t *testing.T) {
	type layout struct { // time.Time's: with a monotonic reading, wall holds its seconds in bits 30 to 62
		wall uint64
		ext  int64
		loc  *time.Location
	}
	start := time.Now()
	r := (*layout)(unsafe.Pointer(&start))
	require.NotZero(t, r.wall&(1<<63), "needs a monotonic reading")
	r.wall += 3600 << 30
	s := Steady{start: start}
	require.WithinDuration(t, time.Now().Add(time.Hour), s.Now().Round(0), time.Second, "the wall an hour ahead")
	require.False(t, NewSteady().start.IsZero(), "NewSteady starts now")
}
