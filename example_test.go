package numerus_test

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/numerus-closus/numerus"
)

// The quick start: a limiter built from two policies, debited in a loop. Every debit names its
// instant, so the output is the same on every run.
func Example() {
	// Bursts of up to 5, refilled at 10 a second (so up to 14 in a second), and never more than
	// 100 in any minute.
	limiter := numerus.And(
		numerus.Must(numerus.GCRA(numerus.PerSecond(10), 5)),
		numerus.Must(numerus.SlidingWindow(time.Minute, 100)),
	)
	at := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for range 8 {
		next, from, ok := limiter.Debit(at)
		if ok {
			fmt.Println(at.Format("15:04:05.000"), "admitted")
		} else {
			fmt.Println(at.Format("15:04:05.000"), "refused, debitable", from)
		}
		limiter = next // the value after an admitted debit; the same value after a refusal
		at = at.Add(10 * time.Millisecond)
	}
	// Output:
	// 12:00:00.000 admitted
	// 12:00:00.010 admitted
	// 12:00:00.020 admitted
	// 12:00:00.030 admitted
	// 12:00:00.040 admitted
	// 12:00:00.050 refused, debitable from 2026-01-01T12:00:00.1Z
	// 12:00:00.060 refused, debitable from 2026-01-01T12:00:00.1Z
	// 12:00:00.070 refused, debitable from 2026-01-01T12:00:00.1Z
}

