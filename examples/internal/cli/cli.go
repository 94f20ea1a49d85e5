// Package cli runs the command lines of the example programs, all in one way: read the flags, run,
// exit with a status that says how it went.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
)

// Main runs cmd with the program's arguments (without its name), standard output and standard
// error, under a context that an interrupt cancels, and exits with the status cmd returns.
func Main(cmd func(ctx context.Context, args []string, out, errOut io.Writer) int) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := cmd(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Run reads args with parse, runs run with the config they give, out and errOut, and returns the
// exit status: 0, also after -h; 1 when run fails, which Run says on errOut; 2 when parse fails,
// which parse has said on errOut (as a flag.FlagSet does).
func Run[C any](ctx context.Context, args []string, out, errOut io.Writer,
	parse func(args []string, errOut io.Writer) (C, error),
	run func(ctx context.Context, c C, out, errOut io.Writer) error) int {
	c, err := parse(args, errOut)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return 2
	}
	if err := run(ctx, c, out, errOut); err != nil {
		fmt.Fprintln(errOut, err)
		return 1
	}
	return 0
}
