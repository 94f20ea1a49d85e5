package storetest

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/numerus-closus/numerus/keyed"
)

// testHotSubject runs many goroutines on one subject, in phases at fixed instants: in each
// phase every goroutine takes tokens until refused. There must be no error, and each phase must
// admit exactly what the reference admits at that instant, so that the total is exactly the
// policy's bound over the elapsed (fake) time.
func testHotSubject(h *harness) {
	for _, k := range []string{"gcra 100/s burst 50", "token 10/s burst 20 & window 100/1m", "sliding 30/1s"} {
		h.set(t0)
		p := h.pair(k)
		total, want := 0, 0
		for phase := range 12 {
			h.set(t0.Add(time.Duration(phase) * 37 * time.Millisecond))
			got, errs := h.hammer(p.l, "hot")
			n := 0
			for p.ref.Acquire("hot", h.now(), 1).Allowed {
				n++
			}
			if errs > 0 || got != n {
				h.t.Fatalf("%s: phase %d: %d goroutines admitted %d with %d errors; want %d, no error",
					k, phase, h.cfg.goroutines, got, errs, n)
			}
			total, want = total+got, want+n
		}
		if total != want {
			h.t.Fatalf("%s: admitted %d in all, want %d", k, total, want)
		}
	}
}

// hammer runs the configured goroutines, each taking single tokens for subject until refused,
// and returns the admissions and errors of all.
func (h *harness) hammer(l keyed.Limiter[string], subject string) (admitted, errs int) {
	var ok, bad atomic.Int64
	var wg sync.WaitGroup
	for range h.cfg.goroutines {
		wg.Go(func() {
			for range 100_000 {
				d, err := l.TryAcquire(context.Background(), subject, 1)
				if err != nil {
					bad.Add(1)
					return
				}
				if !d.Allowed {
					return
				}
				ok.Add(1)
			}
		})
	}
	wg.Wait()
	return int(ok.Load()), int(bad.Load())
}
