package main

import (
	"bytes"
	"io"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// TestRunEachDialect runs the demo as main does, over loopback to its own API, for each dialect,
// with a quota of 5 a second and 12 requests: every request is served, no window serves more
// than the quota, and where the API speaks on every response (ietf, github) no 429 comes after
// the first; with a bare Retry-After, each window's end is learnt from a refusal. goleak checks
// that no goroutine outlives the run.
func TestRunEachDialect(t *testing.T) {
	for _, d := range dialects {
		t.Run(d, func(t *testing.T) {
			defer goleak.VerifyNone(t)
			var out bytes.Buffer
			c := config{dialect: d, n: 12, workers: 2, quota: 5, window: time.Second, retries: 5, requestsDeadline: time.Minute}
			time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))
			require.NoError(t, run(t.Context(), c, &out, io.Discard), out.String())
			s := out.String()
			assert.Contains(t, s, "12 requests: 12 served, 0 failed")
			m := regexp.MustCompile(`429s received: (\d+), of which (\d+) after`).FindStringSubmatch(s)
			require.NotNil(t, m, s)
			if d != "retry-after" {
				assert.Equal(t, "0", m[1], "no 429 at all: %s", s)
			}
			m = regexp.MustCompile(`worst window: (\d+) served of (\d+) arrived \(limit 5\)`).FindStringSubmatch(s)
			require.NotNil(t, m, s)
			served, _ := strconv.Atoi(m[1])
			assert.LessOrEqual(t, served, 5)
		})
	}
}

func TestParseFlags(t *testing.T) {
	c, err := parseFlags([]string{"-dialect", "github", "-n", "7"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "github", c.dialect)
	assert.Equal(t, 7, c.n)
	_, err = parseFlags([]string{"-dialect", "smoke"}, io.Discard)
	assert.Error(t, err)
	_, err = parseFlags([]string{"-window", "1500ms"}, io.Discard)
	assert.Error(t, err)
	assert.Equal(t, 2, cmd(t.Context(), []string{"-n", "x"}, io.Discard, io.Discard))
}
