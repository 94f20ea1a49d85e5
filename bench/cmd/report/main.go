// Command report turns the output of benchstat -format csv, for one run of the bench module, into
// the Markdown tables of RESULTS.md: each performance target of the issues with its verdict (met,
// missed, or pending while its benchmark does not exist yet), and the ratio of each numerus
// benchmark to every peer that ran the same scenario.
//
// Usage:
//
//	benchstat -format csv raw.txt > stats.csv
//	go run ./cmd/report stats.csv > tables.md
//
// With no argument it reads standard input.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

func run(args []string, stdin io.Reader, stdout io.Writer) error {
	in := stdin
	switch len(args) {
	case 0:
	case 1:
		f, err := os.Open(args[0])
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	default:
		return fmt.Errorf("usage: report [stats.csv]")
	}
	s, err := parseStats(in)
	if err != nil {
		return err
	}
	return writeReport(stdout, s)
}
