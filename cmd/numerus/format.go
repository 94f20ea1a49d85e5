package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/numerus-closus/numerus/internal/kernel"
	"github.com/numerus-closus/numerus/typed"
)

// printReport writes explain's report as aligned text.
func printReport(w io.Writer, r report) {
	fmt.Fprintf(w, "policy  %s\n", r.policy.text)
	if r.written != "" {
		fmt.Fprintf(w, "        as written: %s\n", r.written)
	}
	switch r.op {
	case typed.AlgoAnd:
		fmt.Fprintln(w, "        an And: a request goes through only when every limit admits it, and then counts in all")
	case typed.AlgoOr:
		fmt.Fprintln(w, "        an Or: a request goes through when one limit admits it, and counts in each that does")
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	width := utf8.RuneCountInString(r.policy.text)
	for _, c := range r.children {
		width = max(width, 2+utf8.RuneCountInString(c.text))
	}
	fmt.Fprintf(tw, "%s\tburst\tsustained\trefill\t", strings.Repeat(" ", width))
	for _, s := range standardSpans {
		fmt.Fprintf(tw, "in any %s\t", fmtDur(s))
	}
	fmt.Fprintln(tw)
	printRow(tw, r.policy, "", width, func(int) bool { return false })
	for i, c := range r.children {
		printRow(tw, c, "  ", width, func(j int) bool { return r.binds(i, j) })
	}
	tw.Flush()
	printLegend(w, r)
	printWindows(w, r)
}

// printRow writes one row, its name padded to width so that it reads left-aligned.
func printRow(tw io.Writer, f figures, indent string, width int, binds func(int) bool) {
	name := indent + f.text
	name += strings.Repeat(" ", width-utf8.RuneCountInString(name))
	fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t", name, f.burst,
		sustained(f), fmtRefill(f.refill))
	for j := range standardSpans {
		mark := " "
		if binds(j) {
			mark = "*"
		}
		fmt.Fprintf(tw, "%s%s\t", count(f.most[j], f.lower[j]), mark)
	}
	fmt.Fprintln(tw)
}

func printLegend(w io.Writer, r report) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "burst      admitted at once by a fresh policy")
	fmt.Fprintln(w, "sustained  admitted in each period common to every limit, once each is past its first")
	if !r.policy.steady || !allSteady(r.children) {
		fmt.Fprintln(w, "≈          a mean over four such periods, which did not all take the same")
	}
	fmt.Fprintln(w, "refill     the longest wait until full again, from the emptiest state a greedy sender leaves")
	fmt.Fprintln(w, "in any T   the most a greedy sender gets in a span [t, t+T), wherever the span lies")
	switch r.op {
	case typed.AlgoAnd:
		fmt.Fprintln(w, "*          the limit that binds: the least of the limits, alone")
	case typed.AlgoOr:
		fmt.Fprintln(w, "*          the limit that binds: the greatest of the limits, alone")
	}
	if anyLower(append([]figures{r.policy}, r.children...)) {
		fmt.Fprintln(w, "≥          a lower bound: the search stopped at its budget of debits, or an Or has")
		fmt.Fprintln(w, "           windows, where a greedy sender's worst phase is not searched exhaustively")
	}
}

func allSteady(fs []figures) bool {
	for _, f := range fs {
		if !f.steady {
			return false
		}
	}
	return true
}

func anyLower(fs []figures) bool {
	for _, f := range fs {
		if f.steadyCut || slices.Contains(f.lower, true) {
			return true
		}
	}
	return false
}

// printWindows writes, for each limit with a period, the most in any span of that period.
func printWindows(w io.Writer, r report) {
	if len(r.windows) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "across window boundaries: the most in any span of each limit's own period")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, l := range r.windows {
		fmt.Fprintf(tw, "  %s\t%d per %s\talone up to %s in any %s%s\tin the policy up to %s\n",
			l.text, l.count, fmtDur(l.period), count(l.alone, l.lower), fmtDur(l.period),
			times(l), count(r.policy.most[l.span], r.policy.lower[l.span]))
	}
	tw.Flush()
}

// times says how far above its count a limit goes in a span of its period, if it does, and
// why: a window across its boundary, a bucket by its burst.
func times(l window) string {
	if l.alone <= l.count {
		return ""
	}
	why := "its burst"
	if l.aligned {
		why = "across a boundary"
	}
	return fmt.Sprintf(" (%s× its count, %s)", strconv.FormatFloat(float64(l.alone)/float64(l.count), 'g', 3, 64), why)
}

func count(n int64, lower bool) string {
	if lower {
		return "≥" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}

func sustained(f figures) string {
	s := fmtRate(f.sustained)
	if !f.steady {
		s = "≈" + s
	}
	if f.steadyCut {
		s = "≥" + s
	}
	return s
}

func fmtRefill(d int64) string {
	if d == kernel.Never {
		return "never"
	}
	return fmtDur(d)
}

// units are the units rates and durations are written in, smallest first.
var units = []struct {
	name string
	ns   int64
}{{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9}, {"d", 86400e9}}

// fmtRate writes n per period in the largest unit, up to the period, that makes the count whole
// ("5/s", "1000/d"), or else as the reduced fraction ("7/3s").
func fmtRate(r rate) string {
	if r.per == 0 || r.n == 0 {
		return "0"
	}
	for _, u := range slices.Backward(units) {
		if u.ns <= r.per && (r.n*u.ns)%r.per == 0 && r.n <= (1<<62)/u.ns {
			return strconv.FormatInt(r.n*u.ns/r.per, 10) + "/" + u.name
		}
	}
	g := gcd(r.n, r.per)
	return strconv.FormatInt(r.n/g, 10) + "/" + fmtDur(r.per/g)
}

// fmtDur writes a duration compactly, with days: "200ms", "1m", "9m19.8s", "1d", "2d3h".
func fmtDur(ns int64) string {
	day := int64(24 * time.Hour)
	var b strings.Builder
	if ns >= day {
		b.WriteString(strconv.FormatInt(ns/day, 10) + "d")
		if ns %= day; ns == 0 {
			return b.String()
		}
	}
	s := time.Duration(ns).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return b.String() + s
}
