package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/kernel"
	"github.com/numerus-closus/numerus/typed"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files testdata/*.golden")

// goldenPolicies are explain's golden table. step is the grid of phases the brute force tries,
// each also 1ns before, over the policy's common window period (none for a policy without
// windows, which decides the same at every phase); TestMostMatchesEveryPhase tries every phase.
var goldenPolicies = []struct {
	name, text string
	step       time.Duration
}{
	{"readme", "gcra 5/s burst 1 & sliding 100/m & sliding 1000/d", 0},
	{"per-minute", "100/min", 0},
	{"gcra-burst", "gcra 10/s burst 5", 0},
	{"finite", "finite 100", 0},
	{"or", "token 2/s burst 5 | sliding 100/h", 0},
	{"window", "window 100/m", 10 * time.Second},
	{"counter", "count 50/10s", 5 * time.Second},
	{"buckets", "buckets 100/1m in 6", 10 * time.Second},
	{"window-gcra", "window 100/m & gcra 10/s burst 50", 20 * time.Second},
}

// TestExplainGolden compares explain's text with testdata/NAME.golden (go test -update rewrites
// them), and every figure in it with a brute force through numerus.Admissions.
func TestExplainGolden(t *testing.T) {
	for _, g := range goldenPolicies {
		t.Run(g.name, func(t *testing.T) {
			sp, err := typed.Parse(g.text)
			require.NoError(t, err)
			r, err := explain(sp)
			require.NoError(t, err)
			var out bytes.Buffer
			printReport(&out, r)
			checkGolden(t, filepath.Join("testdata", g.name+".golden"), out.Bytes())
			checkBrute(t, sp, r.policy, r.spans, g.step)
			for i, c := range r.children {
				checkBrute(t, sp.Of[i], c, r.spans, g.step)
			}
		})
	}
}

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -run Golden -update")
	require.Equal(t, string(want), string(got))
}

// checkBrute replays sp through numerus.Admissions, one cost-1 debit at a time, from each phase of
// the grid, and holds every figure of f to what the replays give.
func checkBrute(t *testing.T, sp typed.Spec, f figures, spans []int64, step time.Duration) {
	t.Helper()
	p, err := typed.Compile(sp)
	require.NoError(t, err)
	al := alignmentOf(sp)
	common, _ := commonPeriod(sp)
	horizon := maxOf(spans) + 2*max(common, al.period)
	for i, span := range spans {
		want := int64(0)
		for _, a := range gridPhases(al, step) {
			want = max(want, int64(mostInAnySpan(scheduleFrom(p, a, a+horizon), span)))
		}
		require.Equal(t, want, f.most[i], "%s: most in any %s", f.text, fmtDur(span))
	}
	burst, r, refill := bruteSteady(p, al.start(), common)
	require.Equal(t, burst, f.burst, "%s: burst", f.text)
	require.Equal(t, r, f.sustained, "%s: sustained", f.text)
	require.Equal(t, refill, f.refill, "%s: refill", f.text)
}

// gridPhases returns the starts the brute force tries: the search's start alone without windows,
// else every step over the common period, and 1ns before each.
func gridPhases(al alignment, step time.Duration) []int64 {
	if al.period == 0 || step == 0 {
		return []int64{al.start()}
	}
	var at []int64
	for a := al.base; a < al.base+al.period; a += int64(step) {
		at = append(at, a, a+al.period-1-(a-al.base))
	}
	return at
}

// bruteSteady is steady's figures, from numerus.Admissions and each limiter's own Status.
func bruteSteady(p typed.Policy, start, common int64) (burst int64, r rate, refill int64) {
	periods := make([]int64, steadyPeriods+1)
	end := start + max((steadyPeriods+1)*common, 1)
	for at, l := range numerus.Admissions(p.Limiter(p.Fresh()), time.Unix(0, start), 1) {
		ns := at.UnixNano()
		if ns >= end {
			break
		}
		if ns == start {
			burst++
		}
		if common > 0 {
			periods[(ns-start)/common]++
		}
		full, ok := l.Status(at).Full.Time()
		if !ok || refill == kernel.Never {
			refill = kernel.Never
		} else {
			refill = max(refill, full.UnixNano()-ns)
		}
	}
	r = rate{n: periods[1], per: common}
	for _, n := range periods[2:] {
		if n != periods[1] {
			r = rate{n: sum(periods[1:]), per: steadyPeriods * common}
		}
	}
	return burst, r, refill
}

func sum(xs []int64) int64 {
	s := int64(0)
	for _, x := range xs {
		s += x
	}
	return s
}
