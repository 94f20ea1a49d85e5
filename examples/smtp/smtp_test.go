package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/pipenet"
	"github.com/numerus-closus/numerus/schedule"
	"github.com/numerus-closus/numerus/typed"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// report is one call of the sender's progress function.
type report struct {
	at        time.Time
	done      int
	finishing time.Time // at + eta
}

// outcome is what a run in the bubble did, seen from both ends.
type outcome struct {
	start   time.Time
	paced   typed.Spec // the policy it paced by
	sum     summary
	err     error
	reports []report
	srv     *server
	charged []time.Time
}

const testPause = 2 * time.Second

// rig is how a run in the bubble is set up: the server's answers and latency, and the policy it
// is paced by (the zero Spec: the demo's, with the default margin).
type rig struct {
	reply    func(seq, try int) error
	envelope func(mail int, cmd string) error
	latency  time.Duration
	paced    typed.Spec
}

// send runs the sender for n messages, paced by the demo's policy with the default margin, against
// an in-process server answering with reply, all inside the caller's synctest bubble, and stops
// the server before it returns.
func send(t *testing.T, n int, reply func(seq, try int) error) outcome {
	t.Helper()
	return sendWith(t, t.Context(), n, rig{reply: reply})
}

// sendWith is send, set up as r says, under ctx.
func sendWith(t *testing.T, ctx context.Context, n int, r rig) outcome {
	t.Helper()
	paced := r.paced
	if paced.Algo == "" {
		var err error
		paced, err = pacing(policySpec(), defaultMargin)
		require.NoError(t, err)
	}
	o := outcome{start: time.Now(), paced: paced, srv: newServer(r.reply)}
	o.srv.envelope, o.srv.latency = r.envelope, r.latency
	l := pipenet.Listen()
	served := make(chan error, 1)
	go func() { served <- o.srv.serve(l) }()
	dial := func(ctx context.Context) (*smtp.Client, error) {
		c, err := l.Dial(ctx)
		if err != nil {
			return nil, err
		}
		return smtp.NewClient(c), nil
	}
	s := newSender(config{from: "a@example.com", to: "b@example.com", pause: testPause, attempts: 5}, schedule.NewGate(limiter(paced)), dial)
	s.progress = func(done, _ int, eta time.Duration) {
		now := time.Now()
		o.reports = append(o.reports, report{now, done, now.Add(eta)})
	}
	o.sum, o.err = s.run(ctx, n)
	o.charged = s.charged
	require.NoError(t, o.srv.Shutdown(t.Context()))
	require.NoError(t, <-served)
	return o
}

// ends returns the instants at which the data of the transactions ended: every try that took a
// token and reached the server.
func ends(txs []transaction) []time.Time {
	out := make([]time.Time, len(txs))
	for i, tx := range txs {
		out[i] = tx.end
	}
	return out
}

// checkCharges fails unless the k-th charge belongs to the k-th transaction the server read to
// its end, and lies after the server answered its MAIL and DATA commands and no later than its
// data's end: the token was taken between the envelope and the end of the data.
func checkCharges(t *testing.T, charged []time.Time, txs []transaction) {
	t.Helper()
	require.Len(t, txs, len(charged), "one charge per transaction that ended")
	for i, tx := range txs {
		c := charged[i]
		require.False(t, c.Before(tx.mailAnswered), "try %d (message %d) charged at %v, before its MAIL was answered at %v", i+1, tx.seq, c, tx.mailAnswered)
		require.False(t, c.Before(tx.dataAnswered), "try %d (message %d) charged at %v, before its DATA was answered at %v", i+1, tx.seq, c, tx.dataAnswered)
		require.False(t, tx.end.Before(c), "try %d (message %d) arrived at %v, before its charge at %v", i+1, tx.seq, tx.end, c)
	}
}

// checkPolicy fails unless the instants at keep the demo's policy: at most 5 in any second, 100
// in any minute and 1,000 in any day, and the policy, fresh, admits them all replayed in order.
func checkPolicy(t *testing.T, at []time.Time) {
	t.Helper()
	require.True(t, slices.IsSortedFunc(at, time.Time.Compare))
	for w, most := range map[time.Duration]int{time.Second: 5, time.Minute: 100, 24 * time.Hour: 1000} {
		n, from := mostInWindow(at, w)
		require.LessOrEqual(t, n, most, "%d sends in the %v from %v", n, w, from)
	}
	require.NoError(t, verify(io.Discard, policySpec(), at, atServer))
}

