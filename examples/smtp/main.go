// Command smtp sends a batch of messages through SMTP at the pace a composed numerus policy
// allows (5 a second, 100 a minute, 1,000 a day), with a progress bar whose ETA is the pure
// planner's exact answer, and shows that the server never saw more than the policy. From the
// examples module (cd examples):
//
//	go run ./smtp            # 25 messages to an in-process server on a loopback port
//	go run ./smtp -n 200     # long enough to meet the 100-a-minute limit
//	go run ./smtp -addr smtp.example.com:587 -starttls -user u -pass p -from me@example.com -to you@example.com
//
// The network delays each message on its way by its own amount, so a server can see two messages
// closer together than they were sent. The demo paces by the policy with a margin (-margin, 50ms
// by default; 0 for none, typed.Spec.WithMargin): a policy that keeps the limits at a server whose
// delays differ by at most the margin. Its ETA is the margined policy's.
//
// The token is taken at the end of the data because that is when a server counts a message:
// the demo has the server answer MAIL FROM, RCPT TO and DATA and writes the body, then takes the
// message's token and only then ends the data (the body, which go-smtp buffers, goes in the same
// write), so that the round trips, each of which a busy machine or network can delay by its own
// amount, come before the charge and not between it and the arrival. A try that the server
// refuses before the end of its data (a 421, 450 or 451 at MAIL or RCPT, or a broken connection)
// has therefore taken no token.
//
// With no -addr it starts an SMTP server of its own (github.com/emersion/go-smtp) on 127.0.0.1,
// which answers 421 to the first try of every tenth message, at the end of its data, and records
// the instant at which each message it accepts has arrived. A transient reply (421, 450, 451, any
// 4xx, or a broken connection) holds the shared gate closed for -pause (schedule.Gate's
// RetryAfter) and the message is tried again; a permanent one (5xx) is reported and skipped. The
// summary says what was sent, retried and failed, and how many tokens the tries took: one by each
// try that reached the end of its data, none by those refused before. Then, for each limit of
// the policy, the demo prints the most arrivals the server saw in any window of that limit,
// replays the arrivals through the policy, and exits non-zero if a limit was exceeded. Against
// another server (-addr), which keeps its arrivals to itself, it checks the instants the gate
// charged instead, and says so.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	"github.com/numerus-closus/numerus/examples/internal/cli"
	"github.com/numerus-closus/numerus/schedule"
	"github.com/numerus-closus/numerus/typed"
)

// defaultMargin is -margin's default: room for the delays of the messages to a server on loopback
// or a nearby network to differ by some tens of milliseconds (a new connection after a 421, a
// busy machine).
const defaultMargin = 50 * time.Millisecond

// config is what the flags say.
type config struct {
	addr, user, pass, from, to string
	starttls                   bool
	n                          int
	pause                      time.Duration
	attempts                   int
	margin                     time.Duration // how much the delays to the server may differ
}

// parseFlags reads the command line's arguments (without the program's name) into a config.
func parseFlags(args []string, errOut io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("smtp", flag.ContinueOnError)
	fs.SetOutput(errOut)
	fs.StringVar(&c.addr, "addr", "", "SMTP server host:port (default: an in-process server on 127.0.0.1)")
	fs.StringVar(&c.user, "user", "", "user name for AUTH PLAIN (none if empty)")
	fs.StringVar(&c.pass, "pass", "", "password for AUTH PLAIN")
	fs.StringVar(&c.from, "from", "numerus@example.com", "envelope sender")
	fs.StringVar(&c.to, "to", "demo@example.com", "recipient")
	fs.BoolVar(&c.starttls, "starttls", false, "upgrade the connection with STARTTLS")
	fs.IntVar(&c.n, "n", 25, "how many messages to send")
	fs.DurationVar(&c.pause, "pause", time.Second, "how long a transient reply holds the sending back")
	fs.IntVar(&c.attempts, "attempts", 5, "the most tries of one message")
	fs.DurationVar(&c.margin, "margin", defaultMargin, "how much the delays to the server may differ: the demo paces by the policy with this margin (0: none)")
	return c, fs.Parse(args)
}

func main() { cli.Main(cmd) }

// cmd runs the demo as the command line's arguments say and returns its exit status: 0; 1 when a
// message failed or the traffic exceeded the policy, which it says on errOut; 2 for bad flags.
func cmd(ctx context.Context, args []string, out, errOut io.Writer) int {
	return cli.Run(ctx, args, out, errOut, parseFlags, func(ctx context.Context, c config, out, bar io.Writer) error {
		return run(ctx, c, policySpec(), out, bar)
	})
}

