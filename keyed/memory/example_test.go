package memory_test

import (
	"context"
	"fmt"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/keyed/memory"
	"github.com/numerus-closus/numerus/typed"
)

// A memory store keeps an entry only for a subject below full: once a subject has refilled, and
// the grace has passed, the next check or Sweep drops it, with no goroutine of the store's own.
func ExampleNew() {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	store := memory.New(memory.WithClock(func() time.Time { return now }))
	lim, _ := keyed.New(store, numerus.Must(typed.Parse("10/s")), keyed.StringKey{})
	ctx := context.Background()
	for _, subject := range []string{"alice", "bob", "alice"} {
		d, _ := lim.TryAcquire(ctx, subject, 1)
		fmt.Println(subject, d.Allowed, d.Remaining)
	}
	fmt.Println("entries:", store.Len())

	now = now.Add(time.Second + memory.DefaultGrace) // both full again, and past the grace
	fmt.Println("dropped:", store.Sweep(10), "entries:", store.Len())
	// Output:
	// alice true 9
	// bob true 9
	// alice true 8
	// entries: 2
	// dropped: 2 entries: 0
}
