package keyed_test

import (
	"context"
	"fmt"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/memory"
	"github.com/numerus-closus/numerus/typed"
)

// clock returns a fixed instant that the examples move by hand.
type clock struct{ at time.Time }

func (c *clock) now() time.Time { return c.at }

func ExampleLimiter_TryAcquire() {
	c := &clock{at: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	// At most 2 in any second, per subject.
	lim, _ := keyed.New(memory.New(), numerus.Must(typed.Parse("2/s")), keyed.StringKey{}, keyed.WithClock(c.now))
	ctx := context.Background()
	for range 3 {
		d, _ := lim.TryAcquire(ctx, "alice", 1)
		fmt.Printf("allowed=%v remaining=%d reset=%v retry=%v\n", d.Allowed, d.Remaining, d.FullAfter, d.RetryAfter)
	}
	c.at = c.at.Add(500 * time.Millisecond)
	d, _ := lim.TryAcquire(ctx, "alice", 1)
	fmt.Println("after 500ms:", d.Allowed)
	c.at = c.at.Add(500 * time.Millisecond)
	d, _ = lim.TryAcquire(ctx, "alice", 1)
	fmt.Println("after 1s:", d.Allowed)
	d, _ = lim.TryAcquire(ctx, "bob", 1)
	fmt.Println("bob:", d.Allowed, d.Remaining)
	// Output:
	// allowed=true remaining=1 reset=1s retry=0s
	// allowed=true remaining=0 reset=1s retry=0s
	// allowed=false remaining=0 reset=1s retry=1s
	// after 500ms: false
	// after 1s: true
	// bob: true 1
}

func ExampleLimiter_Peek() {
	c := &clock{at: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	lim, _ := keyed.New(memory.New(), numerus.Must(typed.Parse("1/m")), keyed.StringKey{}, keyed.WithClock(c.now)) // 1 in any minute
	ctx := context.Background()
	d, _ := lim.Peek(ctx, "alice")
	fmt.Println(d.Allowed, d.Remaining, d.Limit)
	_, _ = lim.TryAcquire(ctx, "alice", 1)
	d, _ = lim.Peek(ctx, "alice")
	fmt.Println(d.Allowed, d.Remaining, d.RetryAfter)
	c.at = c.at.Add(time.Minute)
	d, _ = lim.Peek(ctx, "alice") // refilled by the time elapsed
	fmt.Println(d.Allowed, d.Remaining)
	// Output:
	// true 1 1
	// false 0 1m0s
	// true 1
}

func ExampleLimiter_Reset() {
	c := &clock{at: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	// 3 at once, then one an hour: up to 3 in any hour.
	lim, _ := keyed.New(memory.New(), numerus.Must(typed.Parse("gcra 1/h burst 3")), keyed.IntKey[int64]{}, keyed.WithClock(c.now))
	ctx := context.Background()
	d, _ := lim.TryAcquire(ctx, 42, 3)
	fmt.Println(d.Allowed, d.Remaining)
	_ = lim.Reset(ctx, 42)
	d, _ = lim.TryAcquire(ctx, 42, 1)
	fmt.Println(d.Allowed, d.Remaining)
	// Output:
	// true 0
	// true 2
}

func Example_policies() {
	// 100 a second sustained, bursting to 200 after a quiet spell: up to 299 in a second.
	fmt.Println(numerus.Must(typed.Parse("gcra 100/s burst 200")))
	// At most 10 in any second; at most 60 in any minute.
	fmt.Println(numerus.Must(typed.Parse("10/s")), "|", numerus.Must(typed.Parse("60/m")))
	// Output:
	// gcra 100/s burst 200
	// sliding 10/s | sliding 60/m
}

func ExampleDuration() {
	c := &clock{at: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	trial := typed.Spec{Algo: typed.AlgoFinite, Count: 2} // two requests, ever
	lim, _ := keyed.New(memory.New(), trial, keyed.StringKey{}, keyed.WithClock(c.now))
	ctx := context.Background()
	for range 3 {
		d, _ := lim.TryAcquire(ctx, "trial", 1)
		wait, ok := d.RetryAfter.Duration()
		fmt.Println(d.Allowed, wait, ok, d.RetryAfter.IsNever())
	}
	// Output:
	// true 0s true false
	// true 0s true false
	// false 0s false true
}
