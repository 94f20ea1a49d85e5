package typed

import (
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/kernel"
)

// benchLoop calls debit once per iteration, 1µs apart, at a rate that both admits and refuses,
// and reports the share admitted so the input is visibly what it claims. debit is a closure over
// a concrete limiter, so the call inside it is as direct as a user's.
func benchLoop(b *testing.B, debit func(at time.Time) bool) {
	b.ReportAllocs()
	at, admitted := t0, 0
	for b.Loop() {
		at = at.Add(time.Microsecond)
		if debit(at) {
			admitted++
		}
	}
	ratio := float64(admitted) / float64(b.N)
	b.ReportMetric(ratio, "admitted/op")
	if b.N > 10000 && (ratio == 0 || ratio == 1) {
		b.Fatalf("the benchmark should both admit and refuse, admitted %v", ratio)
	}
}

// debitOf returns the closure that debits l, keeping what it becomes.
func debitOf[L Limiter[L]](l L) func(time.Time) bool {
	return func(at time.Time) bool {
		next, _, ok := l.DebitN(at, 1)
		if ok {
			l = next
		}
		return ok
	}
}

func BenchmarkDebit(b *testing.B) {
	cases := []struct {
		name  string
		debit func(testing.TB) func(time.Time) bool
	}{
		{"gcra", func(b testing.TB) func(time.Time) bool {
			l := build[GCRA](b, "gcra 500000/s burst 50")
			return func(at time.Time) bool {
				next, _, ok := l.DebitN(at, 1)
				if ok {
					l = next
				}
				return ok
			}
		}},
		{"token", func(b testing.TB) func(time.Time) bool {
			l := build[TokenBucket](b, "token 500000/s burst 50")
			return func(at time.Time) bool {
				next, _, ok := l.DebitN(at, 1)
				if ok {
					l = next
				}
				return ok
			}
		}},
		{"leaky", func(b testing.TB) func(time.Time) bool {
			l := build[LeakyBucket](b, "leaky 500000/s burst 50")
			return func(at time.Time) bool {
				next, _, ok := l.DebitN(at, 1)
				if ok {
					l = next
				}
				return ok
			}
		}},
		{"window", func(b testing.TB) func(time.Time) bool {
			l := build[FixedWindow](b, "window 500/ms")
			return func(at time.Time) bool {
				next, _, ok := l.DebitN(at, 1)
				if ok {
					l = next
				}
				return ok
			}
		}},
		{"count", func(b testing.TB) func(time.Time) bool {
			l := build[SlidingWindowCount](b, "count 500/ms")
			return func(at time.Time) bool {
				next, _, ok := l.DebitN(at, 1)
				if ok {
					l = next
				}
				return ok
			}
		}},
		{"sliding", func(b testing.TB) func(time.Time) bool {
			l := build[SlidingWindow](b, "sliding 500/ms")
			return func(at time.Time) bool {
				next, _, ok := l.DebitN(at, 1)
				if ok {
					l = next
				}
				return ok
			}
		}},
		{"and3-gcra", func(b testing.TB) func(time.Time) bool {
			l := build[And[GCRA, And[GCRA, GCRA]]](b,
				"gcra 500000/s burst 50 & (gcra 400000/s burst 60 & gcra 600000/s burst 70)")
			return func(at time.Time) bool {
				next, _, ok := l.DebitN(at, 1)
				if ok {
					l = next
				}
				return ok
			}
		}},
		{"and3", func(b testing.TB) func(time.Time) bool {
			l := build[And[GCRA, And[FixedWindow, SlidingWindowCount]]](b,
				"gcra 500000/s burst 50 & (window 600/ms & count 700/ms)")
			return func(at time.Time) bool {
				next, _, ok := l.DebitN(at, 1)
				if ok {
					l = next
				}
				return ok
			}
		}},
		{"or", func(b testing.TB) func(time.Time) bool {
			l := build[Or[GCRA, TokenBucket]](b, "gcra 500000/s burst 50 | token 100000/s")
			return func(at time.Time) bool {
				next, _, ok := l.DebitN(at, 1)
				if ok {
					l = next
				}
				return ok
			}
		}},
		{"generic-helper-gcra", func(b testing.TB) func(time.Time) bool {
			return debitOf(build[GCRA](b, "gcra 500000/s burst 50"))
		}},
		{"dynamic-gcra", func(b testing.TB) func(time.Time) bool {
			var l numerus.Limiter = numerus.Must(numerus.GCRA(numerus.PerSecond(500000), 50))
			return func(at time.Time) bool {
				next, _, ok := l.DebitN(at, 1)
				if ok {
					l = next
				}
				return ok
			}
		}},
	}
	for _, c := range cases {
		b.Run("algo="+c.name, func(b *testing.B) { benchLoop(b, c.debit(b)) })
	}
}

