package numerus_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numerus-closus/numerus"
)

// TestStrings checks that every limiter names its policy, combinators with their children.
func TestStrings(t *testing.T) {
	gcra := numerus.Must(numerus.GCRA(numerus.PerSecond(10), 5))
	window := numerus.Must(numerus.FixedWindow(time.Minute, 3, t0))
	sliding := numerus.Must(numerus.SlidingWindow(time.Minute, 3))
	for want, l := range map[string]numerus.Limiter{
		"gcra 10/s burst 5":    gcra,
		"token 3/m burst 5":    numerus.Must(numerus.TokenBucket(5, numerus.PerMinute(3))),
		"leaky 500/7d burst 5": numerus.Must(numerus.LeakyBucket(5, numerus.Per(500, 7*24*time.Hour))),
		"finite 3":             numerus.Must(numerus.FiniteBucket(3)),
		"window 3/m":           window,
		"sliding 3/m":          sliding,
		"buckets 3/m in 6":     numerus.Must(numerus.SlidingWindowBucketed(time.Minute, 6, 3)),
		"count 3/1500ms":       numerus.Must(numerus.SlidingWindowCount(1500*time.Millisecond, 3, t0)),
		"allow":                numerus.AlwaysAllow(),
		"deny":                 numerus.AlwaysDeny(),
		"window 3/m & deny":    numerus.And(window, numerus.AlwaysDeny()),
		"window 3/m | allow":   numerus.Or(window, numerus.AlwaysAllow()),
		"(gcra 10/s burst 5 & window 3/m) | sliding 3/m": numerus.Or(numerus.And(gcra, window), sliding),
		"gcra 10/s burst 5 & (window 3/m | sliding 3/m)": numerus.And(gcra, numerus.Or(window, sliding)),
	} {
		require.Equal(t, want, l.String())
	}
	require.Equal(t, "10/h", numerus.PerHour(10).String())
	require.Equal(t, "1/1500ms", numerus.Every(1500*time.Millisecond).String())
	require.Equal(t, "0/1s", numerus.PerSecond(0).String(), "an invalid rate still prints")
}
