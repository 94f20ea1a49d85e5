package main

import (
	"bytes"
	"io"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// instants returns t0 plus each offset.
func instants(offsets ...time.Duration) []time.Time {
	out := make([]time.Time, len(offsets))
	for i, d := range offsets {
		out[i] = t0.Add(d)
	}
	return out
}

// every returns n instants from t0, gap apart.
func every(n int, gap time.Duration) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		out[i] = t0.Add(time.Duration(i) * gap)
	}
	return out
}

const ms = time.Millisecond

func TestMostInWindow(t *testing.T) {
	for _, c := range []struct {
		name     string
		at       []time.Time
		w        time.Duration
		want     int
		wantFrom time.Time
	}{
		{"none", nil, time.Second, 0, time.Time{}},
		{"one", instants(5 * ms), time.Second, 1, t0.Add(5 * ms)},
		{"a window of zero holds nothing", instants(0, 0, 0), 0, 0, time.Time{}},
		{"a negative window holds nothing", instants(0, 1*ms), -time.Second, 0, time.Time{}},
		{"the same instant", instants(0, 0, 0), time.Nanosecond, 3, t0},
		{"the end is out: [t, t+w)", instants(0, time.Second), time.Second, 1, t0},
		{"a nanosecond before the end is in", instants(0, time.Second-1), time.Second, 2, t0},
		{"the first of the densest", instants(0, 900*ms, 1100*ms, 1200*ms, 1899*ms, 2500*ms), time.Second, 4, t0.Add(900 * ms)},
		{"the first span of several", instants(0, 10*ms, 2*time.Second, 2*time.Second+10*ms), 100 * ms, 2, t0},
		{"unsorted", instants(1200*ms, 0, 1899*ms, 900*ms, 2500*ms, 1100*ms), time.Second, 4, t0.Add(900 * ms)},
		{"5 a second, 1s apart windows", every(20, 200*ms), time.Second, 5, t0},
		{"101 in 59.98s", every(101, 599800*time.Microsecond), time.Minute, 101, t0},
		{"100 in a minute, no more", every(101, 600*ms), time.Minute, 100, t0},
	} {
		in := slices.Clone(c.at)
		got, from := mostInWindow(c.at, c.w)
		assert.Equal(t, c.want, got, c.name)
		assert.True(t, from.Equal(c.wantFrom), "%s: from %v, want %v", c.name, from, c.wantFrom)
		assert.Equal(t, in, c.at, "%s: the input is left as it was", c.name)
	}
}

func TestLimitOf(t *testing.T) {
	for _, c := range []struct {
		text string
		want windowLimit
		ok   bool
	}{
		{"gcra 5/s burst 1", windowLimit{time.Second, 5}, true},
		{"gcra 10/s burst 20", windowLimit{time.Second, 29}, true}, // b at once, then N−1 more in the span
		{"token 3/m burst 2", windowLimit{time.Minute, 4}, true},
		{"leaky 1/h", windowLimit{time.Hour, 1}, true}, // burst 0 is 1
		{"sliding 100/m", windowLimit{time.Minute, 100}, true},
		{"sliding 1000/d", windowLimit{24 * time.Hour, 1000}, true},
		{"window 100/m", windowLimit{}, false},
		{"buckets 100/m in 6", windowLimit{}, false},
		{"count 100/m", windowLimit{}, false},
		{"finite 5", windowLimit{}, false},
		{"sliding 1/s | sliding 5/m", windowLimit{}, false},
	} {
		got, ok := limitOf(spec(t, c.text))
		assert.Equal(t, c.ok, ok, c.text)
		assert.Equal(t, c.want, got, c.text)
	}
	sp := spec(t, "gcra 1/s burst 1")
	sp.Count, sp.Burst = math.MaxInt64, math.MaxInt64
	got, _ := limitOf(sp)
	assert.Equal(t, int64(math.MaxInt64), got.most, "saturates")
}

func TestConjuncts(t *testing.T) {
	var got []string
	for _, c := range conjuncts(spec(t, "gcra 5/s burst 1 & (sliding 100/m & sliding 1000/d) & (finite 3 | sliding 1/s)")) {
		got = append(got, c.String())
	}
	assert.Equal(t, []string{"gcra 5/s burst 1", "sliding 100/m", "sliding 1000/d", "finite 3 | sliding 1/s"}, got)
}