func BenchmarkPolicyDebit(b *testing.B) {
	for _, c := range []struct{ name, text string }{
		{"gcra", "gcra 500000/s burst 50"},
		{"and3", "gcra 500000/s burst 50 & window 600/ms & count 700/ms"},
		{"sliding", "sliding 500/ms"},
	} {
		b.Run("policy="+c.name, func(b *testing.B) {
			b.ReportAllocs()
			p := MustCompile(c.text)
			s, at := p.Fresh(), t0
			for b.Loop() {
				at = at.Add(time.Microsecond)
				if next, _, ok := p.DebitN(s, at, 1); ok {
					s = next
				}
			}
		})
	}
}

// BenchmarkPolicyDebitIn is a debit of a State kept in place and its status, as stores run it.
func BenchmarkPolicyDebitIn(b *testing.B) {
	for _, c := range []struct{ name, text string }{
		{"gcra", "gcra 500000/s burst 50"},
		{"and3", "gcra 500000/s burst 50 & window 600/ms & count 700/ms"},
		{"sliding", "sliding 500/ms"},
	} {
		b.Run("policy="+c.name, func(b *testing.B) {
			b.ReportAllocs()
			p := MustCompile(c.text)
			s, at := p.Fresh(), kernel.FromTime(t0)
			for b.Loop() {
				at += int64(time.Microsecond)
				_, _ = in(p).DebitIn(&s, at, 1)
			}
		})
	}
}

// benchSnapshot saves and restores a limiter after some debits, reporting the snapshot's size.
func benchSnapshot[L Limiter[L]](b *testing.B, name string, l L, save func(L, []byte) ([]byte, error),
	load func(*L, []byte) error) {
	l, _ = history(l, []step{{0, 1}, {time.Millisecond, 2}, {time.Second, 1}})
	data, err := save(l, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("op=snapshot/"+name, func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 256)
		for b.Loop() {
			buf, _ = save(l, buf[:0])
		}
		b.ReportMetric(float64(len(data)), "bytes/snapshot")
	})
	b.Run("op=restore/"+name, func(b *testing.B) {
		b.ReportAllocs()
		var got L
		for b.Loop() {
			if err := load(&got, data); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkSnapshot(b *testing.B) {
	benchSnapshot(b, "gcra", build[GCRA](b, "gcra 10/s burst 5"), GCRA.AppendBinary, (*GCRA).UnmarshalBinary)
	type and3 = And[GCRA, And[FixedWindow, SlidingWindowCount]]
	benchSnapshot(b, "and3", build[and3](b, "gcra 10/s burst 5 & (window 5/s & count 4/s)"),
		and3.AppendBinary, (*and3).UnmarshalBinary)
	benchSnapshot(b, "sliding", build[SlidingWindow](b, "sliding 10/s"), SlidingWindow.AppendBinary,
		(*SlidingWindow).UnmarshalBinary)
	p := MustCompile("gcra 10/s burst 5 & window 5/s & count 4/s")
	s, _, _ := p.DebitN(p.Fresh(), t0, 2)
	enc := p.AppendState(nil, s)
	b.Run("op=append-state/and3", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 256)
		for b.Loop() {
			buf = p.AppendState(buf[:0], s)
		}
		b.ReportMetric(float64(len(enc)), "bytes/snapshot")
	})
	b.Run("op=decode-state/and3", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := p.DecodeState(enc); err != nil {
				b.Fatal(err)
			}
		}
	})
}
