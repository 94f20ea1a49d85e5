package main

import (
	"testing"

	"github.com/numerus-closus/numerus/typed"
)

// BenchmarkSim replays 10^6 requests a round through the README's policy, as sim does (typed
// values, the intervals, the children charged), and reports the requests replayed a second.
func BenchmarkSim(b *testing.B) {
	for _, c := range []struct{ name, policy, traffic string }{
		{"policy=readme/traffic=const", "gcra 5/s burst 1 & sliding 100/m & sliding 1000/d", "const:1000/s"},
		{"policy=readme/traffic=poisson", "gcra 5/s burst 1 & sliding 100/m & sliding 1000/d", "poisson:1000/s:1"},
		{"policy=gcra/traffic=const", "gcra 500/s burst 10", "const:1000/s"},
	} {
		b.Run(c.name, func(b *testing.B) {
			sp, err := typed.Parse(c.policy)
			if err != nil {
				b.Fatal(err)
			}
			const events, dur = 1_000_000, int64(1000e9) // 10^6 requests at 1000/s
			b.ReportAllocs()
			var admitted int64
			for b.Loop() {
				tr, err := parseTraffic(c.traffic, epochBase, nil)
				if err != nil {
					b.Fatal(err)
				}
				s := simulate([]typed.Spec{sp}, tr, epochBase, dur, 120, nil)[0]
				if s.offered < events*9/10 {
					b.Fatalf("replayed %d requests, want about %d", s.offered, events)
				}
				admitted = s.admitted
			}
			b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(admitted), "admitted")
		})
	}
}
