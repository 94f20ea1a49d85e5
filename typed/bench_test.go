package typed

import (
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
)

// benchDebit debits l once per iteration, 1µs apart, at a rate that both admits and refuses, and
// reports the share admitted so the input is visibly what it claims.
func benchDebit[L Limiter[L]](b *testing.B, l L) {
	b.ReportAllocs()
	at, admitted := t0, 0
	for b.Loop() {
		at = at.Add(time.Microsecond)
		next, _, ok := l.DebitN(at, 1)
		if ok {
			l, admitted = next, admitted+1
		}
	}
	ratio := float64(admitted) / float64(b.N)
	b.ReportMetric(ratio, "admitted/op")
	if b.N > 10000 && (ratio == 0 || ratio == 1) {
		b.Fatalf("the benchmark should both admit and refuse, admitted %v", ratio)
	}
}

func BenchmarkDebit(b *testing.B) {
	b.Run("algo=gcra", func(b *testing.B) { benchDebit(b, build[GCRA](b, "gcra 500000/s burst 50")) })
	b.Run("algo=token", func(b *testing.B) { benchDebit(b, build[TokenBucket](b, "token 500000/s burst 50")) })
	b.Run("algo=leaky", func(b *testing.B) { benchDebit(b, build[LeakyBucket](b, "leaky 500000/s burst 50")) })
	b.Run("algo=window", func(b *testing.B) { benchDebit(b, build[FixedWindow](b, "window 500/ms")) })
	b.Run("algo=count", func(b *testing.B) { benchDebit(b, build[SlidingWindowCount](b, "count 500/ms")) })
	b.Run("algo=sliding", func(b *testing.B) { benchDebit(b, build[SlidingWindow](b, "sliding 500/ms")) })
	b.Run("algo=and3", func(b *testing.B) {
		benchDebit(b, build[And[GCRA, And[FixedWindow, SlidingWindowCount]]](b,
			"gcra 500000/s burst 50 & (window 600/ms & count 700/ms)"))
	})
	b.Run("algo=or", func(b *testing.B) {
		benchDebit(b, build[Or[GCRA, TokenBucket]](b, "gcra 500000/s burst 50 | token 100000/s"))
	})
	b.Run("algo=dynamic-gcra", func(b *testing.B) {
		benchDynamic(b, numerus.Must(numerus.GCRA(numerus.PerSecond(500000), 50)))
	})
}

func benchDynamic(b *testing.B, l numerus.Limiter) {
	b.ReportAllocs()
	at := t0
	for b.Loop() {
		at = at.Add(time.Microsecond)
		if next, _, ok := l.DebitN(at, 1); ok {
			l = next
		}
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
