package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func runArgs(args ...string) (code int, stdout, stderr string) {
	var out, errs bytes.Buffer
	code = run(args, &out, &errs)
	return code, out.String(), errs.String()
}

func TestRunUsage(t *testing.T) {
	code, _, errs := runArgs()
	require.Equal(t, 2, code)
	require.Contains(t, errs, "usage:")
	code, _, errs = runArgs("frobnicate")
	require.Equal(t, 2, code)
	require.Contains(t, errs, "unknown command frobnicate")
	code, _, errs = runArgs("sim", "100/min", "--for", "1m")
	require.Equal(t, 2, code)
	require.Contains(t, errs, "sim needs --traffic and --for")
	code, _, errs = runArgs("sim", "-h")
	require.Zero(t, code)
	require.Contains(t, errs, "TRAFFIC SPEC")
	code, out, _ := runArgs("help")
	require.Zero(t, code)
	require.Contains(t, out, "numerus explain POLICY")
	code, out, _ = runArgs("explain", "-h")
	require.Zero(t, code)
	require.Contains(t, out, "greedy sender")
}

// TestExplainWritten names the policy as parsed and, when it differs, as written.
func TestExplainWritten(t *testing.T) {
	code, out, errs := runArgs("explain", "100/min")
	require.Zero(t, code, errs)
	require.True(t, strings.HasPrefix(out, "policy  sliding 100/m\n        as written: 100/min\n"), out)
	_, out, _ = runArgs("explain", "sliding 100/m")
	require.NotContains(t, out, "as written")
}

// TestRunSyntaxError shows the column typed.Parse names, under the text.
func TestRunSyntaxError(t *testing.T) {
	code, _, errs := runArgs("explain", "gcra 5/s & 10/x")
	require.Equal(t, 1, code)
	require.Equal(t, "numerus: typed: column 15: expected a unit such as s, min or h, found \"x\"\n"+
		"  gcra 5/s & 10/x\n"+
		"                ^\n", errs)
	code, _, errs = runArgs("sim", "100/min", "--traffic", "const:5/x", "--for", "1m")
	require.Equal(t, 1, code)
	require.Contains(t, errs, `expected a unit such as s, m or h, found "x"`)
	code, _, errs = runArgs("explain", "gcra 0/s")
	require.Equal(t, 1, code)
	require.Contains(t, errs, "numerus: ")
}

// TestSimProgress reports progress on stderr for a long replay, and none for a short one.
func TestSimProgress(t *testing.T) {
	code, out, errs := runArgs("sim", "gcra 500/s burst 10", "--traffic", "const:1000/s", "--for", "40m")
	require.Zero(t, code, errs)
	require.Contains(t, out, "admitted  1200009")
	require.Contains(t, errs, "sim: ")
	require.Contains(t, errs, "of 40m replayed")
	_, _, errs = runArgs("sim", "gcra 500/s burst 10", "--traffic", "const:1000/s", "--for", "1m")
	require.Empty(t, errs)
}

// TestSimOutput pins sim's text for the README's example.
func TestSimOutput(t *testing.T) {
	code, out, errs := runArgs("sim", "gcra 5/s burst 1 & sliding 100/m & sliding 1000/d",
		"--traffic", "const:10/s", "--for", "1h")
	require.Zero(t, code, errs)
	checkGolden(t, "testdata/sim-readme.golden", []byte(out))
	require.True(t, strings.HasPrefix(out, "traffic   const:10/s for 1h"))
}
