// Command smtp sends a batch of messages through SMTP at the pace a composed numerus policy
// allows (5 a second, 100 a minute, 1,000 a day), with a progress bar whose ETA is the pure
// planner's exact answer. From the examples module (cd examples):
//
//	go run ./smtp            # 25 messages to an in-process server on a loopback port
//	go run ./smtp -n 200     # long enough to meet the 100-a-minute limit
//	go run ./smtp -addr smtp.example.com:587 -starttls -user u -pass p -from me@example.com -to you@example.com
//
// With no -addr it starts an SMTP server of its own (github.com/emersion/go-smtp) on 127.0.0.1,
// which answers 421 to the first try of every tenth message. A transient reply (421, 450, 451,
// any 4xx, or a broken connection) holds the shared gate closed for -pause (schedule.Gate's
// RetryAfter) and the message is tried again; a permanent one (5xx) is reported and skipped. The
// summary says what was sent, retried and failed.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/schedule"
)

// config is what the flags say.
type config struct {
	addr, user, pass, from, to string
	starttls                   bool
	n                          int
	pause                      time.Duration
	attempts                   int
}

func main() {
	var c config
	flag.StringVar(&c.addr, "addr", "", "SMTP server host:port (default: an in-process server on 127.0.0.1)")
	flag.StringVar(&c.user, "user", "", "user name for AUTH PLAIN (none if empty)")
	flag.StringVar(&c.pass, "pass", "", "password for AUTH PLAIN")
	flag.StringVar(&c.from, "from", "numerus@example.com", "envelope sender")
	flag.StringVar(&c.to, "to", "demo@example.com", "recipient")
	flag.BoolVar(&c.starttls, "starttls", false, "upgrade the connection with STARTTLS")
	flag.IntVar(&c.n, "n", 25, "how many messages to send")
	flag.DurationVar(&c.pause, "pause", time.Second, "how long a transient reply holds the sending back")
	flag.IntVar(&c.attempts, "attempts", 5, "the most tries of one message")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, c, policy(), os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// run sends c.n messages under the policy l, drawing the progress bar on bar, and prints what it
// does and the summary on out. With no c.addr it serves them itself.
func run(ctx context.Context, c config, l numerus.Limiter, out, bar io.Writer) error {
	if c.addr == "" {
		srv, addr, err := serveLoopback(c.user, c.pass)
		if err != nil {
			return err
		}
		defer srv.Close()
		c.addr = addr
		fmt.Fprintf(out, "in-process SMTP server on %s (it answers 421 to the first try of every tenth message)\n", addr)
	}
	fmt.Fprintf(out, "sending %d messages to %s via %s\npolicy: %v\n", c.n, c.to, c.addr, l)
	start := time.Now()
	s := newSender(c, schedule.NewGate(l), dialer(c))
	p := newProgress(bar, c.n)
	s.progress = p.update
	sum, err := s.run(ctx, c.n)
	p.close()
	fmt.Fprintf(out, "\n%v in %v\n", sum, time.Since(start).Round(time.Millisecond))
	return err
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
	go func() { done <- s.Serve(l) }()
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
