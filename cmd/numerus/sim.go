package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/numerus-closus/numerus/typed"
)

const simUsage = `usage: numerus sim POLICY --traffic SPEC --for DURATION [flags]

Replays the traffic through the policy, fresh at --start, with the numerus core, and prints the
requests admitted and refused, the longest wait a refused request is told (the instant the core
names, from which the same request would go through: what a client that waits for it waits),
and the most admissions in any span of each limit's period, next to the limit. --svg and --png
draw, on one time axis, the requests offered and admitted in each interval, the tokens left in
each limit, and the wait told to each refused request.

`

// simFlags are sim's options.
type simFlags struct {
	traffic, start, svg, png, compare string
	dur                               int64
	bins                              int
}

func parseSimFlags(args []string, stderr io.Writer) (typed.Spec, simFlags, error) {
	var f simFlags
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, simUsage)
		fs.PrintDefaults()
		fmt.Fprint(stderr, "\n"+trafficHelp)
	}
	fs.StringVar(&f.traffic, "traffic", "", "the traffic `SPEC` (see below)")
	forText := fs.String("for", "", "how long to simulate: a `DURATION` such as 10m, 2h or 7d")
	fs.StringVar(&f.start, "start", "2026-01-01T00:00:00Z", "the first instant, RFC 3339")
	fs.StringVar(&f.svg, "svg", "", "draw the chart into `FILE` as SVG")
	fs.StringVar(&f.png, "png", "", "draw the chart into `FILE` as PNG")
	fs.StringVar(&f.compare, "compare", "", "replay the same traffic through `POLICY2` too, and draw both")
	fs.IntVar(&f.bins, "intervals", 120, "the number of intervals the chart counts requests in")
	policy, rest := splitPolicy(args)
	if err := fs.Parse(rest); errors.Is(err, flag.ErrHelp) {
		return typed.Spec{}, f, err
	} else if err != nil {
		return typed.Spec{}, f, usageError(err.Error())
	}
	if policy == "" && fs.NArg() == 1 {
		policy = fs.Arg(0)
	} else if fs.NArg() > 0 || policy == "" {
		return typed.Spec{}, f, usageError("sim takes one POLICY")
	}
	if f.traffic == "" || *forText == "" {
		return typed.Spec{}, f, usageError("sim needs --traffic and --for")
	}
	if f.bins < 1 || f.bins > 100_000 {
		return typed.Spec{}, f, usageError("--intervals must be between 1 and 100000")
	}
	var err error
	if f.dur, err = parseDuration(*forText); err != nil || f.dur == 0 {
		return typed.Spec{}, f, usageError(fmt.Sprintf("--for: %v", err))
	}
	sp, err := parsePolicy(policy)
	return sp, f, err
}

// splitPolicy takes the POLICY off the front of args, when it comes first.
func splitPolicy(args []string) (string, []string) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return args[0], args[1:]
	}
	return "", args
}

func runSim(args []string, stdout, stderr io.Writer) error {
	sp, f, err := parseSimFlags(args, stderr)
	if err != nil {
		return err
	}
	start, err := time.Parse(time.RFC3339Nano, f.start)
	if err != nil {
		return usageError("--start: " + err.Error())
	}
	specs := []typed.Spec{sp}
	if f.compare != "" {
		other, err := parsePolicy(f.compare)
		if err != nil {
			return fmt.Errorf("--compare: %w", err)
		}
		specs = append(specs, other)
	}
	tr, err := parseTraffic(f.traffic, start.UnixNano(), openFile)
	if err != nil {
		return err
	}
	sims := simulate(specs, tr, start.UnixNano(), f.dur, f.bins, newProgress(stderr, start.UnixNano(), f.dur))
	printSims(stdout, sims, f)
	return drawCharts(sims, f)
}

func openFile(name string) (io.ReadCloser, error) { return os.Open(name) }

// simulate replays tr over [start, start+dur) through each spec.
func simulate(specs []typed.Spec, tr traffic, start, dur int64, bins int, progress func(at, n int64)) []*simulation {
	width := (dur + int64(bins) - 1) / int64(bins)
	sims := make([]*simulation, len(specs))
	for i, sp := range specs {
		sims[i] = newSimulation(sp, start, width, bins)
	}
	replayTraffic(tr, start+dur, sims, progress)
	return sims
}

func printSims(w io.Writer, sims []*simulation, f simFlags) {
	fmt.Fprintf(w, "traffic   %s for %s from %s: %d requests\n", f.traffic, fmtDur(f.dur), f.start, sims[0].offered)
	for _, s := range sims {
		fmt.Fprintln(w)
		printSim(w, s)
	}
}

func printSim(w io.Writer, s *simulation) {
	fmt.Fprintf(w, "policy    %s\n", s.text)
	fmt.Fprintf(w, "admitted  %d (%s)\n", s.admitted, percent(s.admitted, s.offered))
	fmt.Fprintf(w, "refused   %d", s.refused)
	if s.never > 0 {
		fmt.Fprintf(w, ", %d of them for ever (no wait will do)", s.never)
	}
	fmt.Fprintln(w)
	if s.refused > s.never {
		fmt.Fprintf(w, "longest wait  %s: told to a refused request, until the instant the core names\n", fmtWait(s.longest))
	}
	fmt.Fprintln(w, "\nmost admitted in any span of each limit's period, next to the limit:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range s.children {
		for _, sc := range c.windows {
			fmt.Fprintf(tw, "  %s\tin any %s:\t%d\tlimit %d per %s\n", sc.leaf, fmtDur(sc.span), sc.most, sc.limit, fmtDur(sc.span))
		}
	}
	tw.Flush()
}

// fmtWait writes a wait of a second or more rounded up to the millisecond: never shorter than
// the core's answer.
func fmtWait(ns int64) string {
	if ns >= int64(time.Second) && ns%int64(time.Millisecond) != 0 {
		ns += int64(time.Millisecond) - ns%int64(time.Millisecond)
	}
	return fmtDur(ns)
}

func percent(n, of int64) string {
	if of == 0 {
		return "of none"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}
