package schedule_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/memory"
	"github.com/numerus-closus/numerus/schedule"
	"github.com/numerus-closus/numerus/typed"
)

func ExampleWait() {
	l := numerus.Must(numerus.GCRA(numerus.PerSecond(10), 5)) // 5 at once, then one every 100ms
	l, at, err := schedule.Wait(context.Background(), l, 3)   // a fresh GCRA admits its burst at once
	fmt.Println(err, l.Status(at).Remaining)

	_, _, err = schedule.Wait(context.Background(), l, 6)
	fmt.Println(errors.Is(err, schedule.ErrNever))
	// Output:
	// <nil> 2
	// true
}

// Acquire paces a per-subject limit, here on a memory store; with a Redis store, the same wait
// paces every process that shares it.
func ExampleAcquire() {
	// 2 at once, then one a minute: up to 2 in any minute.
	l, err := keyed.New(memory.New(), numerus.Must(typed.Parse("gcra 1/m burst 2")), keyed.StringKey{})
	if err != nil {
		panic(err)
	}
	for range 2 { // the burst goes through at once
		d, err := schedule.Acquire(context.Background(), l, "smtp.example.com", 1)
		fmt.Println(d.Allowed, d.Remaining, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	d, err := schedule.Acquire(ctx, l, "smtp.example.com", 1) // the next token is a minute away
	fmt.Println(d.Allowed, errors.Is(err, context.DeadlineExceeded))
	// Output:
	// true 1 <nil>
	// true 0 <nil>
	// false true
}

// Take returns the instant it charged, read from the gate's clock as it lets the caller go: two
// takes of a 100/s gate are charged at least 10ms apart, however late the second one's wake-up.
func ExampleGate_Take() {
	g := schedule.NewGate(numerus.Must(numerus.GCRA(numerus.PerSecond(100), 1)))
	first, _ := g.Take(context.Background(), 1)
	second, _ := g.Take(context.Background(), 1)
	fmt.Println(second.Sub(first) >= 10*time.Millisecond)
	// Output:
	// true
}

func ExampleGate_Admissions() {
	// 2 at once, then one every 500ms: 3 in the first second, as below.
	g := schedule.NewGate(numerus.Must(numerus.GCRA(numerus.PerSecond(2), 2)))
	var start time.Time
	for at := range g.Admissions(1) {
		if start.IsZero() {
			start = at
		}
		fmt.Println(at.Sub(start))
		if at.Sub(start) >= 2*time.Second {
			break
		}
	}
	// Output:
	// 0s
	// 0s
	// 500ms
	// 1s
	// 1.5s
	// 2s
}

// An upstream answered "slow down" (an HTTP 429 with Retry-After: 60, an SMTP 421): the gate
// admits nothing for a minute, and keeps its limiter as it was.
func ExampleGate_RetryAfter() {
	g := schedule.NewGate(numerus.Must(numerus.GCRA(numerus.PerSecond(10), 5))) // 5 at once, then one every 100ms
	g.RetryAfter(time.Minute)
	from, ok := g.TryTake(1)
	wait, _ := from.Wait(time.Now())
	fmt.Println(ok, wait.Round(time.Second))
	// Output:
	// false 1m0s
}

func ExampleDrain() {
	g := schedule.NewGate(numerus.AlwaysAllow())
	send := func(_ context.Context, to string, _ time.Time) error {
		if to == "bob@example.com" {
			return fmt.Errorf("%s: 550 no such user", to)
		}
		fmt.Println("sent to", to)
		return nil
	}
	to := []string{"ann@example.com", "bob@example.com", "eve@example.com"}
	err := schedule.Drain(context.Background(), g, slices.Values(to), send, schedule.ContinueOnError())
	fmt.Println(err)
	// Output:
	// sent to ann@example.com
	// sent to eve@example.com
	// bob@example.com: 550 no such user
}
