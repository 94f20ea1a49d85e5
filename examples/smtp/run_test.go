package main

import (
	"bytes"
	"io"
	"testing"

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
	assert.Contains(t, out.String(), "paced by: sliding 1000/1050ms (the policy with a margin of 50ms")
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
	assert.Contains(t, out.String(), "sent 0, retried 0, failed 2")
}
