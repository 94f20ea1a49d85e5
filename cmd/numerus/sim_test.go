package main

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/numerus-closus/numerus/internal/inplace"
	"github.com/numerus-closus/numerus/typed"
	"github.com/stretchr/testify/require"
)

var simCases = []struct{ policy, traffic, dur string }{
	{"gcra 5/s burst 1 & sliding 100/m & sliding 1000/d", "poisson:20/s:7+burst:50/2m", "30m"},
	{"100/min", "const:3/s", "10m"},
	{"window 100/m", "poisson:50/s:3", "5m"},
	{"gcra 10/s burst 5 & window 1000/h & count 50/10s", "const:13/s+burst:30/45s", "20m"},
	{"token 2/s burst 5 | sliding 100/h", "poisson:4/s:9", "1h"},
	{"(gcra 1/s | window 5/m) & finite 200", "const:2/s", "30m"},
	{"buckets 100/1m in 6 & leaky 3/s burst 4", "poisson:5/s:1", "15m"},
}

// runCase simulates one case through sim's own path.
func runCase(t testing.TB, policy, traffic, dur string, cache bool) *simulation {
	t.Helper()
	sp, err := typed.Parse(policy)
	require.NoError(t, err)
	d, err := parseDuration(dur)
	require.NoError(t, err)
	tr, err := parseTraffic(traffic, epochBase, nil)
	require.NoError(t, err)
	s := newSimulation(sp, epochBase, (d+119)/120, 120)
	s.cache = cache
	replayTraffic(tr, epochBase+d, []*simulation{s}, nil)
	return s
}

// TestSimMatchesReplay holds sim's counts to a plain replay of the same requests through the
// policy as a numerus.Limiter (typed.Policy's, which shares no code with sim's typed values):
// admitted, refused, refused for ever, the longest wait, and for a policy without an Or the most
// admissions in any span of each limit's period.
func TestSimMatchesReplay(t *testing.T) {
	for _, c := range simCases {
		t.Run(c.policy, func(t *testing.T) {
			s := runCase(t, c.policy, c.traffic, c.dur, true)
			p := typed.MustCompile(c.policy)
			l := p.Limiter(p.Fresh())
			d, _ := parseDuration(c.dur)
			tr, _ := parseTraffic(c.traffic, epochBase, nil)
			var admitted, refused, never, longest int64
			var at []int64
			for {
				ns, ok := tr.next()
				if !ok || ns >= epochBase+d {
					break
				}
				next, from, ok := l.Debit(time.Unix(0, ns))
				l = next
				switch wait, finite := from.Wait(time.Unix(0, ns)); {
				case ok:
					admitted++
					at = append(at, ns)
				case !finite:
					refused++
					never++
				default:
					refused++
					longest = max(longest, int64(wait))
				}
			}
			require.Equal(t, admitted, s.admitted, "admitted")
			require.Equal(t, refused, s.refused, "refused")
			require.Equal(t, never, s.never, "refused for ever")
			require.Equal(t, longest, s.longest, "longest wait")
			require.Equal(t, admitted+refused, s.offered)
			require.Positive(t, s.admitted)
			require.Positive(t, s.refused)
			if !hasOr(p.Spec()) {
				for _, ch := range s.children {
					for _, w := range ch.windows {
						require.Equal(t, int64(mostInAnySpan(at, w.span)), w.most, "%s: most in any %s", w.leaf, fmtDur(w.span))
					}
				}
			}
		})
	}
}

// TestSimCacheAgrees checks step's shortcut for refusals (see simulation.step): the same figures
// as asking the core for every request.
func TestSimCacheAgrees(t *testing.T) {
	for _, c := range simCases {
		with, without := runCase(t, c.policy, c.traffic, c.dur, true), runCase(t, c.policy, c.traffic, c.dur, false)
		require.Equal(t, without.perBin, with.perBin, c.policy)
		require.Equal(t, without.waits, with.waits, c.policy)
		require.Equal(t, []int64{without.admitted, without.refused, without.never, without.longest},
			[]int64{with.admitted, with.refused, with.never, with.longest}, c.policy)
	}
}

