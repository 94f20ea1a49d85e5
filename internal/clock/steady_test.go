package clock

import (
	"testing"
	"testing/synctest"
	"time"

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
