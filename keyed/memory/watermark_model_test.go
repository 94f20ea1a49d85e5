package memory

import (
	"strconv"
	"testing"
	"time"

	"github.com/numerus-closus/numerus/typed"
	"pgregory.net/rapid"
)

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
		s := New(WithGrace(0), WithShards(1), WithClock(func() time.Time { return time.Unix(0, now) }))
		b := s.bind("1:a:", p)
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
				want, wantOK := in(p).DebitIn(st, decided, cost)
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
