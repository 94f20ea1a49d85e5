package clock_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/numerus-closus/numerus/internal/clock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestFakeFiresTimersInOrderAtTheirInstants(t *testing.T) {
	f := clock.NewFake(t0)
	var fired []time.Time
	record := func() { fired = append(fired, f.Now()) }
	f.AfterFunc(3*time.Second, record)
	f.AfterFunc(time.Second, record)
	tm := f.NewTimer(2 * time.Second)
	f.AfterFunc(time.Second, record) // same instant: after the first one made
	require.Equal(t, 4, f.Timers())
	next, ok := f.Next()
	require.True(t, ok)
	assert.True(t, next.Equal(t0.Add(time.Second)))

	f.Advance(2500 * time.Millisecond)
	assert.Equal(t, []time.Time{t0.Add(time.Second), t0.Add(time.Second)}, fired)
	select {
	case at := <-tm.C():
		assert.True(t, at.Equal(t0.Add(2*time.Second)))
	default:
		t.Fatal("the timer due at 2s did not fire")
	}
	assert.True(t, f.Now().Equal(t0.Add(2500*time.Millisecond)))
	assert.Equal(t, 1, f.Timers())

	f.Advance(time.Second)
	assert.Len(t, fired, 3)
	assert.True(t, fired[2].Equal(t0.Add(3*time.Second)))
	_, ok = f.Next()
	assert.False(t, ok)
}

func TestFakeStop(t *testing.T) {
	f := clock.NewFake(t0)
	called := false
	tm := f.AfterFunc(time.Second, func() { called = true })
	assert.True(t, tm.Stop())
	assert.False(t, tm.Stop(), "a stopped timer stops once")
	f.Advance(time.Hour)
	assert.False(t, called)
	assert.Nil(t, tm.C())

	tm = f.NewTimer(time.Second)
	f.Advance(time.Second)
	assert.False(t, tm.Stop(), "a fired timer cannot be stopped")
}

func TestFakeTimerMadeWhileFiringFiresInTheSameAdvance(t *testing.T) {
	f := clock.NewFake(t0)
	var fired []time.Time
	f.AfterFunc(time.Second, func() {
		fired = append(fired, f.Now())
		f.AfterFunc(time.Second, func() { fired = append(fired, f.Now()) })
	})
	f.Advance(5 * time.Second)
	assert.Equal(t, []time.Time{t0.Add(time.Second), t0.Add(2 * time.Second)}, fired)
}

func TestFakeNonPositiveDurations(t *testing.T) {
	f := clock.NewFake(t0)
	tm := f.NewTimer(0)
	at := <-tm.C()
	assert.True(t, at.Equal(t0))
	assert.Equal(t, 0, f.Timers())
	assert.Panics(t, func() { f.Advance(-1) })
	assert.Panics(t, func() { f.Set(t0.Add(-1)) })

	synctest.Test(t, func(t *testing.T) {
		done := make(chan struct{})
		f.AfterFunc(-time.Second, func() { close(done) })
		<-done
	})
}

func TestFakeBlockUntil(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := clock.NewFake(t0)
		woke := make(chan time.Time)
		go func() { woke <- <-f.NewTimer(time.Minute).C() }()
		f.BlockUntil(1)
		f.Advance(time.Minute)
		assert.True(t, (<-woke).Equal(t0.Add(time.Minute)))
		f.BlockUntil(0)
	})
}

func TestReal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var c clock.Clock = clock.Real{}
		start := c.Now()
		<-c.NewTimer(time.Second).C()
		assert.Equal(t, time.Second, c.Now().Sub(start))
		done := make(chan struct{})
		tm := c.AfterFunc(time.Second, func() { close(done) })
		assert.Nil(t, tm.C())
		<-done
		assert.False(t, tm.Stop())
	})
}
