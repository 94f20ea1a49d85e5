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

// TestWatermarkModel: a store that drops entries decides every check as a store that never
// drops one would at the instant the store decided it, under out-of-order caller-supplied
// instants, sweeps at a clock of the test's and drops by new subjects' hands, with a grace of
// zero so that every full entry may go. The reference keeps each subject's State for ever and
// debits it at the instant the store reports (the Request's, or for a subject with no entry no
// earlier than its namespace's watermark), so the store never admits more than the policy
// allows over the instants it decided at, whatever it dropped.
func TestWatermarkModel(t *testing.T) {
	specs := []string{"gcra 2/s burst 2", "window 3/s", "token 2/s burst 3", "count 3/s", "sliding 3/s", "finite 4 & gcra 1/s burst 2"}
	rapid.Check(t, func(t *rapid.T) {
		p := typed.MustCompile(rapid.SampledFrom(specs).Draw(t, "policy"))
		var now int64
		s := memory.New(memory.WithGrace(0), memory.WithShards(1), memory.WithClock(func() time.Time { return time.Unix(0, now) }))
		b := s.Bind("1:a:", p)
		ref := map[string]*typed.State{}
		var latest int64
		instant := func(t *rapid.T) int64 {
			back := rapid.Int64Range(0, 3e9).Draw(t, "back")
			latest += rapid.Int64Range(0, 5e8).Draw(t, "forward")
			return 1e12 + latest - back
		}
		t.Repeat(map[string]func(*rapid.T){
			"acquire": func(t *rapid.T) {
				subject := rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "subject")
				cost := rapid.Int64Range(1, 2).Draw(t, "cost")
				at := instant(t)
				o, ok, decided := b.Acquire(subject, cost, time.Unix(0, at))
				if decided < at {
					t.Fatalf("decided at %d, before the check's instant %d", decided, at)
				}
				st := ref[subject]
				if st == nil {
					fresh := p.Fresh()
					st = &fresh
					ref[subject] = st
				}
				want, wantOK := p.DebitIn(st, decided, cost)
				if ok != wantOK || o != want {
					t.Fatalf("%s cost %d at %d (decided %d): got %v %+v, the reference %v %+v", subject, cost, at, decided, ok, o, wantOK, want)
				}
			},
			"fill": func(t *rapid.T) { // new subjects at an instant: their hands drop full entries
				at := instant(t)
				for i := range rapid.IntRange(1, 8).Draw(t, "new") {
					b.Acquire("new:"+strconv.FormatInt(at, 10)+":"+strconv.Itoa(i), 1, time.Unix(0, at))
				}
			},
			"sweep": func(t *rapid.T) {
				now = instant(t)
				s.Sweep(10)
			},
		})
	})
}
