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

// staleStore returns a store of one shard, on a clock the test sets, that drops entries as soon
// as they are full, with subjects a and b of "window 1/1m": a admitted at 30 s, then b at 60 s,
// whose new entry moves the hand over a's, full at 60 s, and drops it.
func staleStore(t *testing.T, now *time.Time) (*memory.Store, func(subject string) keyed.Request) {
	s := memory.New(memory.WithClock(func() time.Time { return *now }), memory.WithGrace(0), memory.WithShards(1))
	p := typed.MustCompile("window 1/1m")
	req := func(subject string) keyed.Request {
		return keyed.Request{Key: []byte("9:ratelimit:" + subject), Policy: p, Cost: 1}
	}
	for _, c := range []struct {
		subject string
		at      time.Duration
	}{{"a", 30 * time.Second}, {"b", time.Minute}} {
		*now = t0.Add(c.at)
		d, err := s.Acquire(context.Background(), req(c.subject))
		require.NoError(t, err)
		require.True(t, d.Allowed, c.subject)
	}
	require.Equal(t, 1, s.Len(), "a's entry is dropped")
	return s, req
}

// TestStaleReadingAfterDrop: a check that read the store's clock, then waited for its shard's
// lock while another check dropped its subject's entry, decides at the reading that dropped it,
// not afresh at its stale one. The clock here gives a's check the stale reading 59 s after b's
// 60 s, as the real clock does to a check that read it first and took the lock last: a then
// starts afresh in the window of 60 s, where it is, and its next check there is refused. Deciding
// at 59 s, a was admitted a second time in its first window, and once more in the next. A Peek
// likewise reports a's balance at 60 s, not a full subject at 59 s.
func TestStaleReadingAfterDrop(t *testing.T) {
	ctx := context.Background()
	var now time.Time
	s, req := staleStore(t, &now)
	now = t0.Add(59 * time.Second)
	d, err := s.Acquire(ctx, req("a"))
	require.NoError(t, err)
	require.True(t, d.Allowed, "a starts afresh in the window of 60 s")
	require.Equal(t, keyed.DurationOf(time.Minute), d.FullAfter, "decided at 60 s")
	now = t0.Add(62 * time.Second)
	d, err = s.Acquire(ctx, req("a"))
	require.NoError(t, err)
	require.False(t, d.Allowed, "a's second check in the window of 60 s")

	s, req = staleStore(t, &now)
	now = t0.Add(59 * time.Second)
	d, err = s.Peek(ctx, req("a"))
	require.NoError(t, err)
	require.Equal(t, keyed.Decision{Allowed: true, Remaining: 1, Limit: 1, FullAfter: keyed.DurationOf(0),
		RetryAfter: keyed.DurationOf(0), RefillAfter: keyed.DurationOf(0)}, d, "a Peek at the dropping reading, 60 s: a full window")
}

// TestClockOutsideLocks: the store reads its clock under none of its locks, so a clock that
// calls the store (here Len, which takes every shard's lock) does not deadlock it.
func TestClockOutsideLocks(t *testing.T) {
	var s *memory.Store
	s = memory.New(memory.WithClock(func() time.Time { _ = s.Len(); return t0 }), memory.WithShards(1))
	r := keyed.Request{Key: []byte("9:ratelimit:a"), Policy: typed.MustCompile("window 1/1m"), Cost: 1}
	d, err := s.Acquire(context.Background(), r)
	require.NoError(t, err)
	require.True(t, d.Allowed)
	_, err = s.Peek(context.Background(), r)
	require.NoError(t, err)
	require.Zero(t, s.Sweep(10))
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

// TestStaleReadingAfterOtherDrops: TestStaleReadingAfterDrop's case, with a's entry dropped by
// Store.Sweep, by a Peek of a, or by a Peek followed by a Sweep that read the clock earlier (50 s)
// and took the shard's lock later, dropping another entry: the instant a check is raised to
// must only ever rise. a is admitted at 30 s under "window 1/1m" and dropped at 60 s; a check of
// a at the stale reading 59 s must then decide in the window of 60 s, so that its next check, at
// 62 s, is refused.
func TestStaleReadingAfterOtherDrops(t *testing.T) {
	ctx := context.Background()
	p := typed.MustCompile("window 1/1m")
	req := func(subject string) keyed.Request {
		return keyed.Request{Key: []byte("9:ratelimit:" + subject), Policy: p, Cost: 1}
	}
	for _, how := range []string{"sweep", "peek", "older sweep"} {
		var now time.Time
		s := memory.New(memory.WithClock(func() time.Time { return now }), memory.WithGrace(0), memory.WithShards(1))
		acquire := func(subject string, at time.Duration) bool {
			now = t0.Add(at)
			d, err := s.Acquire(ctx, req(subject))
			require.NoError(t, err)
			return d.Allowed
		}
		if how == "older sweep" { // b, under "gcra 1/40s", is full from 40 s on
			now = t0
			d, err := s.Acquire(ctx, keyed.Request{Key: []byte("9:ratelimit:b"), Policy: typed.MustCompile("gcra 1/40s"), Cost: 1})
			require.NoError(t, err)
			require.True(t, d.Allowed)
		}
		require.True(t, acquire("a", 30*time.Second), how)
		now = t0.Add(time.Minute)
		if how == "sweep" {
			require.Equal(t, 1, s.Sweep(1), how) // a, full at 60 s
		} else {
			_, err := s.Peek(ctx, req("a")) // drops a, full at 60 s
			require.NoError(t, err)
		}
		if how == "older sweep" {
			now = t0.Add(50 * time.Second)
			require.Equal(t, 1, s.Sweep(1), how) // b, full at 50 s
		}
		require.Zero(t, s.Len(), how)
		require.True(t, acquire("a", 59*time.Second), how)
		require.False(t, acquire("a", 62*time.Second), "%s: a admitted twice in one window", how)
	}
}
