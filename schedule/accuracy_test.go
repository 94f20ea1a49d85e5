package schedule

import (
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGateAccuracyUnderContention: 1,000 goroutines take from one gate of policy 50/s burst 10
// for 60 s of virtual time (the closed span [start, start+60s]). The gate admits exactly the
// admissions the pure planner lists for that span, at exactly its instants: 10 at once, then one
// every 20 ms, 10 + 50·60 in all; each Take returns the instant it was charged at, which is the
// instant it returned (time stands still while goroutines run). Replaying them through a fresh
// limiter proves it never admitted more than the policy at any instant; the count proves it lost
// none to contention.
func TestGateAccuracyUnderContention(t *testing.T) {
	const goroutines, span = 1000, 60 * time.Second
	policy := gcra(t, numerus.PerSecond(50), 10)
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		end := start.Add(span)
		var want []time.Time
		for at := range numerus.Admissions(policy, start, 1) {
			if at.After(end) {
				break
			}
			want = append(want, at)
		}
		require.Len(t, want, 10+50*60, "the planner's bound for the closed span")

		g := NewGate(policy)
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(span+time.Nanosecond, cancel)
		defer cancel()
		var mu sync.Mutex
		var got []time.Time
		var wg sync.WaitGroup
		for range goroutines {
			wg.Go(func() {
				for {
					at, err := g.Take(ctx, 1)
					if err != nil {
						return
					}
					if !at.Equal(time.Now()) {
						t.Errorf("charged at %v, returned at %v", at, time.Now())
					}
					mu.Lock()
					got = append(got, at)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		slices.SortFunc(got, time.Time.Compare)
		require.Len(t, got, len(want))
		for i := range want {
			require.True(t, got[i].Equal(want[i]), "admission %d at %v, planned %v", i, got[i], want[i])
		}
		l := policy
		for i, at := range got {
			next, _, ok := l.Debit(at)
			require.True(t, ok, "admission %d at %v exceeds the policy", i, at)
			l = next
		}
		assert.Equal(t, 0, queued(g), "every waiter left")
	})
}