// TestSendingFollowsThePolicyAndItsPlan sends 1,010 messages: past the 100-a-minute limit ten
// times and past the 1,000-a-day limit. Every send is within 5/s, 100/min and 1,000/day; the sends
// are exactly the planner's instants under the policy with the default margin, the one the demo
// paces by (no slower than that either), and the instants the gate charged; and every ETA
// reported on the way is exact: the last message goes out at the instant each report foretold.
func TestSendingFollowsThePolicyAndItsPlan(t *testing.T) {
	const n = 1010
	synctest.Test(t, func(t *testing.T) {
		o := send(t, n, nil)
		require.NoError(t, o.err)
		assert.Equal(t, summary{Sent: n, Charged: n}, o.sum)
		at := o.srv.deliveries
		require.Len(t, at, n)
		require.Len(t, o.srv.attempts, n, "one attempt per message")
		for i, mail := range o.srv.attempts {
			assert.False(t, mail.After(at[i]) || mail.Before(at[i].Add(-openAhead)), "message %d: MAIL at %v, arrived at %v: the transaction opens at most openAhead before", i+1, mail, at[i])
		}
		checkPolicy(t, at)

		assert.Equal(t, at, o.charged, "arrived when charged: no delays in the bubble")
		var plan []time.Time
		for p := range numerus.Admissions(limiter(o.paced), o.start, 1) {
			if plan = append(plan, p); len(plan) == n {
				break
			}
		}
		assert.Equal(t, plan, at, "sent at the planner's instants")
		last := at[n-1]
		assert.True(t, last.After(o.start.Add(24*time.Hour)), "the 1,001st waited for the day: %v", last.Sub(o.start))

		require.Len(t, o.reports, n+1)
		for _, r := range o.reports[:n] {
			require.True(t, r.finishing.Equal(last), "after %d: eta foretold %v, the last went at %v", r.done, r.finishing, last)
		}
	})
}

// TestTransientRepliesPauseTheGateAndAreRetried: the server answers 421, 450 and 451 to some
// tries and 5xx to others, at the end of their data. Transient refusals hold every send back for
// the pause and the message goes again (counted as retried) until it is delivered, at most five
// tries; permanent ones are reported and skipped. Every try took a token, and every try, refused
// or not, keeps the policy.
func TestTransientRepliesPauseTheGateAndAreRetried(t *testing.T) {
	code := func(c int) error { return &smtp.SMTPError{Code: c, Message: "test"} }
	reply := func(seq, try int) error {
		switch {
		case seq%7 == 0 && try == 1:
			return code(421)
		case seq == 5 && try <= 2:
			return code(450)
		case seq == 11 && try == 1:
			return code(451)
		case seq == 13:
			return code(550)
		case seq == 17 && try == 1:
			return code(554)
		case seq == 19:
			return code(421) // never passes: given up after five tries
		}
		return nil
	}
	synctest.Test(t, func(t *testing.T) {
		const n = 120
		o := send(t, n, reply)
		sevens := n / 7
		retried := sevens + 2 + 1 + 4
		assert.Equal(t, summary{Sent: n - 3, Retried: retried, Failed: 3, Charged: n + retried}, o.sum)
		for _, seq := range []int{13, 17, 19} {
			assert.ErrorContains(t, o.err, fmt.Sprintf("message %d:", seq))
		}
		var se *smtp.SMTPError
		require.True(t, errors.As(o.err, &se))
		assert.Equal(t, 550, se.Code)

		for seq := 1; seq <= n; seq++ {
			want := 1
			if seq == 13 || seq == 17 || seq == 19 {
				want = 0
			}
			assert.Equal(t, want, o.srv.delivered[seq], "message %d delivered", seq)
		}
		tried := ends(o.srv.transactions)
		checkPolicy(t, tried)
		checkCharges(t, o.charged, o.srv.transactions)
		lastRefused := o.srv.refusals[len(o.srv.refusals)-1].seq
		last := tried[len(tried)-1]
		for _, r := range o.reports {
			if r.done >= lastRefused && r.done < n {
				assert.True(t, r.finishing.Equal(last), "after %d, planned again: eta foretold %v, the last went at %v", r.done, r.finishing, last)
			}
		}
		for _, r := range o.srv.refusals {
			if r.code/100 != 4 {
				continue
			}
			i, _ := slices.BinarySearchFunc(o.srv.attempts, r.at, func(a, b time.Time) int {
				if a.After(b) {
					return 1
				}
				return -1
			})
			if i < len(o.srv.attempts) {
				assert.False(t, o.srv.attempts[i].Before(r.at.Add(testPause)), "after the %d at %v the next try came at %v", r.code, r.at, o.srv.attempts[i])
			}
		}
	})
}
