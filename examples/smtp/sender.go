package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/numerus-closus/numerus/schedule"
)

// seqHeader numbers the demo's messages, so that a server can tell them apart.
const seqHeader = "X-Numerus-Seq"

// openAhead is how long before its turn at the gate the sender opens a message's transaction: time
// for a new connection and the round trips of MAIL, RCPT and DATA on most networks, so that the
// token is charged at its turn. A turn further off is slept out first with no transaction open,
// so that a server is never kept waiting in the data of a message for long (RFC 5321 lets it
// give up after minutes; a wait for a day's limit would outlast that).
const openAhead = time.Second

// sender sends messages one at a time through a gate, on one SMTP connection that it opens
// again after a failure.
//
// It charges each try's token as close to the message's arrival as SMTP allows: a server counts
// a message when its data ends, so the sender has the server accept the envelope (MAIL, RCPT,
// DATA) and writes the body first, takes the token, and only then ends the data. The round trips
// that a busy machine or network can delay by any amount then come before the charge, and one
// write after it (see open). It loops over the messages itself rather than through
// schedule.Drain, which takes the token before its job begins.
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
	resume  time.Time   // the end of the sender's last pause: no transaction opens before it
	done    int
	sum     summary
	plan    []time.Time // the planned instants of the messages not yet done
}

// summary is what a run did.
type summary struct {
	Sent, Retried, Failed int
	Charged               int // the tokens taken: one by each try that reached the end of its data
	Uncharged             int // the tries that failed before the end of their data, taking none
}

func (s summary) String() string {
	return fmt.Sprintf("sent %d, retried %d, failed %d", s.Sent, s.Retried, s.Failed)
}

// tokens says what the tries took from the gate.
func (s summary) tokens() string {
	return fmt.Sprintf("%d tokens taken, one by each try that reached the end of its data; the %d tries refused or cut off before it took none",
		s.Charged, s.Uncharged)
}

// takeError is the gate's refusal of a take (its context done, ErrNever, a *DeadlineError): the
// run stops there.
type takeError struct{ err error }

func (e takeError) Error() string { return e.err.Error() }
func (e takeError) Unwrap() error { return e.err }

// run sends n messages and returns what it did, with the errors of the messages that failed. It
// stops at the first message whose token the gate refuses.
func (s *sender) run(ctx context.Context, n int) (summary, error) {
	defer s.hangUp()
	s.report(n, false)
	var errs []error
	for seq := 1; seq <= n; seq++ {
		before := len(s.charged)
		err := s.send(ctx, seq, n)
		s.done++
		// One token, at the planned instant: the rest of the plan holds.
		s.report(n, len(s.charged) == before+1 && len(s.plan) > 0 && s.charged[before].Equal(s.plan[0]))
		if err != nil {
			errs = append(errs, err)
			if errors.As(err, new(takeError)) {
				break
			}
		}
	}
	s.sum.Charged = len(s.charged)
	return s.sum, errors.Join(errs...)
}

// send delivers message seq. A transient failure (a 4xx reply, or a broken connection) holds the
// gate closed for the pause, and the message is tried again, up to the most attempts; a permanent
// reply (5xx) fails the message. A try takes its token only before the end of its data (see try).
func (s *sender) send(ctx context.Context, seq, total int) error {
	for n := 1; ; n++ {
		charged, err := s.try(ctx, seq, total)
		if err == nil {
			s.sum.Sent++
			return nil
		}
		if errors.As(err, new(takeError)) {
			s.sum.Failed++
			return fmt.Errorf("message %d: %w", seq, err)
		}
		if !charged {
			s.sum.Uncharged++
		}
		if transient(err) {
			s.retryAfter() // the server asked to slow down, whether or not we retry
		}
		if !transient(err) || n >= s.attempts {
			s.sum.Failed++
			return fmt.Errorf("message %d: %w", seq, err)
		}
		s.sum.Retried++
	}
}

// try makes one attempt at message seq: it waits until its turn is near, has the server accept the
// envelope and writes the body, takes the token (Gate.Take, recording the instant it returns) and
// only then ends the data and reads the reply. It reports whether it took a token; a failure
// before that took none.
func (s *sender) try(ctx context.Context, seq, total int) (charged bool, err error) {
	if err := s.awaitTurn(ctx); err != nil {
		return false, takeError{err}
	}
	w, err := s.open(ctx, seq, total)
	if err != nil {
		return false, err
	}
	at, err := s.gate.Take(ctx, 1)
	if err != nil {
		s.abandon()
		return false, takeError{err}
	}
	s.charged = append(s.charged, at)
	if err := w.Close(); err != nil { // the end of the data, and the reply
		s.readyAfter(err)
		return true, err
	}
	return true, nil
}

