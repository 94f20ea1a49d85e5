package main

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/schedule"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// slowServer is how long the tests' slow server takes to answer MAIL and RCPT.
const slowServer = 40 * time.Millisecond

// TestTokenIsTakenAtTheEndOfTheData runs the demo against a server slow to answer MAIL and RCPT:
// every token is charged after the server answered the MAIL and DATA commands of its try, and no
// later than the end of its data; a server's refusal at the end of the data has taken its token.
// After the first, whose envelope must come before it, each transaction opens ahead of its turn,
// so the charges are the planner's instants, past the minute's limit too.
func TestTokenIsTakenAtTheEndOfTheData(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 110
		o := sendWith(t, t.Context(), n, rig{latency: slowServer})
		require.NoError(t, o.err)
		assert.Equal(t, summary{Sent: n, Charged: n}, o.sum)
		checkCharges(t, o.charged, o.srv.transactions)
		assert.True(t, o.charged[0].Equal(o.start.Add(2*slowServer)), "the first charged once MAIL and RCPT were answered")
		var plan []time.Time
		for p := range numerus.Admissions(limiter(o.paced), o.charged[0], 1) {
			if plan = append(plan, p); len(plan) == n {
				break
			}
		}
		assert.Equal(t, plan, o.charged, "charged at the planner's instants")
	})
	synctest.Test(t, func(t *testing.T) {
		o := sendWith(t, t.Context(), 30, rig{latency: slowServer, reply: flaky})
		require.NoError(t, o.err)
		assert.Equal(t, summary{Sent: 30, Retried: 3, Charged: 33}, o.sum, "a refusal at the end of the data took its token")
		checkCharges(t, o.charged, o.srv.transactions)
		checkPolicy(t, ends(o.srv.transactions))
	})
}

// TestEnvelopeRefusalsTakeNoToken: the server refuses some envelopes, at MAIL or RCPT, or drops
// the connection at RCPT. Those tries take no token, and are counted so; a transient one holds
// the next MAIL back for the pause, and its message goes again, a permanent one fails it. Every
// token is charged between the envelope and the end of the data of a try that reached the end.
func TestEnvelopeRefusalsTakeNoToken(t *testing.T) {
	code := func(c int) error { return &smtp.SMTPError{Code: c, Message: "test"} }
	refuse := map[int]struct {
		cmd string
		err error
	}{
		3:  {"MAIL", code(421)},
		6:  {"RCPT", code(450)},
		9:  {"RCPT", errHangUp},
		12: {"MAIL", code(451)},
		15: {"RCPT", code(550)},
	}
	envelope := func(mail int, cmd string) error {
		if r, ok := refuse[mail]; ok && r.cmd == cmd {
			return r.err
		}
		return nil
	}
	synctest.Test(t, func(t *testing.T) {
		const n = 20
		o := sendWith(t, t.Context(), n, rig{envelope: envelope, latency: slowServer})
		assert.Equal(t, summary{Sent: n - 1, Retried: 4, Failed: 1, Charged: n - 1, Uncharged: 5}, o.sum)
		var se *smtp.SMTPError
		require.ErrorAs(t, o.err, &se)
		assert.Equal(t, 550, se.Code)
		require.Len(t, o.srv.refusals, 5)
		checkCharges(t, o.charged, o.srv.transactions)
		checkPolicy(t, ends(o.srv.transactions))
		for seq := 1; seq <= n; seq++ {
			assert.LessOrEqual(t, o.srv.delivered[seq], 1, "message %d delivered", seq)
		}
		for _, r := range o.srv.refusals[:4] {
			i := firstAfter(o.srv.attempts, r.at)
			require.Less(t, i, len(o.srv.attempts), "a MAIL after the %s refused at %v", r.cmd, r.at)
			next := o.srv.attempts[i]
			assert.False(t, next.Before(r.at.Add(testPause)), "after the %s refused at %v the next MAIL came at %v", r.cmd, r.at, next)
		}
	})
}

// firstAfter returns the index of the first instant of sorted at after t, or len(at).
func firstAfter(at []time.Time, t time.Time) int {
	for i, a := range at {
		if a.After(t) {
			return i
		}
	}
	return len(at)
}

// TestCancelledInTheDataDeliversNothing: a run cancelled while a message waits for its token with
// its data open drops the connection: the server never reads the end of the data and delivers
// nothing, and no token is taken.
func TestCancelledInTheDataDeliversNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		// The second message's turn is a second after the first; its transaction opens openAhead
		// before, at most a second, and the run is cancelled halfway through the wait.
		turn := time.Second
		time.AfterFunc(turn-min(openAhead, turn)/2, cancel)
		o := sendWith(t, ctx, 3, rig{paced: spec(t, "gcra 1/s burst 1")})
		assert.ErrorIs(t, o.err, context.Canceled)
		assert.ErrorContains(t, o.err, "message 2:")
		assert.Equal(t, summary{Sent: 1, Failed: 1, Charged: 1}, o.sum)
		assert.Len(t, o.srv.attempts, 2, "the second MAIL was sent")
		require.Len(t, o.srv.transactions, 1, "its data never ended")
		assert.Equal(t, map[int]int{1: 1}, o.srv.delivered)
	})
}

// TestChargesComeAfterTheEnvelopeOverLoopback is the first of these over a real loopback socket,
// on the system clock, with the server refusing every tenth message once at the end of its data:
// each instant the gate charged lies between the server's answer to the try's DATA and the end of
// its data.
func TestChargesComeAfterTheEnvelopeOverLoopback(t *testing.T) {
	defer goleak.VerifyNone(t)
	srv, addr, err := serveLoopback("", "")
	require.NoError(t, err)
	defer func() { require.NoError(t, srv.Close()) }()
	c := config{addr: addr, from: "a@example.com", to: "b@example.com", attempts: 5}
	paced := spec(t, "sliding 1000/s")
	s := newSender(c, schedule.NewGate(limiter(paced)), dialer(c))
	sum, err := s.run(t.Context(), 20)
	require.NoError(t, err)
	assert.Equal(t, summary{Sent: 20, Retried: 2, Charged: 22}, sum)
	checkCharges(t, s.charged, srv.s.tried())
}

// tried returns a copy of the server's transactions.
func (s *server) tried() []transaction {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.transactions)
}
