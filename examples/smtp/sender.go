package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/numerus-closus/numerus/schedule"
)

// seqHeader numbers the demo's messages, so that a server can tell them apart.
const seqHeader = "X-Numerus-Seq"

// sender sends messages one at a time through a gate, on one SMTP connection that it opens
// again after a failure.
type sender struct {
	gate     *schedule.Gate
	dial     func(context.Context) (*smtp.Client, error)
	from, to string
	pause    time.Duration // how long a transient reply holds the gate closed
	attempts int           // the most tries of one message
	// progress, if set, is told after each message how many are done, of how many, and how long
	// until the last would go out if none were refused: the pure planner's exact answer.
	progress func(done, total int, eta time.Duration)

	client  *smtp.Client
	charged []time.Time // the instant the gate charged each try at, as Take returned it
	done    int
	sum     summary
	plan    []time.Time // the planned instants of the messages not yet done
	onTime  bool        // the message being sent went at plan[0], once: the rest of the plan holds
}

// summary is what a run did.
type summary struct {
	Sent, Retried, Failed int
}

func (s summary) String() string {
	return fmt.Sprintf("sent %d, retried %d, failed %d", s.Sent, s.Retried, s.Failed)
}

// run sends n messages and returns what it did, with the errors of the messages that failed.
func (s *sender) run(ctx context.Context, n int) (summary, error) {
	defer s.hangUp()
	s.report(n)
	seqs := make([]int, n)
	for i := range seqs {
		seqs[i] = i + 1
	}
	err := schedule.Drain(ctx, s.gate, slices.Values(seqs), func(ctx context.Context, seq int, at time.Time) error {
		s.charged = append(s.charged, at)
		s.onTime = len(s.plan) > 0 && at.Equal(s.plan[0])
		err := s.send(ctx, seq, n)
		s.done++
		s.report(n)
		return err
	}, schedule.ContinueOnError())
	return s.sum, err
}

// send delivers message seq, its first try already admitted by the gate. A transient reply (4xx,
// or a broken connection) holds the gate closed for the pause, and the message is tried again, up
// to the most attempts; a permanent reply (5xx) fails the message. Every try takes from the gate.
func (s *sender) send(ctx context.Context, seq, total int) error {
	for try := 1; ; try++ {
		err := s.deliver(ctx, seq, total)
		if err == nil {
			s.sum.Sent++
			return nil
		}
		if transient(err) {
			s.gate.RetryAfter(s.pause) // the server asked to slow down, whether or not we retry
		}
		if !transient(err) || try >= s.attempts {
			s.sum.Failed++
			return fmt.Errorf("message %d: %w", seq, err)
		}
		s.sum.Retried++
		s.onTime = false
		at, err := s.gate.Take(ctx, 1)
		if err != nil {
			s.sum.Failed++
			return fmt.Errorf("message %d: %w", seq, err)
		}
		s.charged = append(s.charged, at)
	}
}

func (s *sender) deliver(ctx context.Context, seq, total int) error {
	if s.client == nil {
		c, err := s.dial(ctx)
		if err != nil {
			return err
		}
		s.client = c
	}
	err := s.client.SendMail(s.from, []string{s.to}, strings.NewReader(message(s.from, s.to, seq, total)))
	var se *smtp.SMTPError
	if err != nil && (!errors.As(err, &se) || se.Code == 421 || s.client.Reset() != nil) {
		s.hangUp() // the server closes the channel after a 421, and a broken one is no use
	}
	return err
}

// transient reports whether a failure may pass: a 4xx reply (421, 450, 451, …) or anything that
// is not an SMTP reply, such as a connection refused or reset.
func transient(err error) bool {
	var se *smtp.SMTPError
	return !errors.As(err, &se) || se.Code/100 == 4
}

func (s *sender) hangUp() {
	if s.client != nil {
		_ = s.client.Quit()
		_ = s.client.Close()
		s.client = nil
	}
}

// report tells progress where the run is, with the time until the last message would go out if
// none were refused: the remaining messages played through the pure planner from the gate's state
// (its limiter and any pause). While messages go exactly when planned, the plan made before stays
// exact and is reused; when one goes late (a pause, a retry, the real clock's lateness), the rest
// is planned again.
func (s *sender) report(total int) {
	if s.progress == nil {
		return
	}
	left := total - s.done
	if s.onTime && len(s.plan) == left+1 {
		s.plan = s.plan[1:]
	} else {
		s.plan = s.plan[:0]
		for at := range s.gate.Schedule(1) {
			if len(s.plan) == left {
				break
			}
			s.plan = append(s.plan, at)
		}
	}
	var eta time.Duration
	if len(s.plan) > 0 {
		eta = max(time.Until(s.plan[len(s.plan)-1]), 0)
	}
	s.progress(s.done, total, eta)
}

func message(from, to string, seq, total int) string {
	return fmt.Sprintf("From: %s\r\nTo: %s\r\nSubject: numerus demo, message %d of %d\r\n%s: %d\r\n"+
		"Date: %s\r\n\r\nSent at the pace numerus allows.\r\n",
		from, to, seq, total, seqHeader, seq, time.Now().Format(time.RFC1123Z))
}
