package schedule

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/stretchr/testify/require"
)

// realPolicy is gcra 200/s burst 1 & sliding 500/5s: no two admissions less than 5ms apart, and
// at most 500 in any 5 seconds.
func realPolicy() numerus.Limiter {
	return numerus.And(numerus.Must(numerus.GCRA(numerus.PerSecond(200), 1)), numerus.Must(numerus.SlidingWindow(5*time.Second, 500)))
}

// released is one take that went through: the instant the gate charged it at, which Take
// returned, and the instant read right after Take returned.
type released struct{ charged, after time.Time }

// TestRealClockGateKeepsTheQuota proves, on the system clock of a loaded machine, that the
// callers a Gate lets go never exceed its policy, however late their wake-ups come. Fifty
// goroutines take from one gate of gcra 200/s burst 1 & sliding 500/5s for about six seconds,
// while one goroutine per CPU allocates and forces garbage collections. Every instant charged is
// at or before the instant its Take returned; an exact count of its own, not numerus, finds at
// most 500 charged instants in any half-open 5s window and at most 1 in any 5ms window; and a
// fresh copy of the policy admits them all, replayed. It asserts nothing about durations or
// throughput, which a loaded machine does not promise.
func TestRealClockGateKeepsTheQuota(t *testing.T) {
	stop := make(chan struct{})
	var burners sync.WaitGroup
	for range runtime.NumCPU() {
		burners.Go(func() { burn(stop) })
	}
	ctx, cancel := context.WithTimeout(t.Context(), 6*time.Second)
	defer cancel()
	got := takeUntilDone(ctx, NewGate(realPolicy()), 50)
	close(stop)
	burners.Wait()

	for i, r := range got {
		require.False(t, r.charged.After(r.after), "take %d charged at %v, after it returned at %v", i, r.charged, r.after)
	}
	charged := make([]time.Time, len(got))
	for i, r := range got {
		charged[i] = r.charged
	}
	slices.SortFunc(charged, time.Time.Compare)
	most5s, most1s, most5ms := mostIn(charged, 5*time.Second), mostIn(charged, time.Second), mostIn(charged, 5*time.Millisecond)
	t.Logf("%d admissions; the most in any 5s: %d, in any 1s: %d, in any 5ms: %d", len(charged), most5s, most1s, most5ms)
	require.LessOrEqual(t, most5s, 500, "in a 5s window")
	require.LessOrEqual(t, most5ms, 1, "in a 5ms window")
	l := realPolicy()
	for i, at := range charged {
		var ok bool
		l, _, ok = l.Debit(at)
		require.True(t, ok, "admission %d of %d at %v is beyond the policy", i, len(charged), at)
	}
}

// takeUntilDone takes one token at a time from g in each of n goroutines until ctx is done, and
// returns every take that went through.
func takeUntilDone(ctx context.Context, g *Gate, n int) []released {
	var mu sync.Mutex
	var got []released
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			var mine []released
			for {
				at, err := g.Take(ctx, 1)
				after := time.Now()
				if err != nil {
					break
				}
				mine = append(mine, released{at, after})
			}
			mu.Lock()
			got = append(got, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	return got
}

// burn allocates and forces collections until stop is closed.
func burn(stop <-chan struct{}) {
	var churn [][]byte
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		churn = append(churn, make([]byte, 32<<10+i%1024))
		if len(churn) == 256 {
			churn = churn[:0]
		}
		if i%64 == 0 {
			runtime.GC()
		}
	}
}

// mostIn returns the most instants of the sorted at that fall in any half-open window of the
// given length: counted from each instant, the windows that hold the most start at one.
func mostIn(at []time.Time, window time.Duration) int {
	most := 0
	for i, j := 0, 0; i < len(at); i++ {
		for j < len(at) && at[j].Before(at[i].Add(window)) {
			j++
		}
		most = max(most, j-i)
	}
	return most
}
