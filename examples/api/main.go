// Command api calls an HTTP API whose quota it is not told beforehand, through an
// upstream.Transport that learns the quota from the API's responses alone, and shows that the
// API refused nothing once it had spoken. From the examples module (cd examples):
//
//	go run ./api                        # the IETF RateLimit fields
//	go run ./api -dialect github        # X-RateLimit-Limit, -Remaining, -Reset (Unix seconds)
//	go run ./api -dialect retry-after   # nothing but Retry-After on its 429s
//
// It starts the API on a loopback port: at most -quota requests in each -window, counted by the
// API itself, which answers 429 to the rest. The client sends -n requests from -workers
// goroutines, with a progress bar, through upstream.New with retries, and no policy of its own.
// At the end it prints how many 429s it received, and how many of them came after the first
// response that said anything of the quota (0 is the goal: the IETF and GitHub fields come with
// every response; a bare Retry-After only with a refusal, so that the client learns of each
// window's end by being refused once in it), then the API's own count in each of its windows
// against its limit. It exits non-zero if a request failed or a window served more than the limit.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/numerus-closus/numerus/examples/internal/cli"
	"github.com/numerus-closus/numerus/upstream"
	"github.com/schollz/progressbar/v3"
)

// config is what the flags say.
type config struct {
	dialect          string
	n, workers       int
	quota            int64
	window           time.Duration
	retries          int
	requestsDeadline time.Duration
}

// parseFlags reads the command line's arguments (without the program's name) into a config; when
// they are wrong it says why on errOut.
func parseFlags(args []string, errOut io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("api", flag.ContinueOnError)
	fs.SetOutput(errOut)
	fs.StringVar(&c.dialect, "dialect", "ietf", "how the API speaks of its quota: "+strings.Join(dialects, ", "))
	fs.IntVar(&c.n, "n", 60, "how many requests to send")
	fs.IntVar(&c.workers, "workers", 4, "how many goroutines send them")
	fs.Int64Var(&c.quota, "quota", 10, "the API's quota in each window, which the client is not told")
	fs.DurationVar(&c.window, "window", 2*time.Second, "the API's window, in whole seconds")
	fs.IntVar(&c.retries, "retries", 5, "how many times a refused request is sent again")
	fs.DurationVar(&c.requestsDeadline, "timeout", time.Minute, "each request's deadline")
	if err := fs.Parse(args); err != nil {
		return c, err // fs has said why on errOut
	}
	err := c.check()
	if err != nil {
		fmt.Fprintln(errOut, err)
	}
	return c, err
}

// check returns the error of a config that the flags parse into but the demo cannot run.
func (c config) check() error {
	if !slices.Contains(dialects, c.dialect) {
		return fmt.Errorf("unknown dialect %q: one of %s", c.dialect, strings.Join(dialects, ", "))
	}
	if c.quota < 1 || c.window < time.Second || c.window%time.Second != 0 {
		return errors.New("-quota must be positive and -window a whole number of seconds")
	}
	return nil
}

func main() { cli.Main(cmd) }

// cmd runs the demo and returns its exit status: 0; 1 when a request failed or a window served
// more than the quota, which it says on errOut; 2 for bad flags.
func cmd(ctx context.Context, args []string, out, errOut io.Writer) int {
	return cli.Run(ctx, args, out, errOut, parseFlags, run)
}

// run serves the API, sends the requests, drawing the bar on bar, and prints the figures on out.
func run(ctx context.Context, c config, out, bar io.Writer) error {
	a := &api{dialect: c.dialect, quota: c.quota, window: c.window, served: map[int64]int64{}}
	url, stop, err := serveLoopback(a)
	if err != nil {
		return err
	}
	defer stop()
	fmt.Fprintf(out, "in-process API on %s: at most %d requests in each %v window, speaking %s (the client is not told the quota)\n",
		url, c.quota, c.window, c.dialect)
	count := &counting{base: &http.Transport{}}
	rt, err := upstream.New(count, upstream.WithRetries(c.retries))
	if err != nil {
		return err
	}
	client := &http.Client{Transport: rt, Timeout: c.requestsDeadline}
	defer client.CloseIdleConnections()
	start := time.Now()
	p := progressbar.NewOptions(c.n, progressbar.OptionSetWriter(bar), progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(), progressbar.OptionThrottle(0), progressbar.OptionSetElapsedTime(true))
	o := sendAll(ctx, client, url, c.n, c.workers, func() {
		p.Describe(fmt.Sprintf("429s %d", count.refused.Load()))
		_ = p.Add(1)
	})
	_ = p.Finish()
	fmt.Fprintf(bar, "\n")
	fmt.Fprintf(out, "%d requests: %d served, %d failed, in %v\n", c.n, o.ok, o.failed, time.Since(start).Round(time.Millisecond))
	fmt.Fprintf(out, "429s received: %d, of which %d after the first response that spoke of the quota\n",
		count.refused.Load(), count.late.Load())
	return errors.Join(errors.Join(o.errs...), report(out, a))
}

// report prints the API's count in each of its windows against its limit, and the worst; it
// returns an error if a window served more than the quota.
func report(out io.Writer, a *api) error {
	ws := a.windows()
	fmt.Fprintf(out, "the API's windows (limit %d each):\n", a.quota)
	var worst window
	for i, w := range ws {
		fmt.Fprintf(out, "  window %2d: %3d arrived, %3d served\n", i+1, w.arrived, w.served)
		if w.served > worst.served || (w.served == worst.served && w.arrived > worst.arrived) {
			worst = w
		}
	}
	fmt.Fprintf(out, "worst window: %d served of %d arrived (limit %d)\n", worst.served, worst.arrived, a.quota)
	if worst.served > a.quota {
		return fmt.Errorf("a window served %d, above the quota of %d", worst.served, a.quota)
	}
	return nil
}
