package redisstore_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus/keyed"
	"github.com/numerus-closus/numerus/redisstore"
	"github.com/numerus-closus/numerus/redisstore/internal/redistest"
)

// TestTTLGeneralEngine: the general engine (trees, logs) sets the TTL as the fast path does: the
// time until full rounded UP to the millisecond, plus the slack. TestTTL's trees and log are full
// again after whole seconds, where rounding down is no different; here they are not.
func TestTTLGeneralEngine(t *testing.T) {
	srv := redistest.Start(t)
	c, clk := srv.Client(t), newClock(t0)
	s := redisstore.New(c)
	for _, tc := range []struct {
		name, policy string
		full, ttl    time.Duration
	}{
		{"and", "gcra 3/s burst 5 & token 3/s burst 5", 333334 * time.Microsecond, 334 * time.Millisecond},
		{"or", "gcra 3/s burst 5 | leaky 3/s burst 5", 333334 * time.Microsecond, 334 * time.Millisecond},
		{"log", "sliding 3/1500us", 1500 * time.Microsecond, 2 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk.set(t0)
			d, ttl, pttl := acquireTTL(t, limiter(t, s, tc.policy, clk), c, tc.name, 1)
			require.True(t, d.Allowed)
			require.Equal(t, keyed.WaitFor(tc.full), d.ResetAfter)
			require.Equal(t, tc.ttl+keep, ttl)
			require.LessOrEqual(t, pttl, ttl)
		})
	}
}
