package main

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
)

// notes are the scenarios a peer cannot run, and why; RESULTS.md states them under the tables.
var notes = []string{
	"AllOf3: go.uber.org/ratelimit cannot take part. Its only operation, Take, blocks until its " +
		"single limit allows and never refuses, so it cannot check a policy of three limits (nor " +
		"give back what one limit took when another says no).",
	"AllOf3: x/time/rate has no composition; lib=xrate-seq reserves from three limiters in turn " +
		"and cancels the reservations (Reservation.CancelAt) when one cannot grant at once.",
	"SlidingLog: none of the peers keeps a sliding log in memory, so the only comparison is the " +
		"one issue 2 asks for, n=10^6 against n=10^3.",
	"Redis: redis_rate has no batch call (a pipeline cannot carry its script call), so " +
		"mode=pipeline runs for numerus only and is compared with serial redis_rate, per check.",
	"Keyed: sethvargo and ulule count fixed windows, throttled runs GCRA; each reads the wall " +
		"clock itself. throttled's memstore runs without its LRU (the faster of its two modes). " +
		"errors/op counts the calls that returned an error (throttled's CAS loop can give up " +
		"under contention); allow/op is taken over the others.",
	"Keyed, mode=parallel: each goroutine of b.RunParallel takes its iterations through a copy " +
		"of its testing.PB in cache lines of its own (benchpb.Apart, in internal/benchpb), for every library. " +
		"testing allocates the goroutines' PBs 32 bytes apart when one processor starts them both, " +
		"and PB.Next writes to its PB on every iteration: two PBs in one cache line bounced it " +
		"between the cores on every check, which doubled the time of some runs of the fastest store.",
	"Floor: the shape of a scenario with no limiter's work (bench/floor_test.go). case=and3 " +
		"copies a value of typed.And of three GCRAs' size into and out of Debit, as Go does for a " +
		"value it cannot return in registers, and writes the words an admitted debit changes; " +
		"case=keyed reads the monotonic clock and writes one word of the subject's own memory, " +
		"found by index. A target whose bound lies below its floor cannot be met by any " +
		"implementation of its scenario on the machine measured.",
	"Keyed, result=deny: the fill takes each subject's one token, so every measured check is " +
		"refused. numerus's memory store keeps a subject's latest refusal and answers the checks " +
		"of one token that follow, until its Retry, from it: with no lock and writing nothing " +
		"(keyed/memory's doc, Concurrency). The first refusal of each subject takes the lock; the " +
		"rest are measured as a flood from one client would meet them.",
}

// writeReport writes the targets table, the pairs table and the notes.
func writeReport(w io.Writer, s stats) error {
	bw := bufio.NewWriter(w)
	writeTargets(bw, s)
	writePairs(bw, s)
	fmt.Fprintln(bw, "### Notes")
	fmt.Fprintln(bw)
	for _, n := range notes {
		fmt.Fprintln(bw, "- "+n)
	}
	return bw.Flush()
}

func writeTargets(w io.Writer, s stats) {
	fmt.Fprintln(w, "### Targets of the issues")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Verdicts rest on the medians of this run. Time ratios are ours / theirs per check: below 1 is faster.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| issue | target | ours | compared with | ratio | floor, against the bound | verdict |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, t := range targets() {
		v, ratio := judge(t, s)
		base := "—"
		if t.base != "" {
			base = cell(s, t.base, t.unit)
		}
		fmt.Fprintf(w, "| #%d | %s | %s | %s | %s | %s | **%s** |\n", t.issue, t.want,
			cell(s, t.ours, t.unit), base, ratioCell(t, ratio, v), floorCell(t, s), v)
	}
	fmt.Fprintln(w)
}

// cell shows a benchmark's name and its value in unit, or that the run lacks it.
func cell(s stats, name, unit string) string {
	st, ok := s.lookup(name, unit)
	if !ok {
		return "`" + name + "` (not run)"
	}
	return "`" + name + "` " + value(st, unit)
}

// floorCell shows t's floor and the time its bound allows, or "—".
func floorCell(t target, s stats) string {
	f, bound, ok := floorOf(t, s)
	if !ok {
		return "—"
	}
	return fmt.Sprintf("`%s` %s; bound %s", t.floor, value(f, t.unit), duration(bound))
}

func ratioCell(t target, ratio float64, v verdict) string {
	switch {
	case v == pending:
		return "—"
	case t.base == "":
		return fmt.Sprintf("%g (bound %g)", ratio, t.max)
	}
	return fmt.Sprintf("%.2f× (bound %.3g×)", ratio, t.max)
}

// value formats a median in its unit, with benchstat's interval.
func value(st stat, unit string) string {
	var v string
	switch unit {
	case perCheckTime, "sec/op":
		v = duration(st.median)
	default:
		v = fmt.Sprintf("%g %s", st.median, unit)
	}
	if st.spread != "" {
		v += " ± " + st.spread
	}
	return v
}

// duration formats seconds with three significant digits in ns, µs, ms or s.
func duration(sec float64) string {
	switch {
	case sec < 1e-6:
		return fmt.Sprintf("%.3g ns", sec*1e9)
	case sec < 1e-3:
		return fmt.Sprintf("%.3g µs", sec*1e6)
	case sec < 1:
		return fmt.Sprintf("%.3g ms", sec*1e3)
	}
	return fmt.Sprintf("%.3g s", sec)
}

// A pair is a numerus benchmark and a peer's run of the same scenario.
type pair struct{ ours, peer string }

// pairs finds, for every benchmark whose lib starts with "numerus", the benchmarks whose names
// differ from it only in a lib that does not.
func pairs(s stats) []pair {
	byScenario := map[string][]string{}
	for name := range s {
		if _, ok := param(name, "lib"); ok {
			key := withParam(name, "lib", "*")
			byScenario[key] = append(byScenario[key], name)
		}
	}
	var ps []pair
	for _, names := range byScenario {
		for _, o := range names {
			for _, p := range names {
				if isOurs(o) && !isOurs(p) {
					ps = append(ps, pair{ours: o, peer: p})
				}
			}
		}
	}
	slices.SortFunc(ps, func(a, b pair) int {
		return strings.Compare(a.ours+"\x00"+a.peer, b.ours+"\x00"+b.peer)
	})
	return ps
}

func isOurs(name string) bool {
	lib, _ := param(name, "lib")
	return strings.HasPrefix(lib, "numerus")
}

func writePairs(w io.Writer, s stats) {
	fmt.Fprintln(w, "### Ours against each peer")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| scenario | ours | peer | ours time | peer time | ours / peer | allocs/op ours, peer |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, p := range pairs(s) {
		ot, _ := s.perCheck(p.ours)
		pt, _ := s.perCheck(p.peer)
		oa, _ := s.get(p.ours, "allocs/op")
		pa, _ := s.get(p.peer, "allocs/op")
		ol, _ := param(p.ours, "lib")
		pl, _ := param(p.peer, "lib")
		ratio := "—"
		if pt.median > 0 {
			ratio = fmt.Sprintf("%.2f×", ot.median/pt.median)
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s | %s | %g, %g |\n", withParam(p.ours, "lib", "*"),
			ol, pl, value(ot, perCheckTime), value(pt, perCheckTime), ratio, oa.median, pa.median)
	}
	fmt.Fprintln(w)
}
