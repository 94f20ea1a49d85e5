package main

import (
	"bytes"
	"io"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/numerus-closus/numerus/typed"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// spec parses a policy for a test.
func spec(t *testing.T, text string) typed.Spec {
	t.Helper()
	sp, err := typed.Parse(text)
	require.NoError(t, err)
	return sp
}

// TestRunOverLoopback runs the program as main does, over a real loopback socket to its own
// server with AUTH PLAIN, under a policy that nothing waits for and no pause (so that nothing
// waits in real time), and checks with goleak that no goroutine outlives it.
func TestRunOverLoopback(t *testing.T) {
	defer goleak.VerifyNone(t)
	var out bytes.Buffer
	c := config{user: "u", pass: "p", from: "a@example.com", to: "b@example.com", n: 20, attempts: 5, margin: defaultMargin}
	require.NoError(t, run(t.Context(), c, spec(t, "sliding 1000/s"), &out, io.Discard))
	assert.Contains(t, out.String(), "in-process SMTP server on 127.0.0.1:")
	assert.Contains(t, out.String(), "sent 20, retried 2, failed 0")
	assert.Contains(t, out.String(), "\n22 tokens taken, one by each try that reached the end of its data; the 0 tries refused or cut off before it took none\n")
	assert.Contains(t, out.String(), "server saw at most 20 in any 1s (limit 1000)\n")
	assert.Contains(t, out.String(), "it admits all 20 arrivals at the server\n")
}

// TestRunChecksTheArrivalsAtItsServer runs the demo over loopback to its own server under a policy
// that paces it for a second or two, the tenth message refused once (a new connection for its
// retry): with a margin of 100ms, which the delays to the server differ by less than even on a
// busy machine, the server's arrivals keep every limit, and the figures printed are in bounds.
func TestRunChecksTheArrivalsAtItsServer(t *testing.T) {
	defer goleak.VerifyNone(t)
	var out bytes.Buffer
	c := config{from: "a@example.com", to: "b@example.com", n: 10, attempts: 5, pause: 100 * time.Millisecond, margin: 100 * time.Millisecond}
	require.NoError(t, run(t.Context(), c, spec(t, "gcra 20/s burst 1 & sliding 5/500ms"), &out, io.Discard), out.String())
	assert.Contains(t, out.String(), "policy:   gcra 20/s burst 1 & sliding 5/500ms\n")
	assert.Contains(t, out.String(), "paced by: gcra 20/3s burst 1 & sliding 5/600ms (the policy with a margin of 100ms")
	assert.Contains(t, out.String(), "sent 10, retried 1, failed 0")
	m := regexp.MustCompile(`server saw at most (\d+) in any 1s \(limit 20\), (\d+) in any 500ms \(limit 5\)\n`).FindStringSubmatch(out.String())
	require.NotNil(t, m, out.String())
	perSecond, perHalf := atoi(t, m[1]), atoi(t, m[2])
	assert.True(t, perHalf >= 1 && perHalf <= 5, "%d in any 500ms", perHalf)
	assert.True(t, perSecond >= perHalf && perSecond <= 10, "%d in any 1s", perSecond)
	assert.Contains(t, out.String(), "it admits all 10 arrivals at the server\n")
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	require.NoError(t, err)
	return n
}

// TestRunChecksTheClientsInstantsAtAnotherServer: pointed at a server that is not its own, the
// demo checks the instants the gate charged, and says that they are the client's.
func TestRunChecksTheClientsInstantsAtAnotherServer(t *testing.T) {
	defer goleak.VerifyNone(t)
	srv, addr, err := serveLoopback("", "")
	require.NoError(t, err)
	defer func() { require.NoError(t, srv.Close()) }()
	var out bytes.Buffer
	c := config{addr: addr, from: "a@example.com", to: "b@example.com", n: 5, attempts: 5, margin: defaultMargin}
	require.NoError(t, run(t.Context(), c, spec(t, "sliding 1000/s"), &out, io.Discard))
	assert.Contains(t, out.String(), atClient.note+"\n")
	assert.Contains(t, out.String(), "client was charged at most 5 in any 1s (limit 1000)\n")
	assert.Contains(t, out.String(), "it admits all 5 instants the client was charged at\n")
	assert.NotContains(t, out.String(), "server saw")
}

func TestRunReportsAWrongPassword(t *testing.T) {
	defer goleak.VerifyNone(t)
	var out bytes.Buffer
	srv, addr, err := serveLoopback("u", "p")
	require.NoError(t, err)
	defer func() { require.NoError(t, srv.Close()) }()
	c := config{addr: addr, user: "u", pass: "wrong", from: "a@example.com", to: "b@example.com", n: 2, attempts: 1}
	err = run(t.Context(), c, spec(t, "sliding 1000/s"), &out, io.Discard)
	require.Error(t, err)
	assert.NotErrorIs(t, err, errExceeded)
	assert.Contains(t, out.String(), "sent 0, retried 0, failed 2")
	assert.Contains(t, out.String(), "0 tokens taken, one by each try that reached the end of its data; the 2 tries refused or cut off before it took none\n", "the login failed before the data")
}
