package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/typed"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// These tests hold explain's counts to a brute force that shares none of its search: the root's
// planner, numerus.Admissions, run through the policy as a numerus.Limiter, one cost-1 debit at a
// time, from every phase of the policy's windows (nanosecond by nanosecond for the small policies
// drawn here), with the span slid over every admission of each run.

// bruteMost returns the most admissions of a greedy sender in a span of length span: over every
// start in [from, from+phases) and every placement of the span along each run of length horizon.
func bruteMost(p typed.Policy, from, phases, horizon, span int64) int64 {
	best := int64(0)
	for a := from; a < from+phases; a++ {
		at := scheduleFrom(p, a, a+horizon)
		best = max(best, int64(mostInAnySpan(at, span)))
	}
	return best
}

// scheduleFrom lists the instants numerus.Admissions admits at, from a fresh policy at start,
// before end.
func scheduleFrom(p typed.Policy, start, end int64) []int64 {
	var at []int64
	for t := range numerus.Admissions(p.Limiter(p.Fresh()), time.Unix(0, start), 1) {
		if t.UnixNano() >= end {
			break
		}
		at = append(at, t.UnixNano())
	}
	return at
}

// mostInAnySpan returns the most of the sorted instants at that lie in one span [t, t+span).
func mostInAnySpan(at []int64, span int64) int {
	most, j := 0, 0
	for i := range at {
		for j < len(at) && at[j]-at[i] < span {
			j++
		}
		most = max(most, j-i)
	}
	return most
}

func TestMostInAnySpan(t *testing.T) {
	require.Equal(t, 0, mostInAnySpan(nil, 10))
	require.Equal(t, 1, mostInAnySpan([]int64{0, 10, 20}, 10), "the span is half-open")
	require.Equal(t, 2, mostInAnySpan([]int64{0, 9, 19}, 10))
	require.Equal(t, 3, mostInAnySpan([]int64{5, 5, 5, 15}, 10))
}

// smallLeaf draws a leaf of periods of a few tens of nanoseconds, in the notation.
func smallLeaf(t *rapid.T, label string) string {
	n := rapid.Int64Range(1, 4).Draw(t, label+"n")
	per := rapid.SampledFrom([]int64{4, 6, 8, 12, 24}).Draw(t, label+"per")
	switch algo := rapid.SampledFrom([]string{"gcra", "token", "leaky", "finite", "window",
		"sliding", "buckets", "count"}).Draw(t, label+"algo"); algo {
	case "gcra", "token", "leaky":
		b := rapid.Int64Range(1, 3).Draw(t, label+"burst")
		return fmt.Sprintf("%s %d/%dns burst %d", algo, n, per, b)
	case "finite":
		return fmt.Sprintf("finite %d", n+3)
	case "buckets":
		return fmt.Sprintf("buckets %d/%dns in 2", n, per)
	default:
		return fmt.Sprintf("%s %d/%dns", algo, n, per)
	}
}

// smallPolicy draws a leaf, or an And or Or of two or three.
func smallPolicy(t *rapid.T) string {
	k := rapid.IntRange(1, 3).Draw(t, "leaves")
	parts := make([]string, k)
	for i := range parts {
		parts[i] = smallLeaf(t, fmt.Sprint(i))
	}
	return strings.Join(parts, rapid.SampledFrom([]string{" & ", " | "}).Draw(t, "op"))
}

// TestMostMatchesEveryPhase checks explain's search (greedy.go) against the brute force, for
// every phase of the windows and every placement of the span, on small random policies: equal,
// but for an Or with windows, whose counts are lower bounds.
func TestMostMatchesEveryPhase(t *testing.T) {
	spans := []int64{1, 5, 13, 24, 50}
	rapid.Check(t, func(t *rapid.T) {
		text := smallPolicy(t)
		sp, err := typed.Parse(text)
		require.NoError(t, err)
		p, err := typed.Compile(sp)
		require.NoError(t, err)
		al := alignmentOf(sp)
		common, _ := commonPeriod(sp)
		slide := int64(0)
		if hasOr(sp) {
			slide = 2 * max(common, al.period)
		}
		got, _ := most(newLimiter(sp), al, spans, slide, &budget{left: 1e7})
		phases := max(al.period, 1)
		for i, span := range spans {
			want := bruteMost(p, al.start(), phases, 3*slices.Max(spans), span)
			if roughOr(sp) {
				require.LessOrEqual(t, got[i], want, "%s: most in any %dns", text, span)
				continue
			}
			require.Equal(t, want, got[i], "%s: most in any %dns", text, span)
		}
	})
}

// TestMostBudget marks as lower bounds the spans that a run cut short by the budget did not
// cover, and only those.
func TestMostBudget(t *testing.T) {
	sp, err := typed.Parse("gcra 10/s")
	require.NoError(t, err)
	spans := []int64{int64(time.Second), int64(time.Hour)}
	got, lower := most(newLimiter(sp), alignmentOf(sp), spans, 0, &budget{left: 1000})
	require.Equal(t, []bool{false, true}, lower)
	require.Equal(t, int64(10), got[0])
	require.Less(t, got[1], int64(36000))
	sp, _ = typed.Parse("window 10/s")
	_, lower = most(newLimiter(sp), alignmentOf(sp), spans, 0, &budget{left: 1000})
	require.Equal(t, []bool{true, true}, lower, "the search of the phases was cut")
}

func TestFormat(t *testing.T) {
	for r, want := range map[rate]string{{5, 1e9}: "5/s", {1000, 86400e9}: "1000/d", {49, 10e9}: "49/10s",
		{100000, 1e9}: "100000/s", {64, 60e9}: "64/m", {7, 3e9}: "7/3s", {0, 1e9}: "0"} {
		require.Equal(t, want, fmtRate(r))
	}
	for ns, want := range map[int64]string{200e6: "200ms", 60e9: "1m", 3600e9: "1h", 86400e9: "1d",
		86400e9 + 3*3600e9: "1d3h", 559.8e9: "9m19.8s", 10e9: "10s", 10e3: "10µs"} {
		require.Equal(t, want, fmtDur(ns))
	}
}
