package clock

import (
	"slices"
	"sync"
	"time"
)

// Fake is a clock whose time moves only when Advance or Set is called. Timers fire during those
// calls, in the order of their instants (ties in the order they were made), with the clock reading
// each timer's instant as it fires. Unlike the system clock, an AfterFunc function runs in the
// goroutine that advances the clock, before Advance returns, so a test sees its effects at once.
//
// Use it by pointer from NewFake; it is safe for concurrent use. The zero Fake is not usable.
type Fake struct {
	mu      sync.Mutex
	changed *sync.Cond
	now     time.Time
	seq     uint64
	timers  []*fakeTimer // pending, in no particular order
}

// NewFake returns a fake clock reading t.
func NewFake(t time.Time) *Fake {
	f := &Fake{now: t}
	f.changed = sync.NewCond(&f.mu)
	return f
}

type fakeTimer struct {
	clock *Fake
	at    time.Time
	seq   uint64
	c     chan time.Time
	f     func()
}

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// NewTimer returns a timer that fires once the fake time reaches Now()+d; at once if d ≤ 0.
func (f *Fake) NewTimer(d time.Duration) Timer {
	return f.add(d, make(chan time.Time, 1), nil)
}

// AfterFunc returns a timer that calls fn once the fake time reaches Now()+d. If d ≤ 0, fn runs in
// a goroutine of its own at once, as with the system clock.
func (f *Fake) AfterFunc(d time.Duration, fn func()) Timer { return f.add(d, nil, fn) }

func (f *Fake) add(d time.Duration, c chan time.Time, fn func()) Timer {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	t := &fakeTimer{clock: f, at: f.now.Add(d), seq: f.seq, c: c, f: fn}
	if d > 0 {
		f.timers = append(f.timers, t)
		f.changed.Broadcast()
		return t
	}
	if c != nil {
		c <- f.now
	} else {
		go fn()
	}
	return t
}

// Advance moves the fake time on by d, firing every timer due on the way. It panics if d < 0.
func (f *Fake) Advance(d time.Duration) {
	if d < 0 {
		panic("clock: Advance with a negative duration")
	}
	f.Set(f.Now().Add(d))
}

// Set moves the fake time on to t, firing every timer due on the way. It panics if t is before
// the fake time.
func (f *Fake) Set(t time.Time) {
	for {
		f.mu.Lock()
		if t.Before(f.now) {
			f.mu.Unlock()
			panic("clock: Set to an earlier instant")
		}
		next := f.due(t)
		if next == nil {
			f.now = t
			f.mu.Unlock()
			return
		}
		f.now = next.at
		f.mu.Unlock()
		next.fire()
	}
}

// due removes and returns the earliest pending timer at or before t, or nil. f.mu is held.
func (f *Fake) due(t time.Time) *fakeTimer {
	i := -1
	for j, x := range f.timers {
		if !x.at.After(t) && (i < 0 || x.before(f.timers[i])) {
			i = j
		}
	}
	if i < 0 {
		return nil
	}
	x := f.timers[i]
	f.timers = slices.Delete(f.timers, i, i+1)
	f.changed.Broadcast()
	return x
}

func (t *fakeTimer) before(u *fakeTimer) bool {
	return t.at.Before(u.at) || (t.at.Equal(u.at) && t.seq < u.seq)
}

func (t *fakeTimer) fire() {
	if t.f != nil {
		t.f()
		return
	}
	t.c <- t.at
}

// Timers returns how many timers are pending.
func (f *Fake) Timers() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.timers)
}

// BlockUntil waits until exactly n timers are pending: a test calls it to know that the goroutines
// it started have reached their waits. It waits on a condition, not on time.
func (f *Fake) BlockUntil(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.timers) != n {
		f.changed.Wait()
	}
}

// Next returns the instant of the earliest pending timer, and false if there is none.
func (f *Fake) Next() (time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var first *fakeTimer
	for _, x := range f.timers {
		if first == nil || x.before(first) {
			first = x
		}
	}
	if first == nil {
		return time.Time{}, false
	}
	return first.at, true
}

func (t *fakeTimer) C() <-chan time.Time { return t.c }

func (t *fakeTimer) Stop() bool {
	f := t.clock
	f.mu.Lock()
	defer f.mu.Unlock()
	i := slices.Index(f.timers, t)
	if i < 0 {
		return false
	}
	f.timers = slices.Delete(f.timers, i, i+1)
	f.changed.Broadcast()
	return true
}
