package schedule

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
)

// BenchmarkWakeLateness measures, on the real clock, how late a waiter wakes after the instant its
// limiter admits it: one wait of about 1 ms per iteration, through Wait or through a Gate. It
// reports the mean and the 99th percentile of the lateness in microseconds. The iterations are
// bounded by the benchmark time (about 1,000 at the default 1 s); -benchtime=500x fixes them.
func BenchmarkWakeLateness(b *testing.B) {
	policy := numerus.Must(numerus.GCRA(numerus.Every(time.Millisecond), 1))
	b.Run("path=wait/interval=1ms", func(b *testing.B) {
		l := drained(b, policy, time.Now())
		lateness(b, func() time.Time {
			_, from, _ := l.Debit(time.Now())
			planned, _ := from.Time()
			next, err := Wait(context.Background(), l, 1)
			if err != nil {
				b.Fatal(err)
			}
			l = next
			return planned
		})
	})
	b.Run("path=gate/interval=1ms", func(b *testing.B) {
		g := NewGate(drained(b, policy, time.Now()))
		lateness(b, func() time.Time {
			_, planned, _ := first(g.Limiter(), time.Now(), 1)
			if err := g.Take(context.Background(), 1); err != nil {
				b.Fatal(err)
			}
			return planned
		})
	})
}

// lateness runs wake, which waits and returns the instant it was due, and reports how late the
// waits woke.
func lateness(b *testing.B, wake func() (due time.Time)) {
	b.ReportAllocs()
	var late []time.Duration
	for b.Loop() {
		due := wake()
		late = append(late, time.Since(due))
	}
	if len(late) == 0 {
		return
	}
	if slices.Min(late) < 0 {
		b.Fatalf("a waiter woke %v early", -slices.Min(late))
	}
	slices.Sort(late)
	var sum time.Duration
	for _, d := range late {
		sum += d
	}
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	b.ReportMetric(us(sum/time.Duration(len(late))), "late-mean-µs")
	b.ReportMetric(us(late[len(late)*99/100]), "late-p99-µs")
}
