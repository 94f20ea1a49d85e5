package keyed_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/numerus-closus/numerus/internal/inplace"
	"github.com/numerus-closus/numerus/internal/kernel"
	"github.com/numerus-closus/numerus/keyed"
)

func TestDuration(t *testing.T) {
	var zero keyed.Duration
	assert.True(t, zero.IsNever())
	assert.NotEqual(t, keyed.DurationOf(0), zero, "never is not a zero wait")
	assert.Equal(t, "never", zero.String())
	_, ok := zero.Seconds()
	assert.False(t, ok)
	for d, want := range map[time.Duration]int64{0: 0, 1: 1, time.Second: 1, time.Second + 1: 2, 2500 * time.Millisecond: 3, -time.Second: 0} {
		s, ok := keyed.DurationOf(d).Seconds()
		assert.True(t, ok)
		assert.Equal(t, want, s, "%v", d)
	}
	assert.Equal(t, "1.5s", keyed.DurationOf(1500*time.Millisecond).String())
	var d keyed.Decision
	assert.False(t, d.Allowed)
	assert.True(t, d.RetryAfter.IsNever())
}

// TestSetOutcome: an outcome's instants become waits from the decision's instant, Never stays
// Never, remaining is clamped at zero, an admission waits zero, and every field is overwritten.
func TestSetOutcome(t *testing.T) {
	at := kernel.FromTime(t0)
	d := keyed.Decision{Allowed: true, Remaining: 9, Limit: 9, FullAfter: keyed.DurationOf(1), RetryAfter: keyed.DurationOf(1)}
	d.SetOutcome(inplace.Outcome{Remaining: -2, Limit: 5, Retry: at + 1500, Full: kernel.Never, Next: at + 1500, Binds: 2}, false, at)
	assert.Equal(t, keyed.Decision{Limit: 5, FullAfter: keyed.Duration{}, RetryAfter: keyed.DurationOf(1500), RefillAfter: keyed.DurationOf(1500), Binding: 2}, d)
	d.SetOutcome(inplace.Outcome{Remaining: 3, Limit: 5, Retry: at, Full: at + 7, Next: at + 3}, true, at)
	assert.Equal(t, keyed.Decision{Allowed: true, Remaining: 3, Limit: 5, FullAfter: keyed.DurationOf(7), RetryAfter: keyed.DurationOf(0), RefillAfter: keyed.DurationOf(3)}, d)
	d.SetOutcome(inplace.Outcome{Limit: 5, Retry: kernel.Never, Full: at - 1, Next: kernel.Never}, false, at)
	assert.Equal(t, keyed.Decision{Limit: 5, FullAfter: keyed.DurationOf(0), RetryAfter: keyed.Duration{}, RefillAfter: keyed.Duration{}}, d)
	// Admitted at the last instant, whose number is Never's: the retry is still now.
	d.SetOutcome(inplace.Outcome{Remaining: 1, Limit: 2, Retry: kernel.Never, Full: kernel.Never}, true, kernel.Never)
	assert.Equal(t, keyed.DurationOf(0), d.RetryAfter)
}
