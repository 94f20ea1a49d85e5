package main

import (
	"errors"
	"io"
	"log"
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
// message arrives when its DATA is complete: the instant a server that counts messages counts it.
type server struct {
	*smtp.Server
	user, pass string // when set, AUTH PLAIN must give them
	// reply returns the error to answer the try-th delivery of message seq with, or nil to
	// accept it.
	reply func(seq, try int) error

	mu         sync.Mutex
	tries      map[int]int
	attempts   []time.Time // every MAIL FROM
	deliveries []time.Time // the arrival of every message accepted
	refusals   []refusal   // every message refused, at its arrival
	delivered  map[int]int // how many times each message was accepted
}

type refusal struct {
	seq  int
	at   time.Time
	code int
}

func newServer(reply func(seq, try int) error) *server {
	s := &server{reply: reply, tries: map[int]int{}, delivered: map[int]int{}}
	s.Server = smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &session{s}, nil }))
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

type session struct{ s *server }

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
	x.s.mu.Lock()
	defer x.s.mu.Unlock()
	x.s.attempts = append(x.s.attempts, time.Now())
	return nil
}

func (x *session) Rcpt(string, *smtp.RcptOptions) error { return nil }

func (x *session) Data(r io.Reader) error {
	m, err := mail.ReadMessage(r)
	if err != nil {
		return err
	}
	if _, err := io.Copy(io.Discard, m.Body); err != nil {
		return err
	}
	arrived := time.Now() // the DATA is complete
	seq, _ := strconv.Atoi(m.Header.Get(seqHeader))
	s := x.s
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tries[seq]++
	if s.reply != nil {
		if err := s.reply(seq, s.tries[seq]); err != nil {
			code := 0
			if se := (*smtp.SMTPError)(nil); errors.As(err, &se) {
				code = se.Code
			}
			s.refusals = append(s.refusals, refusal{seq, arrived, code})
			return err
		}
	}
	s.deliveries = append(s.deliveries, arrived)
	s.delivered[seq]++
	return nil
}

// arrived returns a copy of the arrival instants of the messages the server accepted.
func (s *server) arrived() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.deliveries)
}

func (x *session) Reset()        {}
func (x *session) Logout() error { return nil }
