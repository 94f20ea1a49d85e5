// Package clock is the seam through which the blocking parts of numerus (package schedule) read
// the time and wait. The pure core never uses it: there, time is a parameter.
//
// Real is the system clock. Fake is a clock that moves only when told to (Advance), for tests
// that cannot run inside a testing/synctest bubble.
package clock

import "time"

// Clock tells the time and makes timers.
type Clock interface {
	// Now returns the current instant.
	Now() time.Time
	// NewTimer returns a timer that sends the instant on its channel once d has passed.
	NewTimer(d time.Duration) Timer
	// AfterFunc returns a timer that calls f, in a goroutine of its own, once d has passed.
	// Its C is nil.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer fires once on C (or calls its function) unless stopped first.
type Timer interface {
	// C returns the channel the instant is sent on; nil for a timer made by AfterFunc.
	C() <-chan time.Time
	// Stop prevents the timer from firing. It returns false if the timer had already fired or
	// been stopped.
	Stop() bool
}

// Real is the system clock. Inside a testing/synctest bubble its time is the bubble's fake time.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// Steady is the system clock read as the wall time of its start plus the monotonic time elapsed
// since: it never steps back, and a later setting of the wall clock (an NTP step, a VM restored)
// moves it not at all. Over a long life it drifts from the wall clock by the system's slewing and
// by the time the machine was suspended, which a rate limit can afford and a stall of the length
// of a step back cannot. Its timers are Real's. The zero Steady is Real.
type Steady struct {
	Real
	start time.Time
}

// NewSteady returns the steady clock that starts now.
func NewSteady() Steady { return Steady{start: time.Now()} }

// Now returns the start plus the monotonic time since, which reads one clock where time.Now
// reads two.
func (s Steady) Now() time.Time {
	if s.start.IsZero() {
		return time.Now()
	}
	return s.start.Add(time.Since(s.start))
}

// NewTimer returns a time.Timer.
func (Real) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

// AfterFunc returns the timer of time.AfterFunc.
func (Real) AfterFunc(d time.Duration, f func()) Timer { return realTimer{time.AfterFunc(d, f)} }

type realTimer struct{ t *time.Timer }

func (r realTimer) C() <-chan time.Time { return r.t.C }
func (r realTimer) Stop() bool          { return r.t.Stop() }
