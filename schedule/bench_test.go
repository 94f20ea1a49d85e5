package schedule

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/clock"
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
			next, _, err := Wait(context.Background(), l, 1)
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
			if _, err := g.Take(context.Background(), 1); err != nil {
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

// BenchmarkGateQueue is a take that must wait behind n waiters (through the gate's non-blocking
// core, on the fake clock), and the wake-up of the head at its turn, whose run charges it then and
// hands on, which keeps the queue at n. The gate keeps the queue played through the planner, so
// the cost does not grow with n: debits/op counts the limiter's debits.
func BenchmarkGateQueue(b *testing.B) {
	for _, n := range []int{1, 100, 10_000} {
		b.Run("waiters="+strconv.Itoa(n), func(b *testing.B) { benchQueue(b, n, 0) })
	}
}

// BenchmarkGateQueueLate is BenchmarkGateQueue with every head run late after its wake-up, by a
// microsecond, as on the system clock: each charge moves the turns behind it, so each new waiter
// plays the queue afresh (about two debits per waiter). That is what keeping the quota costs.
func BenchmarkGateQueueLate(b *testing.B) {
	for _, n := range []int{1, 100, 10_000} {
		b.Run("waiters="+strconv.Itoa(n), func(b *testing.B) { benchQueue(b, n, time.Microsecond) })
	}
}

// benchQueue keeps n waiters queued on a gate of 1/ms, taking one more and running the head, late
// by late after its wake-up, at each iteration.
func benchQueue(b *testing.B, n int, late time.Duration) {
	f := clock.NewFake(bubbleStart)
	debits := 0
	g := newGate(counting{drained(b, gcra(b, numerus.Every(time.Millisecond), 1), bubbleStart), &debits}, f)
	ring := make([]*waiter, n+1) // the waiters in order, from ring[head%len]
	head, tail := 0, 0
	enqueue := func() {
		_, w, err := g.enqueue(1, time.Time{})
		if err != nil || w == nil {
			b.Fatal("not queued", err)
		}
		ring[tail%len(ring)] = w
		tail++
	}
	for range n {
		enqueue()
	}
	b.ReportAllocs()
	debits = 0
	for b.Loop() {
		enqueue()
		next, _ := f.Next()
		f.Set(next)
		f.Advance(late)
		if r := run(g, ring[head%len(ring)]); !r.taken {
			b.Fatalf("the head was not charged at its wake-up: %+v", r)
		}
		head++
	}
	if got := queued(g); got != n {
		b.Fatalf("%d waiters, want %d", got, n)
	}
	b.ReportMetric(float64(debits)/float64(b.N), "debits/op")
}
