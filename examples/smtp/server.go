package main

import (
	"errors"
	"io"
	"log"
	"net"
	"net/mail"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// server is the in-process SMTP server of the demo and its tests, on github.com/emersion/go-smtp.
// It records every attempt and every delivery with the instant it saw it, and lets a reply
// function refuse a message, as a real server does when it wants the sender to slow down. A
// message arrives when its data has ended: the instant a server that counts messages counts it.
type server struct {
	*smtp.Server
	user, pass string // when set, AUTH PLAIN must give them
	// reply returns the error to answer the end of the data of the try-th delivery of message seq
	// with, or nil to accept it.
	reply func(seq, try int) error
	// envelope, if set, returns the error to answer cmd ("MAIL" or "RCPT") with in the
	// transaction that the mail-th MAIL command opened (from 1), errHangUp to drop the connection
	// instead, or nil to go on: the tests' refusals before the data.
	envelope func(mail int, cmd string) error
	// latency is how long the server takes to answer MAIL and RCPT: none for the demo, some for
	// the tests, in a synctest bubble's virtual time.
	latency time.Duration

	mu           sync.Mutex
	mails        int // MAIL commands so far
	tries        map[int]int
	attempts     []time.Time   // every MAIL FROM, at its arrival
	deliveries   []time.Time   // the arrival of every message accepted
	refusals     []refusal     // every refusal: of an envelope at its command, of a message at its arrival
	transactions []transaction // every try whose data ended, accepted or refused, in order
	delivered    map[int]int   // how many times each message was accepted
}

// errHangUp makes the server drop the connection instead of answering (see server.envelope).
var errHangUp = errors.New("hang up")

// refusal is the server's refusal of message seq (0 if unknown: its data had not come) at cmd:
// "MAIL", "RCPT", or "." for the end of its data.
type refusal struct {
	seq  int
	cmd  string
	at   time.Time
	code int // 0 for a connection dropped
}

// transaction is a try at a message that the server read to the end of its data.
type transaction struct {
	seq          int
	mail         time.Time // its MAIL command arrived
	mailAnswered time.Time // the server began to write its answer to MAIL (the latency later)
	dataAnswered time.Time // the server began to write its answer to DATA, the 354
	end          time.Time // its data ended: its arrival
}

func newServer(reply func(seq, try int) error) *server {
	s := &server{reply: reply, tries: map[int]int{}, delivered: map[int]int{}}
	s.Server = smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) { return &session{s: s, conn: c}, nil }))
	s.Domain = "localhost"
	s.AllowInsecureAuth = true
	s.ErrorLog = log.New(io.Discard, "", 0)
	return s
}

// flaky answers 421 to the first try of every tenth message: the demo's server shows retries.
func flaky(seq, try int) error {
	if seq%10 == 0 && try == 1 {
		return &smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 7, 0}, Message: "too many messages, slow down"}
	}
	return nil
}

// session is one connection's; tx is the transaction under way.
type session struct {
	s    *server
	conn *smtp.Conn
	tx   transaction
	mail int // the number of tx's MAIL command
}

func (x *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (x *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != x.s.user || pass != x.s.pass {
			return errors.New("invalid credentials")
		}
		return nil
	}), nil
}

func (x *session) Mail(string, *smtp.MailOptions) error {
	now := time.Now()
	x.s.mu.Lock()
	x.s.mails++
	x.s.attempts = append(x.s.attempts, now)
	x.tx, x.mail = transaction{mail: now}, x.s.mails
	x.s.mu.Unlock()
	return x.answer("MAIL")
}

func (x *session) Rcpt(string, *smtp.RcptOptions) error {
	x.tx.mailAnswered = x.wrote() // the last reply was MAIL's
	return x.answer("RCPT")
}

// answer waits out the latency and returns the envelope's answer to cmd, recording a refusal; it
// drops the connection for errHangUp.
func (x *session) answer(cmd string) error {
	if x.s.latency > 0 {
		time.Sleep(x.s.latency)
	}
	if x.s.envelope == nil {
		return nil
	}
	err := x.s.envelope(x.mail, cmd)
	if err == nil {
		return nil
	}
	x.s.refuse(refusal{cmd: cmd, at: time.Now(), code: code(err)})
	if errors.Is(err, errHangUp) {
		_ = x.conn.Conn().Close()
	}
	return err
}

func (s *server) refuse(r refusal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refusals = append(s.refusals, r)
}

// code returns the reply code of err, an *smtp.SMTPError, or 0.
func code(err error) int {
	if se := (*smtp.SMTPError)(nil); errors.As(err, &se) {
		return se.Code
	}
	return 0
}

func (x *session) Data(r io.Reader) error {
	x.tx.dataAnswered = x.wrote() // the 354: go-smtp writes it, then calls Data
	m, err := mail.ReadMessage(r)
	if err != nil {
		return err
	}
	if _, err := io.Copy(io.Discard, m.Body); err != nil {
		return err
	}
	arrived := time.Now() // the data has ended
	seq, _ := strconv.Atoi(m.Header.Get(seqHeader))
	x.tx.seq, x.tx.end = seq, arrived
	s := x.s
	s.mu.Lock()
	defer s.mu.Unlock()
	s.transactions = append(s.transactions, x.tx)
	s.tries[seq]++
	if s.reply != nil {
		if err := s.reply(seq, s.tries[seq]); err != nil {
			s.refusals = append(s.refusals, refusal{seq, ".", arrived, code(err)})
			return err
		}
	}
	s.deliveries = append(s.deliveries, arrived)
	s.delivered[seq]++
	return nil
}

// wrote returns when the server began its latest write on the session's connection: the reply
// to the command before the one being handled. It is the zero time on a connection that serve
// did not accept (none of the demo's: it offers no STARTTLS).
func (x *session) wrote() time.Time {
	if c, ok := x.conn.Conn().(*stampedConn); ok {
		return c.wrote()
	}
	return time.Time{}
}

// serve is Serve on l, through connections that note the instant of each write: to tell when a
// reply left, which go-smtp's Session does not.
func (s *server) serve(l net.Listener) error { return s.Serve(stampedListener{l}) }

type stampedListener struct{ net.Listener }

func (l stampedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &stampedConn{Conn: c}, nil
}

// stampedConn is a connection that notes when its latest write began. go-smtp writes each reply
// in one write, when it flushes it.
type stampedConn struct {
	net.Conn
	mu   sync.Mutex
	last time.Time
}

func (c *stampedConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	c.last = time.Now()
	c.mu.Unlock()
	return c.Conn.Write(b)
}

func (c *stampedConn) wrote() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

// arrived returns a copy of the arrival instants of the messages the server accepted.
func (s *server) arrived() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.deliveries)
}

func (x *session) Reset()        {}
func (x *session) Logout() error { return nil }
