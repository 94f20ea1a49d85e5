package schedule

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/stretchr/testify/require"
)

// TestGatePauseFailsAWaiterDueAtItsDeadline: a pause that moves a waiter's turn exactly onto its
// deadline fails it at once with a *DeadlineError (a turn at the deadline is too late, as
// Take's own check says), rather than leaving it queued until the deadline.
func TestGatePauseFailsAWaiterDueAtItsDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := NewGate(drained(t, gcra(t, numerus.PerSecond(1), 1), time.Now()))
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- g.Take(ctx, 1) }()
		synctest.Wait()
		require.Equal(t, 1, queued(g))

		g.RetryAfter(10 * time.Second) // its turn: the end of the pause, its deadline
		var de *DeadlineError
		require.ErrorAs(t, <-done, &de)
		require.True(t, de.At.Equal(bubbleStart.Add(10*time.Second)), "at %v", de.At)
		require.Zero(t, elapsed(), "told at once")
		require.Equal(t, 0, queued(g))
	})
}