func TestSpan(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Second: "1s", time.Minute: "1m", 24 * time.Hour: "24h", 1050 * ms: "1050ms",
		60050 * ms: "60050ms", 90 * time.Second: "90s", 1500 * time.Microsecond: "1500µs", 7: "7ns",
	} {
		assert.Equal(t, want, span(d))
	}
}

// TestVerifyPassesWhatThePolicyAdmits: the first 130 instants the planner gives the demo's
// policy keep it, with the figures of the brief's example.
func TestVerifyPassesWhatThePolicyAdmits(t *testing.T) {
	var planned []time.Time
	for p := range numerus.Admissions(limiter(policySpec()), t0, 1) {
		if planned = append(planned, p); len(planned) == 130 {
			break
		}
	}
	var out bytes.Buffer
	require.NoError(t, verify(&out, policySpec(), planned, atServer))
	assert.Equal(t, "server saw at most 5 in any 1s (limit 5), 100 in any 1m (limit 100), 130 in any 24h (limit 1000)\n"+
		"replayed in order through gcra 5/s burst 1 & sliding 100/m & sliding 1000/d (fresh): it admits all 130 arrivals at the server\n", out.String())
}

// TestVerifyReportsEachLimitExceeded feeds the checker arrivals that break the demo's policy, as
// the arrivals at an independent server did before the demo kept a margin: it returns an error
// matching errExceeded that names the limit, and says so on its lines.
func TestVerifyReportsEachLimitExceeded(t *testing.T) {
	for _, c := range []struct {
		name  string
		at    []time.Time
		lines []string // in the output
		errs  []string // in the error
	}{
		{
			name:  "101 in 59.98s",
			at:    every(101, 599800*time.Microsecond),
			lines: []string{"server saw at most 2 in any 1s (limit 5), 101 in any 1m (limit 100), 101 in any 24h (limit 1000)\n", "it refuses arrival 101 of 101, 59.98s after the first, by sliding 100/m\n"},
			errs:  []string{"limit exceeded: 101 arrivals at the server in the 1m from 0s after the first, where sliding 100/m allows 100", "sliding 100/m refuses arrival 101 of the 101"},
		},
		{
			name:  "6 in one second",
			at:    every(6, 190*ms),
			lines: []string{"server saw at most 6 in any 1s (limit 5), 6 in any 1m (limit 100)", "it refuses arrival 2 of 6, 190ms after the first, by gcra 5/s burst 1\n"},
			errs:  []string{"6 arrivals at the server in the 1s from 0s after the first, where gcra 5/s burst 1 allows 5", "gcra 5/s burst 1 refuses arrival 2 of the 6"},
		},
		{
			name:  "7ms apart after a pause: no window is over, the replay refuses",
			at:    instants(0, 200*ms, 1400*ms, 1407*ms),
			lines: []string{"server saw at most 2 in any 1s (limit 5), 4 in any 1m (limit 100)", "it refuses arrival 4 of 4, 1.407s after the first, by gcra 5/s burst 1\n"},
			errs:  []string{"gcra 5/s burst 1 refuses arrival 4 of the 4 arrivals at the server, 1.407s after the first"},
		},
	} {
		var out bytes.Buffer
		err := verify(&out, policySpec(), c.at, atServer)
		require.ErrorIs(t, err, errExceeded, c.name)
		for _, l := range c.lines {
			assert.Contains(t, out.String(), l, c.name)
		}
		for _, e := range c.errs {
			assert.ErrorContains(t, err, e, c.name)
		}
	}
}

// TestVerifyNamesEveryLimitThatRefuses: when one arrival breaks two limits at once, the error
// names both.
func TestVerifyNamesEveryLimitThatRefuses(t *testing.T) {
	err := verify(io.Discard, spec(t, "gcra 1/s burst 1 & sliding 1/m"), instants(0, 10*ms), atServer)
	require.ErrorIs(t, err, errExceeded)
	assert.ErrorContains(t, err, "gcra 1/s burst 1 and sliding 1/m refuses arrival 2 of the 2")
}

// TestVerifySortsTheInstants: a server records arrivals as they come, which verify sorts; the
// same instants in any order give the same answer.
func TestVerifySortsTheInstants(t *testing.T) {
	var a, b bytes.Buffer
	in := every(30, 250*ms)
	require.NoError(t, verify(&a, policySpec(), in, atServer))
	slices.Reverse(in)
	require.NoError(t, verify(&b, policySpec(), in, atServer))
	assert.Equal(t, a.String(), b.String())
}
