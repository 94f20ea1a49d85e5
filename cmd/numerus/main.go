// Command numerus shows what a rate-limit policy admits: explain prints its figures, computed by
// driving the numerus core, and sim replays a traffic pattern through it and draws the result.
//
//	numerus explain POLICY
//	numerus sim POLICY --traffic SPEC --for DURATION [--svg FILE] [--png FILE] [--compare POLICY2]
//
// Install it with go install github.com/numerus-closus/numerus/cmd/numerus@latest; a release
// tags the core, then this module with its replace directive dropped (.ci/install shows the
// steps). POLICY is in
// the notation of package typed, as in "gcra 5/s burst 1 & sliding 100/m & sliding 1000/d".
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/numerus-closus/numerus/typed"
)

const usage = `usage:
  numerus explain POLICY
  numerus sim POLICY --traffic SPEC --for DURATION [--svg FILE] [--png FILE] [--compare POLICY2]

POLICY is in the notation of package typed, as in "gcra 5/s burst 1 & sliding 100/m".
Run "numerus sim -h" for the traffic syntax.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the command with args and returns its exit status: 0, 1 on failure, 2 on misuse.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "explain":
		err = runExplain(args[1:], stdout)
	case "sim":
		err = runSim(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		err = usageError("unknown command " + args[0])
	}
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "numerus: %s\n%s", ue, usage)
		return 2
	}
	fmt.Fprintf(stderr, "numerus: %v\n", err)
	return 1
}

// usageError is a misuse of the command line.
type usageError string

func (e usageError) Error() string { return string(e) }

const explainUsage = `usage: numerus explain POLICY

Prints what the policy admits, counted by driving the numerus core with a greedy sender (one
that sends whenever the policy admits): its burst, the rate it sustains, the time to refill from
the emptiest state, and the most it gets in any span of 1s, 1m, 1h and 1d, wherever the span
lies; the same for each limit of an And or an Or, marking the limit that binds; and the most in
any span of each limit's own period, where a fixed window shows its boundary (up to 2n).
`

func runExplain(args []string, stdout io.Writer) error {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		fmt.Fprint(stdout, explainUsage)
		return nil
	}
	if len(args) != 1 {
		return usageError("explain takes one POLICY")
	}
	sp, err := parsePolicy(args[0])
	if err != nil {
		return err
	}
	r, err := explain(sp)
	if err != nil {
		return err
	}
	if written := strings.Join(strings.Fields(args[0]), " "); written != r.policy.text {
		r.written = written
	}
	printReport(stdout, r)
	return nil
}

// parsePolicy parses text in the notation; a syntax error shows the text with a caret under
// the column it names.
func parsePolicy(text string) (typed.Spec, error) {
	sp, err := typed.Parse(text)
	var se *typed.SyntaxError
	if errors.As(err, &se) && se.Column >= 1 {
		pad := strings.Repeat(" ", len([]rune(text[:min(len(text), byteOffset(text, se.Column))])))
		return sp, fmt.Errorf("%w\n  %s\n  %s^", err, text, pad)
	}
	if err == nil {
		err = sp.Validate()
	}
	return sp, err
}

// byteOffset is the byte offset of the column-th character of text, counted from 1.
func byteOffset(text string, column int) int {
	i := 0
	for off := range text {
		if i++; i == column {
			return off
		}
	}
	return len(text)
}
