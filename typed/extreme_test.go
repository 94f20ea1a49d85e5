package typed

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExtremeInstants: instants before 1678 and after 2262 are clamped to the range the kernels
// hold, and every limiter still counts there: a burst admits its size and no more, the status
// is numerus's (full at the very instant asked), and the state decodes from its own encoding.
func TestExtremeInstants(t *testing.T) {
	for _, at := range []time.Time{time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)} {
		for _, text := range []string{"gcra 1/h burst 2", "token 1/h burst 2", "leaky 1/h burst 2", "finite 2",
			"window 2/h", "count 2/h", "sliding 2/h", "buckets 2/h in 4"} {
			p := MustCompile(text)
			s, root := p.Fresh(), rootOf(t, p.Spec())
			assert.Equal(t, root.Status(at), p.Status(s, at), "%s fresh at %v", text, at)
			admitted := 0
			for range 5 {
				next, _, ok := p.Debit(s, at)
				if ok {
					s, admitted = next, admitted+1
				}
				if next, _, ok := root.Debit(at); ok {
					root = next
				}
			}
			assert.Equal(t, 2, admitted, "%s at %v", text, at)
			assert.Equal(t, root.Status(at), p.Status(s, at), "%s spent at %v", text, at)
			back, err := p.DecodeState(p.AppendState(nil, s))
			require.NoError(t, err, "%s at %v: its own state", text, at)
			require.Equal(t, p.Words(s), p.Words(back), "%s at %v", text, at)
		}
	}
	g := build[GCRA](t, "gcra 1/h burst 1")
	g, _, ok := g.Debit(time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC))
	require.True(t, ok)
	_, from, ok := g.Debit(time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC))
	require.False(t, ok)
	require.False(t, from.IsNever())
}

// TestContinueAtTheEarliestInstant: a change of policy at an instant clamped to the earliest one
// records the use carried over in the first sub-window, so that it expires a window later, and
// the state decodes from its own encoding (the entry's start once wrapped to the year 2262, so
// that the tokens never came back).
func TestContinueAtTheEarliestInstant(t *testing.T) {
	from, to := MustCompile("gcra 1/m burst 5"), MustCompile("buckets 5/1m in 6")
	s, _, ok := from.DebitN(from.Fresh(), time.Time{}, 2)
	require.True(t, ok)
	next := to.Continue(from, s, time.Time{})
	require.Equal(t, int64(3), to.Status(next, time.Time{}).Remaining)
	require.Equal(t, int64(5), to.Status(next, t0).Remaining)
	_, err := to.DecodeState(to.AppendState(nil, next))
	require.NoError(t, err)
}