// run sends c.n messages under the policy sp with c.margin, drawing the progress bar on bar, and
// prints what it does, the summary and the check of the traffic against sp on out. With no
// c.addr it serves them itself, and checks the arrivals at its server. It returns the errors of
// the messages that failed, and one matching errExceeded for each limit of sp the traffic
// exceeded.
func run(ctx context.Context, c config, sp typed.Spec, out, bar io.Writer) error {
	paced, err := pacing(sp, c.margin)
	if err != nil {
		return err
	}
	srv, err := serveIfNoAddr(&c, out)
	if err != nil {
		return err
	}
	if srv != nil {
		defer srv.Close()
	}
	fmt.Fprintf(out, "sending %d messages to %s via %s\n", c.n, c.to, c.addr)
	printPolicies(out, sp, paced, c.margin)
	start := time.Now()
	s := newSender(c, schedule.NewGate(limiter(paced)), dialer(c))
	p := newProgress(bar, c.n)
	s.progress = p.update
	sum, err := s.run(ctx, c.n)
	p.close()
	fmt.Fprintf(out, "\n%v in %v\n%s\n", sum, time.Since(start).Round(time.Millisecond), sum.tokens())
	return errors.Join(err, check(out, sp, c.margin, srv, s))
}

// check verifies the traffic against sp: the arrivals at the in-process server srv if there is
// one, else the instants the sender s was charged at. When the arrivals exceed a limit, it says
// what the margin has to do with it.
func check(out io.Writer, sp typed.Spec, margin time.Duration, srv *closer, s *sender) error {
	if srv == nil {
		return verify(out, sp, s.charged, atClient)
	}
	err := verify(out, sp, srv.s.arrived(), atServer)
	if errors.Is(err, errExceeded) {
		fmt.Fprintln(out, marginHint(margin))
	}
	return err
}

// marginHint says why arrivals can exceed a limit that the sending kept.
func marginHint(margin time.Duration) string {
	if margin == 0 {
		return "with no margin, the server sees messages closer together than they were sent whenever their delays differ: a margin (-margin) keeps the limits"
	}
	return fmt.Sprintf("the delays to the server differed by more than the margin of %v (a busy machine?): a larger -margin keeps the limits", margin)
}

// serveIfNoAddr starts the in-process server when c names no address, and points c at it.
func serveIfNoAddr(c *config, out io.Writer) (*closer, error) {
	if c.addr != "" {
		return nil, nil
	}
	srv, addr, err := serveLoopback(c.user, c.pass)
	if err != nil {
		return nil, err
	}
	c.addr = addr
	fmt.Fprintf(out, "in-process SMTP server on %s (it answers 421 to the first try of every tenth message)\n", addr)
	return srv, nil
}

// printPolicies says what the policy is and what the demo paces by, one line each.
func printPolicies(out io.Writer, sp, paced typed.Spec, margin time.Duration) {
	fmt.Fprintf(out, "policy:   %v\n", sp)
	if margin == 0 {
		fmt.Fprintf(out, "paced by: %v (no margin)\n", paced)
		return
	}
	fmt.Fprintf(out, "paced by: %v (the policy with a margin of %v for the delays to the server; the ETA is this one's)\n", paced, margin)
}

func newSender(c config, g *schedule.Gate, dial func(context.Context) (*smtp.Client, error)) *sender {
	return &sender{gate: g, dial: dial, from: c.from, to: c.to, pause: c.pause, attempts: max(c.attempts, 1)}
}

// serveLoopback starts the demo's server on a loopback port; Close stops it and its connections.
func serveLoopback(user, pass string) (*closer, string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	s := newServer(flaky)
	s.user, s.pass = user, pass
	done := make(chan error, 1)
	go func() { done <- s.serve(l) }()
	return &closer{s, done}, l.Addr().String(), nil
}

// closer stops a server and waits for its goroutines.
type closer struct {
	s    *server
	done chan error
}

func (c *closer) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := c.s.Shutdown(ctx)
	return errors.Join(err, <-c.done)
}

// dialer opens a connection to c.addr, with STARTTLS and AUTH PLAIN as the flags ask.
func dialer(c config) func(context.Context) (*smtp.Client, error) {
	return func(ctx context.Context) (*smtp.Client, error) {
		conn, err := (&net.Dialer{Timeout: 10 * time.Second}).DialContext(ctx, "tcp", c.addr)
		if err != nil {
			return nil, err
		}
		var client *smtp.Client
		if !c.starttls {
			client = smtp.NewClient(conn)
		} else {
			host, _, _ := net.SplitHostPort(c.addr)
			if client, err = smtp.NewClientStartTLS(conn, &tls.Config{ServerName: host}); err != nil {
				conn.Close()
				return nil, err
			}
		}
		if c.user != "" {
			if err := client.Auth(sasl.NewPlainClient("", c.user, c.pass)); err != nil {
				client.Close()
				return nil, err
			}
		}
		return client, nil
	}
}
