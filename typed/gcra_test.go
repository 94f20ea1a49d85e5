package typed

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
)

// TestGCRASteps: a step table over fixed instants, the refusal answer tight to the nanosecond.
func TestGCRASteps(t *testing.T) {
	g, err := NewGCRA(numerus.PerSecond(10), 2)
	require.NoError(t, err)
	steps := []struct {
		at       time.Duration
		cost     int64
		ok       bool
		wantFrom time.Duration
	}{
		{0, 1, true, 0},
		{0, 1, true, 0},
		{0, 1, false, 100 * time.Millisecond},
		{100*time.Millisecond - 1, 1, false, 100 * time.Millisecond},
		{100 * time.Millisecond, 1, true, 100 * time.Millisecond},
		{50 * time.Millisecond, 1, false, 200 * time.Millisecond}, // earlier counts as the latest
		{time.Second, 3, false, -1},                               // above the burst: never
		{time.Second, 2, true, time.Second},
	}
	for i, s := range steps {
		next, from, ok := g.DebitN(t0.Add(s.at), s.cost)
		require.Equal(t, s.ok, ok, "step %d", i)
		if s.wantFrom < 0 {
			require.True(t, from.IsNever(), "step %d: %v", i, from)
		} else {
			require.True(t, from.Equal(numerus.DebitableFrom(t0.Add(s.wantFrom))), "step %d: %v", i, from)
		}
		if !ok {
			require.Equal(t, g, next, "step %d: a refusal changes nothing", i)
		}
		g = next
	}
}
