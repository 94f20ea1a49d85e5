package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func loadStats(t *testing.T) stats {
	t.Helper()
	f, err := os.Open("testdata/stats.csv")
	require.NoError(t, err)
	defer f.Close()
	s, err := parseStats(f)
	require.NoError(t, err)
	return s
}

func TestParseStatsStripsPrefixAndProcs(t *testing.T) {
	s := loadStats(t)
	st, ok := s.get("Debit/lib=xrate/result=allow", "sec/op")
	require.True(t, ok)
	assert.InDelta(t, 5e-8, st.median, 1e-20)
	assert.Equal(t, "1%", st.spread)
	_, ok = s.get("geomean", "sec/op")
	assert.False(t, ok, "the geomean row is not a benchmark")
}

func TestParseStatsRejectsGarbage(t *testing.T) {
	_, err := parseStats(strings.NewReader("A/lib=x,1,2%\n"))
	assert.ErrorContains(t, err, "before any unit")
	_, err = parseStats(strings.NewReader(",f,\n,sec/op,CI\nA/lib=x,fast,2%\n"))
	assert.ErrorContains(t, err, "median of A/lib=x")
	_, err = parseStats(strings.NewReader(""))
	assert.ErrorContains(t, err, "no benchmark")
}

func TestPerCheckDividesByBatch(t *testing.T) {
	st, ok := loadStats(t).perCheck("Redis/lib=numerus/subjects=10000/mode=pipeline/batch=100/result=allow")
	require.True(t, ok)
	assert.InDelta(t, 3e-6, st.median, 1e-18)
}

func TestJudge(t *testing.T) {
	s := loadStats(t)
	byWant := map[string]verdict{}
	for _, tg := range targets() {
		if strings.HasSuffix(tg.ours, "result=allow") {
			v, _ := judge(tg, s)
			byWant[tg.want] = v
		}
	}
	assert.Equal(t, met, byWant["interface debit faster than x/time/rate AllowN(t, 1)"], "40 ns < 50 ns")
	assert.Equal(t, met, byWant["interface debit: at most 1 alloc/op"])
	assert.Equal(t, met, byWant["typed debit at least 8× faster than x/time/rate AllowN(t, 1)"], "5 ns is 10× faster")
	assert.Equal(t, met, byWant["typed fixed window debit at least 8× faster than x/time/rate AllowN(t, 1)"],
		"6 ns is 8.3× faster")
	assert.Equal(t, missed, byWant["typed sliding window counter debit at least 8× faster than x/time/rate AllowN(t, 1)"],
		"7 ns is 7.1× faster")
	assert.Equal(t, met, byWant["typed sliding window counter debit: 0 allocs/op"])
	assert.Equal(t, pending, byWant["typed token bucket debit at least 8× faster than x/time/rate AllowN(t, 1)"],
		"the token bucket did not run")
	assert.Equal(t, missed, byWant["And of three typed at most 3× one typed"], "16 ns is 3.2× 5 ns")
	assert.Equal(t, met, byWant["pipelined batch of 100: at least 10× serial redis_rate's throughput"], "3 µs per check is 13× faster than 40 µs")
	assert.Equal(t, pending, byWant["serial latency at most 1.0× redis_rate's"], "numerus serial did not run")
}

func TestJudgeStrictBound(t *testing.T) {
	s := stats{
		"A/lib=numerus": {"sec/op": {median: 2}},
		"A/lib=peer":    {"sec/op": {median: 2}},
	}
	v, ratio := judge(target{ours: "A/lib=numerus", base: "A/lib=peer", unit: perCheckTime, max: 1, below: true}, s)
	assert.Equal(t, missed, v, "as fast is not faster")
	assert.InDelta(t, 1, ratio, 0)
	v, _ = judge(target{ours: "A/lib=numerus", base: "A/lib=peer", unit: perCheckTime, max: 1}, s)
	assert.Equal(t, met, v, "at most 1.0× includes 1.0×")
}

func TestPairsMatchScenarioAcrossLibs(t *testing.T) {
	got := pairs(loadStats(t))
	assert.Equal(t, []pair{
		{ours: "Debit/lib=numerus-iface/result=allow", peer: "Debit/lib=xrate/result=allow"},
		{ours: "Debit/lib=numerus-typed-count/result=allow", peer: "Debit/lib=xrate/result=allow"},
		{ours: "Debit/lib=numerus-typed-window/result=allow", peer: "Debit/lib=xrate/result=allow"},
		{ours: "Debit/lib=numerus-typed/result=allow", peer: "Debit/lib=xrate/result=allow"},
	}, got)
}

func TestRunWritesTables(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run([]string{"testdata/stats.csv"}, nil, &out))
	md := out.String()
	assert.Contains(t, md, "### Targets of the issues")
	assert.Contains(t, md, "| `Debit/lib=*/result=allow` | numerus-iface | xrate | 40 ns ± 3% | 50 ns ± 1% | 0.80× | 1, 0 |")
	assert.Contains(t, md, "(not run)")
	assert.Contains(t, md, "go.uber.org/ratelimit cannot take part")
}

func TestJudgeBeyondTheFloor(t *testing.T) {
	tg := target{ours: "A/lib=numerus", base: "A/lib=peer", unit: perCheckTime, max: 0.5, floor: "Floor/case=a"}
	s := stats{
		"A/lib=numerus": {"sec/op": {median: 8}},
		"A/lib=peer":    {"sec/op": {median: 10}},
		"Floor/case=a":  {"sec/op": {median: 6}},
	}
	v, _ := judge(tg, s)
	assert.Equal(t, beyond, v, "the bound allows 5, the floor takes 6")
	assert.Equal(t, "`Floor/case=a` 6 s; bound 5 s", floorCell(tg, s))
	s["Floor/case=a"] = map[string]stat{"sec/op": {median: 4}}
	v, _ = judge(tg, s)
	assert.Equal(t, missed, v, "a floor under the bound leaves the target reachable")
	delete(s, "Floor/case=a")
	v, _ = judge(tg, s)
	assert.Equal(t, missed, v, "no floor run: missed")
	assert.Equal(t, "—", floorCell(tg, s))
	s["A/lib=numerus"] = map[string]stat{"sec/op": {median: 4}}
	v, _ = judge(tg, s)
	assert.Equal(t, met, v)
}