func ExampleGCRA() {
	l, err := numerus.GCRA(numerus.PerSecond(10), 5) // 5 at once, then one every 100ms: up to 14 in a second
	if err != nil {
		panic(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 1; i <= 6; i++ {
		next, from, ok := l.Debit(t0)
		fmt.Println(i, ok, from)
		l = next
	}
	// The answer is tight: refused 1ns before it, admitted at it.
	_, _, ok := l.Debit(t0.Add(100*time.Millisecond - 1))
	fmt.Println("at 99.999999ms:", ok)
	_, _, ok = l.Debit(t0.Add(100 * time.Millisecond))
	fmt.Println("at 100ms:", ok)
	fmt.Println(l)
	// Output:
	// 1 true from 2026-01-01T00:00:00Z
	// 2 true from 2026-01-01T00:00:00Z
	// 3 true from 2026-01-01T00:00:00Z
	// 4 true from 2026-01-01T00:00:00Z
	// 5 true from 2026-01-01T00:00:00Z
	// 6 false from 2026-01-01T00:00:00.1Z
	// at 99.999999ms: false
	// at 100ms: true
	// gcra 10/s burst 5
}

func ExampleTokenBucket() {
	l := numerus.Must(numerus.TokenBucket(3, numerus.PerSecond(1))) // holds 3, refills one a second
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

	l, _, ok := l.DebitN(t0, 3) // a fresh bucket is full
	fmt.Println("3 at 0s:", ok)
	_, from, ok := l.DebitN(t0.Add(500*time.Millisecond), 2) // half a token is back
	fmt.Println("2 at 500ms:", ok, from)

	s := l.Status(t0.Add(1500 * time.Millisecond))
	fmt.Println("at 1.5s:", s.Remaining, "whole tokens, full", s.Full)
	fmt.Println(l)
	// Output:
	// 3 at 0s: true
	// 2 at 500ms: false from 2026-01-01T00:00:02Z
	// at 1.5s: 1 whole tokens, full from 2026-01-01T00:00:03Z
	// token 1/s burst 3
}

func ExampleLeakyBucket() {
	// Room for 2, draining one per second (so up to 2 in a second); a fresh bucket is empty.
	l := numerus.Must(numerus.LeakyBucket(2, numerus.Every(time.Second)))
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, d := range []time.Duration{0, 0, 0, 500 * time.Millisecond, time.Second} {
		next, from, ok := l.Debit(t0.Add(d))
		if ok {
			fmt.Println(d, "admitted")
		} else {
			fmt.Println(d, "refused", from)
		}
		l = next
	}
	s := l.Status(t0.Add(time.Second))
	fmt.Println("room", s.Remaining, "empty", s.Full)
	// Output:
	// 0s admitted
	// 0s admitted
	// 0s refused from 2026-01-01T00:00:01Z
	// 500ms refused from 2026-01-01T00:00:01Z
	// 1s admitted
	// room 0 empty from 2026-01-01T00:00:03Z
}

func ExampleFiniteBucket() {
	l := numerus.Must(numerus.FiniteBucket(2)) // two tokens, ever
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, d := range []time.Duration{0, time.Hour, 2 * time.Hour} {
		next, from, ok := l.Debit(t0.Add(d))
		if ok {
			fmt.Println(d, "admitted")
		} else {
			fmt.Println(d, "refused", from)
		}
		l = next
	}
	fmt.Println("full again", l.Status(t0).Full)
	// Output:
	// 0s admitted
	// 1h0m0s admitted
	// 2h0m0s refused never
	// full again never
}

func ExampleFixedWindow() {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := numerus.Must(numerus.FixedWindow(time.Minute, 2, t0)) // 2 in each minute from t0
	// Four debits within two seconds, as many as a minute that spans two windows admits: two at
	// the end of a window, two at the start of the next.
	offsets := []time.Duration{58 * time.Second, 59 * time.Second, 59500 * time.Millisecond,
		time.Minute, time.Minute, 60500 * time.Millisecond}
	for _, d := range offsets {
		next, from, ok := l.Debit(t0.Add(d))
		if ok {
			fmt.Println(d, "admitted")
		} else {
			fmt.Println(d, "refused", from)
		}
		l = next
	}
	// Output:
	// 58s admitted
	// 59s admitted
	// 59.5s refused from 2026-01-01T00:01:00Z
	// 1m0s admitted
	// 1m0s admitted
	// 1m0.5s refused from 2026-01-01T00:02:00Z
}

func ExampleSlidingWindow() {
	l := numerus.Must(numerus.SlidingWindow(time.Minute, 2)) // 2 in any minute
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// The boundary burst of a fixed window cannot happen: the third debit waits until the first
	// one is a whole minute old.
	for _, d := range []time.Duration{58 * time.Second, 59 * time.Second, time.Minute, 118 * time.Second} {
		next, from, ok := l.Debit(t0.Add(d))
		if ok {
			fmt.Println(d, "admitted")
		} else {
			fmt.Println(d, "refused", from)
		}
		l = next
	}
	// Output:
	// 58s admitted
	// 59s admitted
	// 1m0s refused from 2026-01-01T00:01:58Z
	// 1m58s admitted
}

func ExampleSlidingWindowBucketed() {
	// 2 in any 6 consecutive sub-windows of 10s, aligned on the Unix epoch.
	l := numerus.Must(numerus.SlidingWindowBucketed(time.Minute, 6, 2))
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// Debits at 58s and 59s both count from 50s, the start of their sub-window, so they expire
	// together at 1m50s: earlier than the exact log's 1m58s, and with memory for 6 sub-windows.
	for _, d := range []time.Duration{58 * time.Second, 59 * time.Second, time.Minute,
		110 * time.Second, 110 * time.Second} {
		next, from, ok := l.Debit(t0.Add(d))
		if ok {
			fmt.Println(d, "admitted")
		} else {
			fmt.Println(d, "refused", from)
		}
		l = next
	}
	fmt.Println(l)
	// Output:
	// 58s admitted
	// 59s admitted
	// 1m0s refused from 2026-01-01T00:01:50Z
	// 1m50s admitted
	// 1m50s admitted
	// buckets 2/m in 6
}

func ExampleSlidingWindowCount() {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := numerus.Must(numerus.SlidingWindowCount(time.Minute, 10, t0))

	l, _, _ = l.DebitN(t0.Add(30*time.Second), 10) // fills the window [0s, 1m)
	// Half-way through the next window the estimate is 10·½ + 0 = 5: there is room for 5.
	l, _, ok := l.DebitN(t0.Add(90*time.Second), 5)
	fmt.Println("5 at 1m30s:", ok)
	// One more must wait until 10·(60s−e)/60s + 5 + 1 ≤ 10, at e = 36s into the window.
	_, from, ok := l.Debit(t0.Add(90 * time.Second))
	fmt.Println("1 at 1m30s:", ok, from)
	_, _, ok = l.Debit(t0.Add(96 * time.Second))
	fmt.Println("1 at 1m36s:", ok)
	// Output:
	// 5 at 1m30s: true
	// 1 at 1m30s: false from 2026-01-01T00:01:36Z
	// 1 at 1m36s: true
}

func ExampleAlwaysAllow() {
	l := numerus.AlwaysAllow()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	_, from, ok := l.DebitN(t0, 1_000_000)
	fmt.Println(ok, from)
	fmt.Printf("%+v\n", l.Status(t0))
	// Output:
	// true from 2026-01-01T00:00:00Z
	// {Limit:9223372036854775807 Remaining:9223372036854775807 Full:from 2026-01-01T00:00:00Z}
}

func ExampleAlwaysDeny() {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	_, from, ok := numerus.AlwaysDeny().Debit(t0)
	fmt.Println(ok, from)

	// It absorbs And, and Or ignores it.
	gcra := numerus.Must(numerus.GCRA(numerus.PerSecond(10), 5))
	_, from, ok = numerus.And(gcra, numerus.AlwaysDeny()).Debit(t0)
	fmt.Println(ok, from)
	_, _, ok = numerus.Or(gcra, numerus.AlwaysDeny()).Debit(t0)
	fmt.Println(ok)
	// Output:
	// false never
	// false never
	// true
}

func ExampleAnd() {
	l := numerus.And(
		numerus.Must(numerus.GCRA(numerus.Every(time.Second), 1)), // one a second
		numerus.Must(numerus.SlidingWindow(time.Minute, 2)),       // and two a minute
	)
	fmt.Println(l)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, d := range []time.Duration{0, 500 * time.Millisecond, time.Second, 2 * time.Second, time.Minute} {
		next, from, ok := l.Debit(t0.Add(d))
		if ok {
			fmt.Println(d, "admitted")
		} else {
			// The latest of the children's answers; neither child was charged.
			fmt.Println(d, "refused", from)
		}
		l = next
	}
	// Output:
	// gcra 1/s burst 1 & sliding 2/m
	// 0s admitted
	// 500ms refused from 2026-01-01T00:00:01Z
	// 1s admitted
	// 2s refused from 2026-01-01T00:01:00Z
	// 1m0s admitted
}

func ExampleOr() {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// One in each minute from t0, or else from a reserve of two.
	l := numerus.Or(
		numerus.Must(numerus.FixedWindow(time.Minute, 1, t0)),
		numerus.Must(numerus.FiniteBucket(2)),
	)
	fmt.Println(l)
	// The first debit is admitted by both children and charged to both, so the reserve covers
	// only one more debit in the first minute.
	for _, d := range []time.Duration{0, 10 * time.Second, 20 * time.Second, time.Minute} {
		next, from, ok := l.Debit(t0.Add(d))
		if ok {
			fmt.Println(d, "admitted")
		} else {
			// The earliest of the children's answers.
			fmt.Println(d, "refused", from)
		}
		l = next
	}
	// Output:
	// window 1/m | finite 2
	// 0s admitted
	// 10s admitted
	// 20s refused from 2026-01-01T00:01:00Z
	// 1m0s admitted
}

func ExampleAllOf() {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := numerus.AllOf(
		numerus.Must(numerus.GCRA(numerus.PerSecond(10), 5)),
		numerus.Must(numerus.SlidingWindow(time.Minute, 100)),
		numerus.Must(numerus.FixedWindow(24*time.Hour, 1000, t0)),
	)
	fmt.Println(l)
	fmt.Printf("%+v\n", l.Status(t0)) // the least limit and remaining
	l, _, _ = l.DebitN(t0, 5)
	fmt.Printf("%+v\n", l.Status(t0)) // full when the last child is: the day's end
	fmt.Println(numerus.AllOf())
	// Output:
	// gcra 10/s burst 5 & sliding 100/m & window 1000/d
	// {Limit:5 Remaining:5 Full:from 2026-01-01T00:00:00Z}
	// {Limit:5 Remaining:0 Full:from 2026-01-02T00:00:00Z}
	// allow
}

func ExampleAnyOf() {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := numerus.AnyOf(
		numerus.Must(numerus.FiniteBucket(1)),
		numerus.Must(numerus.FixedWindow(time.Hour, 1, t0)),
		numerus.Must(numerus.GCRA(numerus.Every(time.Minute), 1)),
	)
	l, _, _ = l.Debit(t0) // every child admits it, and every child is charged
	_, from, ok := l.Debit(t0.Add(10 * time.Second))
	fmt.Println(ok, from) // the earliest answer: the GCRA's
	fmt.Printf("%+v\n", l.Status(t0.Add(10*time.Second)))
	fmt.Println(numerus.AnyOf())
	// Output:
	// false from 2026-01-01T00:01:00Z
	// {Limit:1 Remaining:0 Full:never}
	// deny
}

func ExampleAdmissions() {
	// 3 at once, then one every third of a second for ever (so 5 in the first second: the burst
	// and two more): the instants carry no rounding drift.
	l := numerus.Must(numerus.GCRA(numerus.PerSecond(3), 3))
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	n := 0
	for at := range numerus.Admissions(l, t0, 1) {
		fmt.Println(at.Sub(t0))
		if n++; n == 9 {
			break
		}
	}
	// Output:
	// 0s
	// 0s
	// 0s
	// 333.333334ms
	// 666.666667ms
	// 1s
	// 1.333333334s
	// 1.666666667s
	// 2s
}

func ExampleNextDebitable_Wait() {
	l := numerus.Must(numerus.GCRA(numerus.PerSecond(10), 5))
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l, _, _ = l.DebitN(t0, 5) // the whole burst
	for _, cost := range []int64{1, 2, 5, 6} {
		_, from, _ := l.DebitN(t0, cost) // refused: l is unchanged
		d, ok := from.Wait(t0)
		fmt.Println(cost, d, ok)
	}
	// Output:
	// 1 100ms true
	// 2 200ms true
	// 5 500ms true
	// 6 0s false
}

func ExampleMust() {
	l := numerus.Must(numerus.SlidingWindow(time.Minute, 100))
	fmt.Println(l)

	defer func() { fmt.Println("panic:", recover()) }()
	numerus.Must(numerus.GCRA(numerus.PerSecond(10), 0))
	// Output:
	// sliding 100/m
	// panic: numerus: invalid burst: must be positive, got 0
}

func ExampleParamError() {
	_, err := numerus.SlidingWindowBucketed(time.Minute, 7, 100)
	fmt.Println(err)
	fmt.Println(errors.Is(err, numerus.ErrInvalidArgument))
	var pe *numerus.ParamError
	if errors.As(err, &pe) {
		fmt.Println(pe.Param)
	}
	// Output:
	// numerus: invalid windows: must divide the window 60000000000ns evenly
	// true
	// windows
}

func ExamplePer() {
	fmt.Println(numerus.Per(500, 7*24*time.Hour), numerus.Per(3, 1500*time.Millisecond))
	fmt.Println(numerus.PerSecond(10), numerus.PerMinute(100), numerus.PerHour(1), numerus.Every(time.Minute))
	// Output:
	// 500/7d 3/1500ms
	// 10/s 100/m 1/h 1/m
}

func ExampleNextDebitable() {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var zero numerus.NextDebitable
	fmt.Println(zero, zero.IsNever()) // an unset answer is never mistaken for a wait

	soon := numerus.DebitableFrom(t0.Add(time.Second))
	later := numerus.DebitableFrom(t0.Add(time.Minute))
	answers := []numerus.NextDebitable{numerus.Never(), later, soon}
	slices.SortFunc(answers, numerus.NextDebitable.Compare) // Never sorts after every instant
	fmt.Println(answers)

	fmt.Println(numerus.Latest(soon, later))              // what an And answers
	fmt.Println(numerus.Earliest(later, numerus.Never())) // what an Or answers
	fmt.Println(soon.Wait(t0))
	fmt.Println(numerus.Never().Wait(t0))
	// Output:
	// never true
	// [from 2026-01-01T00:00:01Z from 2026-01-01T00:01:00Z never]
	// from 2026-01-01T00:01:00Z
	// from 2026-01-01T00:01:00Z
	// 1s true
	// 0s false
}

func ExampleStatus() {
	l := numerus.Must(numerus.GCRA(numerus.PerSecond(10), 5))
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l, _, _ = l.DebitN(t0, 3)
	// 150ms later, 1.5 of the 3 tokens are back: 3.5 remain, reported rounded down.
	s := l.Status(t0.Add(150 * time.Millisecond))
	fmt.Println(s.Limit, s.Remaining, s.Full)
	// Output:
	// 5 3 from 2026-01-01T00:00:00.3Z
}

// A limiter is a value: to ask without taking, debit and discard the result; to explore two
// futures, debit the same value twice. Neither changes it.
func ExampleLimiter_peek() {
	l := numerus.Must(numerus.SlidingWindow(time.Minute, 3))
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l, _, _ = l.DebitN(t0, 2)

	_, from, ok := l.DebitN(t0.Add(time.Second), 2) // would 2 more go through? (peek)
	fmt.Println("2 more:", ok, from)

	a, _, _ := l.Debit(t0.Add(time.Second)) // two branches of the same value
	b, _, _ := l.Debit(t0.Add(2 * time.Second))
	at := t0.Add(61 * time.Second)
	fmt.Println("remaining at 1m1s: l", l.Status(at).Remaining, "a", a.Status(at).Remaining,
		"b", b.Status(at).Remaining)
	// Output:
	// 2 more: false from 2026-01-01T00:01:00Z
	// remaining at 1m1s: l 3 a 3 b 2
}