// TestSimChildren checks the tokens each child is drawn with against the policy's own status: an
// And has the least of its children's, an Or the greatest.
func TestSimChildren(t *testing.T) {
	for _, c := range simCases {
		sp, _ := typed.Parse(c.policy)
		if sp.Algo != typed.AlgoAnd && sp.Algo != typed.AlgoOr {
			continue
		}
		s := runCase(t, c.policy, c.traffic, c.dur, true)
		p := typed.MustCompile(c.policy)
		st, e := p.Fresh(), p.InPlace(inplace.Key{})
		tr, _ := parseTraffic(c.traffic, epochBase, nil)
		// Replay the policy alone and compare its remaining at each interval's end.
		bin, end := 0, s.start+s.width
		for bin < len(s.perBin) {
			ns, ok := tr.next()
			for bin < len(s.perBin) && (!ok || ns >= end) {
				out, _ := e.PeekIn(&st, end)
				want := s.perBin[bin].remaining[0]
				for _, r := range s.perBin[bin].remaining {
					if sp.Algo == typed.AlgoAnd {
						want = min(want, r)
					} else {
						want = max(want, r)
					}
				}
				require.Equal(t, out.Remaining, want, "%s: interval %d", c.policy, bin)
				bin, end = bin+1, end+s.width
			}
			if ok {
				e.DebitIn(&st, ns, 1)
			}
		}
	}
}

// TestSimAllocs pins sim's replay of a request at no allocation, refused and admitted, with typed
// values for the README's policy and a compiled Policy for a shape typed.go does not build.
func TestSimAllocs(t *testing.T) {
	for _, c := range []struct{ policy, traffic string }{
		{"gcra 5/s burst 1 & sliding 100/m & sliding 1000/d", "const:1000/s"},
		{"gcra 500/s burst 10 & window 100000/h", "const:1000/s"},
		{"gcra 500/s burst 10 | window 100000/h", "const:1000/s"},
	} {
		sp, _ := typed.Parse(c.policy)
		tr, _ := parseTraffic(c.traffic, epochBase, nil)
		s := newSimulation(sp, epochBase, int64(time.Hour), 10)
		for range 100_000 { // past the first intervals, the waits kept and the queues' growth
			at, _ := tr.next()
			s.step(at)
		}
		allocs := testing.AllocsPerRun(10_000, func() {
			at, _ := tr.next()
			s.step(at)
		})
		require.Zero(t, allocs, c.policy)
		require.Positive(t, s.admitted, c.policy)
	}
}

func TestTraffic(t *testing.T) {
	take := func(spec string, n int) []int64 {
		tr, err := parseTraffic(spec, 0, func(name string) (io.ReadCloser, error) {
			return io.NopCloser(strings.NewReader("# at\n1.5,x\n\n2026-01-01T00:00:00.000000001Z\n0.25\n")), nil
		})
		require.NoError(t, err, spec)
		var at []int64
		for range n {
			ns, ok := tr.next()
			if !ok {
				break
			}
			at = append(at, ns)
		}
		return at
	}
	require.Equal(t, []int64{0, 333333333, 666666666, 1e9, 1333333333}, take("const:3/s", 5), "exact thirds")
	require.Equal(t, []int64{0, 0, 10e9, 10e9}, take("burst:2/10s", 4))
	require.Equal(t, []int64{0, 0, 5e8, 1e9, 1e9, 15e8}, take("const:2/s+burst:1/1s", 6))
	require.Equal(t, []int64{250e6, 1500e6, epochBase + 1}, take("csv:x", 9), "sorted")
	p := take("poisson:1000/s:4", 10000)
	require.InDelta(t, 10e9, float64(p[len(p)-1]), 0.5e9, "about 1000 a second")
	require.Equal(t, p, take("poisson:1000/s:4", 10000), "seeded")
	for _, bad := range []string{"", "const", "const:0/s", "const:5/x", "poisson:5/s:x", "zipf:3/s", "burst:5"} {
		_, err := parseTraffic(bad, 0, nil)
		require.Error(t, err, bad)
	}
}

func TestParseDuration(t *testing.T) {
	for text, want := range map[string]time.Duration{"90s": 90 * time.Second, "2h30m": 150 * time.Minute,
		"7d": 7 * 24 * time.Hour, "1d12h": 36 * time.Hour} {
		got, err := parseDuration(text)
		require.NoError(t, err, text)
		require.Equal(t, int64(want), got, text)
	}
	for _, bad := range []string{"", "d", "-1h", "1.5d", "x"} {
		_, err := parseDuration(bad)
		require.Error(t, err, bad)
	}
}