// awaitTurn sleeps, with no transaction open, until the gate's next turn is at most openAhead away
// and the sender's last pause is over. It fails at once if the gate will never admit a token, or
// only at or after ctx's deadline, as Gate.Take does.
func (s *sender) awaitTurn(ctx context.Context) error {
	turn, ok := s.nextTurn()
	if !ok {
		return fmt.Errorf("%w: a token under %v", schedule.ErrNever, s.gate.Limiter())
	}
	if dl, ok := ctx.Deadline(); ok && !turn.Before(dl) {
		return &schedule.DeadlineError{At: turn, Deadline: dl}
	}
	until := turn.Add(-openAhead)
	if s.resume.After(until) {
		until = s.resume
	}
	d := time.Until(until)
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// nextTurn returns when the gate would admit a token, if ever.
func (s *sender) nextTurn() (time.Time, bool) {
	for at := range s.gate.Admissions(1) {
		return at, true
	}
	return time.Time{}, false
}

// open readies message seq for its token, on the open connection or a new one: MAIL FROM, RCPT TO
// and DATA, each answered, and the message, all but the end of its data.
//
// go-smtp's data writer (net/textproto's) keeps what it is given in a 4 KiB buffer, writes it out
// whenever it fills and at Close, and cannot be flushed before: the last 4 KiB of a body at most
// (here the whole of it) go with the end of the data, after the token, in the same write. That
// costs nothing measurable on loopback: from the charge to the server's reading of the end,
// medians of 23µs with this demo's 270 bytes held back and 28µs with them flushed first, 45 and
// 46µs for 4 KB. On a slow link they add their time on the wire, about the same for every
// message of one size, which shifts the delays rather than spreading them.
func (s *sender) open(ctx context.Context, seq, total int) (*smtp.DataCommand, error) {
	if s.client == nil {
		c, err := s.dial(ctx)
		if err != nil {
			return nil, err
		}
		s.client = c
	}
	w, err := s.envelope()
	if err != nil {
		s.readyAfter(err)
		return nil, err
	}
	if _, err := io.WriteString(w, message(s.from, s.to, seq, total)); err != nil {
		s.abandon()
		return nil, err
	}
	return w, nil
}

// envelope sends MAIL FROM, RCPT TO and DATA, as SendMail would, and returns the data's writer.
func (s *sender) envelope() (*smtp.DataCommand, error) {
	var opts *smtp.MailOptions
	if !isASCII(s.from) || !isASCII(s.to) {
		opts = &smtp.MailOptions{UTF8: true}
	}
	if err := s.client.Mail(s.from, opts); err != nil {
		return nil, err
	}
	if err := s.client.Rcpt(s.to, nil); err != nil {
		return nil, err
	}
	return s.client.Data()
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// readyAfter readies the connection for the next try after err, a command's failure: an
// SMTP reply other than 421 leaves the connection open, reset for a new transaction; a 421 (after
// which the server closes it) or a broken connection is hung up.
func (s *sender) readyAfter(err error) {
	var se *smtp.SMTPError
	if !errors.As(err, &se) || se.Code == 421 || s.client.Reset() != nil {
		s.hangUp()
	}
}

// retryAfter holds the gate closed for the pause, and the sender's next transaction with it.
func (s *sender) retryAfter() {
	s.gate.RetryAfter(s.pause)
	s.resume = time.Now().Add(s.pause)
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

// abandon drops the connection in the middle of a message's data: a server that never reads the
// end of the data delivers nothing. (QUIT would be read as data.)
func (s *sender) abandon() {
	if s.client != nil {
		_ = s.client.Close()
		s.client = nil
	}
}

// report tells progress where the run is, with the time until the last message would go out if
// none were refused: the remaining messages played through the pure planner from the gate's state
// (its limiter and any pause). While messages go exactly when planned (kept: the message just done
// took one token, at its planned instant), the plan made before stays exact and is reused; when
// one goes late (a pause, a retry, the real clock's lateness), the rest is planned again.
func (s *sender) report(total int, kept bool) {
	if s.progress == nil {
		return
	}
	left := total - s.done
	if kept && len(s.plan) == left+1 {
		s.plan = s.plan[1:]
	} else {
		s.plan = s.plan[:0]
		for at := range s.gate.Admissions(1) {
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
