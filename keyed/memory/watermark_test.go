package memory_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/memory"
	"github.com/numerus-closus/numerus/typed"
	"github.com/stretchr/testify/require"
)

// TestReplayDoesNotResurrect replays the attack of caller-supplied instants: under "window 10/h",
// with keyed.WithClock fed by each event's own stamp, a subject takes 20 events stamped 12:00,
// then 2,000 fresh subjects stamped 14:00 move the clock hands past its entry, full from 13:00,
// which is dropped; five rounds. A store that started the subject afresh at 12:00 each round
// admitted 50 in one window of 10. Here the first round admits 10 at 12:00; the second finds no
// entry and is decided at 13:00, the instant the dropped entry was full from (its namespace's
// watermark), where the subject may take 10 more, as it could had its events been stamped 13:00;
// its entry is then below full at 14:00 and kept, and the later rounds, stamped 12:00, count as
// 13:00 and are refused.
func TestReplayDoesNotResurrect(t *testing.T) {
	ctx := context.Background()
	var stamp time.Time
	s := memory.New()
	spec, err := typed.Parse("window 10/h")
	require.NoError(t, err)
	l := limiter(t, s, spec, keyed.WithClock(func() time.Time { return stamp }))
	noon := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	var admitted []int
	for round := range 5 {
		stamp = noon
		n := 0
		for range 20 {
			d, err := l.TryAcquire(ctx, "victim", 1)
			require.NoError(t, err)
			if d.Allowed {
				n++
			}
		}
		admitted = append(admitted, n)
		stamp = noon.Add(2 * time.Hour)
		for i := range 2000 {
			_, err := l.TryAcquire(ctx, "fresh:"+strconv.Itoa(round)+":"+strconv.Itoa(i), 1)
			require.NoError(t, err)
		}
	}
	require.Equal(t, []int{10, 10, 0, 0, 0}, admitted)
}
