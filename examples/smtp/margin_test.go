package main

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMarginFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want time.Duration
	}{
		{nil, 50 * time.Millisecond},
		{[]string{"-margin", "0"}, 0},
		{[]string{"-margin=20ms", "-n", "3"}, 20 * time.Millisecond},
	} {
		cfg, err := parseFlags(c.args, io.Discard)
		require.NoError(t, err, "%q", c.args)
		assert.Equal(t, c.want, cfg.margin, "%q", c.args)
	}
	_, err := parseFlags([]string{"-margin", "soon"}, io.Discard)
	assert.Error(t, err)
}

// TestPacing: the demo paces by its policy with the margin (typed.Spec.WithMargin), or by the
// policy itself with none.
func TestPacing(t *testing.T) {
	got, err := pacing(policySpec(), 0)
	require.NoError(t, err)
	assert.True(t, got.Equal(policySpec()), "%v", got)
	got, err = pacing(policySpec(), defaultMargin)
	require.NoError(t, err)
	assert.Equal(t, "gcra 5/1250ms burst 1 & sliding 100/60050ms & sliding 1000/86400050ms", got.String())

	_, err = pacing(policySpec(), -time.Millisecond)
	assert.ErrorIs(t, err, numerus.ErrInvalidArgument)
	or := spec(t, "sliding 5/s | sliding 100/m")
	_, err = pacing(or, time.Millisecond)
	assert.ErrorIs(t, err, numerus.ErrInvalidArgument, "an Or takes no margin")
	_, err = pacing(or, 0)
	assert.NoError(t, err)
}

func TestMarginHint(t *testing.T) {
	assert.Contains(t, marginHint(0), "with no margin")
	assert.Contains(t, marginHint(50*time.Millisecond), "differed by more than the margin of 50ms")
}

// TestCmdPacesByTheMarginOfItsFlag runs the command as main does, with one message (so that the
// check cannot fail, whatever the delays on a busy machine): it prints the policy and the one it
// paces by, margined as -margin says, and exits 0; a negative margin is an error and exits 1, a
// malformed one exits 2.
func TestCmdPacesByTheMarginOfItsFlag(t *testing.T) {
	defer goleak.VerifyNone(t)
	const policyLine = "policy:   gcra 5/s burst 1 & sliding 100/m & sliding 1000/d\n"
	for _, c := range []struct {
		margin string
		paced  string
	}{
		{"", "paced by: gcra 5/1250ms burst 1 & sliding 100/60050ms & sliding 1000/86400050ms (the policy with a margin of 50ms for the delays to the server; the ETA is this one's)\n"},
		{"20ms", "paced by: gcra 5/1100ms burst 1 & sliding 100/60020ms & sliding 1000/86400020ms (the policy with a margin of 20ms"},
		{"0", "paced by: gcra 5/s burst 1 & sliding 100/m & sliding 1000/d (no margin)\n"},
	} {
		args := []string{"-n", "1"}
		if c.margin != "" {
			args = append(args, "-margin", c.margin)
		}
		var out, errOut bytes.Buffer
		require.Equal(t, 0, cmd(t.Context(), args, &out, &errOut), "%q: %s", args, &errOut)
		assert.Contains(t, out.String(), policyLine, "%q", args)
		assert.Contains(t, out.String(), c.paced, "%q", args)
		assert.Contains(t, out.String(), "server saw at most 1 in any 1s (limit 5), 1 in any 1m (limit 100), 1 in any 24h (limit 1000)\n", "%q", args)
	}
	var errOut bytes.Buffer
	assert.Equal(t, 1, cmd(t.Context(), []string{"-margin", "-1ms"}, io.Discard, &errOut))
	assert.Contains(t, errOut.String(), "margin")
	assert.Equal(t, 2, cmd(t.Context(), []string{"-margin", "soon"}, io.Discard, io.Discard))
}
