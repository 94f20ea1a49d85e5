package memory_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/inplace"
	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/memory"
	"github.com/numerus-closus/numerus/typed"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestCapRefusesNewSubjects: a store capped at 100 subjects holds 100 below full, refuses the
// 101st with ErrFull (through the keyed.Limiter, which gets no Bound from a capped store) and
// counts it, keeps deciding the subjects it holds, and takes new subjects again once old ones are
// back to full for the grace, which their hands drop.
func TestCapRefusesNewSubjects(t *testing.T) {
	ctx := context.Background()
	c := newFakeClock(t0)
	s := memory.New(memory.WithClock(c.now), memory.WithMaxSubjects(100))
	l := limiter(t, s, numerus.Must(typed.Parse("gcra 1/m burst 2")))
	for i := range 100 {
		d, err := l.TryAcquire(ctx, "old:"+strconv.Itoa(i), 1)
		require.NoError(t, err)
		require.True(t, d.Allowed)
	}
	_, err := l.TryAcquire(ctx, "new", 1)
	require.ErrorIs(t, err, memory.ErrFull)
	assert.Equal(t, memory.Stats{Subjects: 100, Refused: 1}, s.Stats())
	d, err := l.TryAcquire(ctx, "old:7", 1)
	require.NoError(t, err)
	require.True(t, d.Allowed, "a subject held is checked as ever")
	d, err = l.TryAcquire(ctx, "old:7", 1)
	require.NoError(t, err)
	require.False(t, d.Allowed, "old:7 spent its burst of 2")
	d, err = l.Peek(ctx, "new")
	require.NoError(t, err)
	require.True(t, d.Allowed, "a Peek keeps no state, so the cap does not refuse it")

	c.advance(time.Minute + memory.DefaultGrace) // all full for the grace, but old:7
	for i := range 50 {
		d, err := l.TryAcquire(ctx, "new:"+strconv.Itoa(i), 1)
		require.NoError(t, err, "new subject %d", i)
		require.True(t, d.Allowed)
	}
	assert.LessOrEqual(t, s.Len(), 100)
	d, err = l.TryAcquire(ctx, "old:7", 1)
	require.NoError(t, err)
	assert.True(t, d.Allowed, "old:7 refilled one token in the minute")
	d, err = l.TryAcquire(ctx, "old:7", 1)
	require.NoError(t, err)
	assert.False(t, d.Allowed, "old:7 was kept below full through the new subjects, not dropped")
}

// TestCapUntracked: with WithUntracked, a store at its cap admits new subjects as fresh without
// keeping them, counts them, and still binds; the subjects it holds keep their limits.
func TestCapUntracked(t *testing.T) {
	ctx := context.Background()
	c := newFakeClock(t0)
	s := memory.New(memory.WithClock(c.now), memory.WithMaxSubjects(10), memory.WithUntracked())
	l := limiter(t, s, numerus.Must(typed.Parse("gcra 1/h burst 1")))
	for i := range 10 {
		d, err := l.TryAcquire(ctx, strconv.Itoa(i), 1)
		require.NoError(t, err)
		require.True(t, d.Allowed)
	}
	for range 3 {
		d, err := l.TryAcquire(ctx, "untracked", 1)
		require.NoError(t, err)
		require.True(t, d.Allowed, "an untracked subject is admitted as fresh each time")
	}
	d, err := l.TryAcquire(ctx, "3", 1)
	require.NoError(t, err)
	require.False(t, d.Allowed, "a subject held keeps its limit at the cap")
	assert.Equal(t, memory.Stats{Subjects: 10, Untracked: 3}, s.Stats())
}

// TestCapModel: under a cap of a few subjects, out of order instants kept out (each check's
// instant at or after the one before, so every check is decided at its own), Requests of a dozen
// subjects decide exactly as a reference that keeps every subject's State for ever, or fail with
// ErrFull when the store holds its cap (counted, the reference untouched), or, with
// WithUntracked, are admitted as fresh subjects (counted, the reference untouched). So no
// subject below full is ever dropped to make room: its next check would then decide as a fresh
// subject's, which the reference does not. The store never holds more than its cap.
func TestCapModel(t *testing.T) {
	specs := []string{"gcra 2/s burst 2", "window 3/s", "sliding 3/s"}
	rapid.Check(t, func(t *rapid.T) {
		p := typed.MustCompile(rapid.SampledFrom(specs).Draw(t, "policy"))
		limit := rapid.IntRange(1, 6).Draw(t, "cap")
		untracked := rapid.Bool().Draw(t, "untracked")
		opts := []memory.Option{memory.WithMaxSubjects(limit), memory.WithShards(rapid.SampledFrom([]int{1, 4}).Draw(t, "shards")),
			memory.WithGrace(time.Duration(rapid.Int64Range(0, 2e9).Draw(t, "grace")))}
		if untracked {
			opts = append(opts, memory.WithUntracked())
		}
		var now int64 = 1e12
		s := memory.New(append(opts, memory.WithClock(func() time.Time { return time.Unix(0, now) }))...)
		ref := map[string]*typed.State{}
		var stats memory.Stats
		t.Repeat(map[string]func(*rapid.T){
			"acquire": func(t *rapid.T) {
				subject := strconv.Itoa(rapid.IntRange(0, 11).Draw(t, "subject"))
				cost := rapid.Int64Range(1, 2).Draw(t, "cost")
				now += rapid.Int64Range(0, 4e8).Draw(t, "forward")
				d, err := s.Acquire(context.Background(), keyed.Request{Key: []byte("1:a:" + subject), Policy: p, Cost: cost})
				st := ref[subject]
				if st == nil {
					fresh := p.Fresh()
					st = &fresh
				}
				before := *st
				want := debitIn(p, st, now, cost)
				switch after := s.Stats(); {
				case errors.Is(err, memory.ErrFull):
					stats.Refused++
					if untracked || after.Subjects != limit {
						t.Fatalf("%s: ErrFull holding %d of %d subjects, untracked %v", subject, after.Subjects, limit, untracked)
					}
				case err != nil:
					t.Fatal(err)
				case after.Untracked > stats.Untracked:
					stats.Untracked++
					fresh := p.Fresh()
					if want := debitIn(p, &fresh, now, cost); d != want {
						t.Fatalf("%s untracked: %+v, want a fresh subject's %+v", subject, d, want)
					}
				default:
					if d != want {
						t.Fatalf("%s cost %d: %+v, the reference %+v", subject, cost, d, want)
					}
					ref[subject] = st
					return
				}
				*st = before // not charged
			},
			"sweep": func(t *rapid.T) {
				now += rapid.Int64Range(0, 2e9).Draw(t, "forward")
				s.Sweep(rapid.IntRange(1, 4).Draw(t, "n"))
			},
			"": func(t *rapid.T) {
				got := s.Stats()
				if got.Subjects > limit || got.Refused != stats.Refused || got.Untracked != stats.Untracked {
					t.Fatalf("stats %+v, cap %d, counted %+v", got, limit, stats)
				}
			},
		})
	})
}

// debitIn is the Decision of p's in-place debit of *s at at, in nanoseconds, as the store
// answers it.
func debitIn(p typed.Policy, s *typed.State, at, cost int64) (d keyed.Decision) {
	o, ok := p.InPlace(inplace.Key{}).DebitIn(s, at, cost)
	d.SetOutcome(o, ok, at)
	return d
}
