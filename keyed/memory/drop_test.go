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
	"pgregory.net/rapid"
)

// TestStaleReadingAfterDrop: a check that read the store's clock, then waited for its shard's
// lock while another check dropped its subject's entry, decides at a reading taken under the lock,
// not afresh at its stale instant. The clock here hands the stale reading (59 s) to the check
// of a and moves to 61 s, as the real clock does while a waits: a then starts afresh in the
// window that starts at 60 s, where it is now, and its next check in that window is refused.
// Deciding at 59 s, a was admitted again in its first window, and once more in the next.
func TestStaleReadingAfterDrop(t *testing.T) {
	now, then := t0, time.Time{}
	clock := func() time.Time {
		read := now
		if !then.IsZero() {
			now, then = then, time.Time{}
		}
		return read
	}
	s := memory.New(memory.WithClock(clock), memory.WithGrace(0), memory.WithShards(1))
	p := typed.MustCompile("window 1/1m")
	ctx := context.Background()
	acquire := func(subject string) bool {
		d, err := s.Acquire(ctx, keyed.Request{Key: []byte("9:ratelimit:" + subject), Policy: p, Cost: 1})
		require.NoError(t, err)
		return d.Allowed
	}
	now = t0.Add(30 * time.Second)
	require.True(t, acquire("a"))
	now = t0.Add(time.Minute)
	require.True(t, acquire("b"), "b's new entry moves the hand over a's, full at 60 s, and drops it")
	require.Equal(t, 1, s.Len())
	now, then = t0.Add(59*time.Second), t0.Add(61*time.Second)
	require.True(t, acquire("a"), "a starts afresh in the window of 60 s")
	now = t0.Add(62 * time.Second)
	require.False(t, acquire("a"), "a's second check in the window of 60 s")
}

// TestDropsChangeNoDecision: while the instants of checks, across subjects, never lie more than
// the grace behind the latest one the store was given (as the store's own clock never does), a
// store that drops entries full for the grace decides every check as one that keeps them all:
// the package doc's promise that the grace changes no decision, checked on random timelines of
// a few subjects under a few policies, with instants that step back by up to the grace.
func TestDropsChangeNoDecision(t *testing.T) {
	policies := []typed.Policy{typed.MustCompile("window 2/100ms"), typed.MustCompile("gcra 30/s burst 2"),
		typed.MustCompile("sliding 2/50ms & count 3/100ms"), typed.MustCompile("buckets 3/100ms in 4 | finite 1")}
	rapid.Check(t, func(t *rapid.T) {
		grace := time.Duration(rapid.Int64Range(0, int64(100*time.Millisecond)).Draw(t, "grace"))
		dropping := memory.New(memory.WithGrace(grace), memory.WithShards(1))
		keeping := memory.New(memory.WithGrace(1000*time.Hour), memory.WithShards(1))
		p := policies[rapid.IntRange(0, len(policies)-1).Draw(t, "policy")]
		latest := t0
		for i := range rapid.IntRange(1, 100).Draw(t, "checks") {
			step := time.Duration(rapid.Int64Range(-int64(grace), int64(150*time.Millisecond)).Draw(t, "step"))
			at := latest.Add(step)
			if at.After(latest) {
				latest = at
			}
			r := keyed.Request{Key: []byte("9:ratelimit:" + strconv.Itoa(rapid.IntRange(0, 2).Draw(t, "subject"))),
				Policy: p, Cost: rapid.Int64Range(1, 2).Draw(t, "cost"), At: at}
			var got, want keyed.Decision
			var err error
			if rapid.Bool().Draw(t, "peek") {
				got, err = dropping.Peek(context.Background(), r)
				require.NoError(t, err)
				want, err = keeping.Peek(context.Background(), r)
			} else {
				got, err = dropping.Acquire(context.Background(), r)
				require.NoError(t, err)
				want, err = keeping.Acquire(context.Background(), r)
			}
			require.NoError(t, err)
			require.Equal(t, want, got, "check %d at %v, %v behind the latest", i, at.Sub(t0), latest.Sub(at))
		}
	})
}
