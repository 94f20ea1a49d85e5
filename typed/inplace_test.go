package typed

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/internal/inplace"
	"github.com/numerus-closus/numerus/internal/kernel"
)

// in is p's in-place engine, through the door the stores take.
func in(p Policy) inplace.Engine[State] { return p.InPlace(inplace.Key{}) }

// nanosOf returns the Outcome instant of a NextDebitable.
func nanosOf(n numerus.NextDebitable) int64 {
	t, ok := n.Time()
	if !ok {
		return kernel.Never
	}
	return t.UnixNano()
}

// TestDebitInLikeRoot: DebitIn on a State kept in place, and PeekIn before each step, decide as
// the numerus limiter of the same spec (built with the root's constructors) along a random
// timeline; a refusal leaves the State as it was, and a copy taken before an admission keeps its
// value (the State's extra block is not shared with what follows).
func TestDebitInLikeRoot(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sp := genSpec(t, 3)
		p := mustCompile(t, sp)
		root, s, at := rootOf(t, sp), p.Fresh(), t0
		for i, st := range genTimeline(t) {
			at = at.Add(st.delta)
			ns := kernel.FromTime(at)
			_, peekFrom, peekOK := root.DebitN(at, 1)
			wantPeek := withoutBinding(sp, rootOutcome(peekOK, peekFrom, root, at))
			before, words := s, p.Words(s)
			require.Equal(t, wantPeek, withoutBinding(sp, outcome(in(p).PeekIn(&s, ns))), "step %d: peek at %v", i, at)
			require.Equal(t, before, s, "step %d: PeekIn changed the state", i)
			next, from, ok := root.DebitN(at, st.cost)
			got := withoutBinding(sp, outcome(in(p).DebitIn(&s, ns, st.cost)))
			require.Equal(t, withoutBinding(sp, rootOutcome(ok, from, next, at)), got, "step %d: debit %d at %v", i, st.cost, at)
			require.Equal(t, words, p.Words(before), "step %d: DebitIn changed an earlier copy", i)
			if !ok {
				require.Equal(t, before, s, "step %d: a refusal changed the state", i)
			}
			root = next
		}
	})
}

// TestDebitInAtNever: DebitIn and PeekIn at Never (math.MaxInt64, beyond the range of instants)
// decide as DebitN at time.Unix(0, Never) does, at the range's last instant, and leave a State
// that decodes.
func TestDebitInAtNever(t *testing.T) {
	for _, text := range []string{"gcra 10/s", "token 10/s", "leaky 10/s", "window 10/s", "count 10/s",
		"sliding 10/s", "buckets 10/s in 2", "10/s & window 5/s"} {
		p := MustCompile(text)
		viaN, _, okN := p.DebitN(p.Fresh(), time.Unix(0, kernel.Never), 1)
		s := p.Fresh()
		_, okPeek := in(p).PeekIn(&s, kernel.Never)
		_, ok := in(p).DebitIn(&s, kernel.Never, 1)
		require.True(t, okN && ok && okPeek, text)
		require.Equal(t, p.Words(viaN), p.Words(s), "%s: DebitIn at Never differs from DebitN", text)
		_, err := p.DecodeState(p.AppendState(nil, s))
		require.NoError(t, err, "%s: the state DebitIn left", text)
	}
}

// admission is an Outcome with its verdict, to compare in one piece.
type admission struct {
	inplace.Outcome
	ok bool
}

func outcome(o inplace.Outcome, ok bool) admission { return admission{o, ok} }

// rootOutcome is the Outcome of a debit at at that root answered (ok, from), with the status
// of after, the limiter that follows it. Next is the answer of a debit of one token more than
// after's Remaining, or at when it is full.
func rootOutcome(ok bool, from numerus.NextDebitable, after numerus.Limiter, at time.Time) admission {
	st := after.Status(at)
	ns := kernel.FromTime(at)
	o := inplace.Outcome{Remaining: st.Remaining, Limit: st.Limit, Retry: nanosOf(from), Full: nanosOf(st.Full)}
	if ok {
		o.Retry = ns
	}
	if st.Remaining >= st.Limit {
		o.Next = ns
	} else if _, more, admitted := after.DebitN(at, st.Remaining+1); !admitted {
		o.Next = nanosOf(more)
	}
	return admission{o, ok}
}

// withoutBinding clears what the root cannot tell of a tree: which limit binds.
// TestOutcomeBinding checks it.
func withoutBinding(sp Spec, a admission) admission {
	if sp.Algo.kind().inner() {
		a.Binds = 0
	}
	return a
}

// TestDebitInZeroPolicy: the zero Policy refuses with Never and a zero limit, as DebitN does.
func TestDebitInZeroPolicy(t *testing.T) {
	var s State
	want := admission{inplace.Outcome{Retry: kernel.Never, Full: kernel.Never, Next: kernel.Never}, false}
	require.Equal(t, want, outcome(in(Policy{}).DebitIn(&s, kernel.FromTime(t0), 1)))
	require.Equal(t, want, outcome(in(Policy{}).PeekIn(&s, kernel.FromTime(t0))))
	require.Panics(t, func() { in(MustCompile("10/s")).DebitIn(&s, 0, 0) }, "a cost below 1")
}

// TestDebitInForeignState: a State of another policy, or the zero State, is read as its words go
// (as DebitN reads it), and is left unchanged by a refusal and by PeekIn.
func TestDebitInForeignState(t *testing.T) {
	p := MustCompile("sliding 1/s & 10/s")
	other := MustCompile("finite 2")
	for _, s := range []State{{}, other.Fresh()} {
		orig := s
		_, _, wantOK := p.DebitN(s, t0, 1)
		_, ok := in(p).PeekIn(&s, kernel.FromTime(t0))
		require.Equal(t, wantOK, ok)
		require.Equal(t, orig, s)
		next, _, _ := p.DebitN(s, t0, 1)
		_, ok = in(p).DebitIn(&s, kernel.FromTime(t0), 1)
		require.True(t, ok)
		require.Equal(t, p.Words(next), p.Words(s))
		refused := s
		_, ok = in(p).DebitIn(&s, kernel.FromTime(t0), 1)
		require.False(t, ok)
		require.Equal(t, refused, s)
	}
}

// TestDebitInForeignFraction: a GCRA state with a fraction of a nanosecond (written at 3/s) read
// by a policy of whole nanoseconds per token (1/s) decides under DebitIn as under DebitN.
func TestDebitInForeignFraction(t *testing.T) {
	thirds, whole := MustCompile("gcra 3/s burst 1"), MustCompile("gcra 1/s burst 1")
	s := thirds.Fresh()
	_, ok := in(thirds).DebitIn(&s, 0, 1)
	require.True(t, ok)
	require.Equal(t, [][]int64{{333333333, 1, 0}}, thirds.Words(s))
	for _, at := range []int64{333333332, 333333333, 333333334} {
		next, _, wantOK := whole.DebitN(s, time.Unix(0, at), 1)
		st := s
		_, ok := in(whole).DebitIn(&st, at, 1)
		require.Equal(t, wantOK, ok, "at %d", at)
		require.Equal(t, whole.Words(next), whole.Words(st), "at %d", at)
	}
}

// TestForeignLogReadsAsItsOwn: a State whose sliding log another policy wrote is read under the
// reading policy's limit, holding what it held: a log of 100 an hour read by a policy of 1 an hour
// admits no more than 1 (it admitted 5, the old log deciding by its own limit), a used one
// admits nothing, and one read by a policy of the same parameters stands as it is.
func TestForeignLogReadsAsItsOwn(t *testing.T) {
	wide, narrow := MustCompile("sliding 100/h"), MustCompile("sliding 1/h")
	takes := func(p Policy, s State) (admitted int) {
		for range 5 {
			var ok bool
			if s, _, ok = p.DebitN(s, t0.Add(time.Minute), 1); ok {
				admitted++
			}
			if _, ok = in(p).DebitIn(&s, kernel.FromTime(t0.Add(time.Minute)), 1); ok {
				admitted++
			}
		}
		return admitted
	}
	require.Equal(t, 1, takes(narrow, wide.Fresh()), "a fresh foreign log")
	used, _, ok := wide.DebitN(wide.Fresh(), t0, 50)
	require.True(t, ok)
	require.Zero(t, takes(narrow, used), "a foreign log with 50 used")
	require.Equal(t, 5+5, takes(MustCompile("sliding 100/1h"), used), "the same parameters")
	require.Equal(t, 0, takes(MustCompile("sliding 50/h"), used), "50 used of a limit of 50")
}

// TestForeignLogGainsNothingUnderALargerLimit: a State whose log was kept under a smaller limit,
// read by a policy of a larger one, holds no more tokens than it did: none when it was spent.
func TestForeignLogGainsNothingUnderALargerLimit(t *testing.T) {
	narrow, wide := MustCompile("sliding 1/h"), MustCompile("sliding 100/h")
	spent, _, ok := narrow.DebitN(narrow.Fresh(), t0, 1)
	require.True(t, ok)
	at := t0.Add(time.Minute)
	require.Equal(t, int64(0), wide.Status(spent, at).Remaining)
	_, _, ok = wide.DebitN(spent, at, 1)
	require.False(t, ok, "DebitN")
	s := spent
	_, ok = in(wide).DebitIn(&s, kernel.FromTime(at), 1)
	require.False(t, ok, "DebitIn")
}

// TestLogReadAlikeByTheSamePolicyCompiledTwice: a State's log read by the same policy compiled
// again keeps its entries, each expiring when it would have: not all of them counted at the
// latest instant.
func TestLogReadAlikeByTheSamePolicyCompiledTwice(t *testing.T) {
	p, again := MustCompile("sliding 2/s"), MustCompile("sliding 2/s")
	s := admitEach(t, p, p.Fresh(), t0, t0.Add(500*time.Millisecond))
	for _, d := range []time.Duration{500 * time.Millisecond, time.Second, 1500 * time.Millisecond} {
		at := t0.Add(d)
		require.Equal(t, p.Status(s, at), again.Status(s, at), "after %v", d)
		_, _, want := p.DebitN(s, at, 1)
		_, _, got := again.DebitN(s, at, 1)
		require.Equal(t, want, got, "after %v", d)
	}
}

// TestRefusedForeignDebitInChangesNothing: DebitIn on a State kept under another policy debits
// a fitted copy; refused, it leaves *s exactly as it was (here a log of two entries, which the
// fitted copy counts at its latest instant), so the old policy still reads its own entries.
func TestRefusedForeignDebitInChangesNothing(t *testing.T) {
	narrow, wide := MustCompile("sliding 2/h"), MustCompile("sliding 3/h")
	spent := admitEach(t, narrow, narrow.Fresh(), t0, t0.Add(30*time.Minute))
	before := narrow.AppendState(nil, spent)
	s := spent
	_, ok := in(wide).DebitIn(&s, kernel.FromTime(t0.Add(40*time.Minute)), 1)
	require.False(t, ok)
	require.Equal(t, spent, s)
	require.Equal(t, before, narrow.AppendState(nil, s))
	// The first entry still leaves the old policy's window an hour after it was taken.
	_, _, ok = narrow.DebitN(s, t0.Add(time.Hour), 1)
	require.True(t, ok)
}

// admitEach debits one token from s under p at each instant, requiring each admitted, and returns
// the state that follows.
func admitEach(t *testing.T, p Policy, s State, ats ...time.Time) State {
	t.Helper()
	for _, at := range ats {
		next, _, ok := p.DebitN(s, at, 1)
		require.True(t, ok, "at %v", at)
		s = next
	}
	return s
}

// TestOutcomeBinding: the limit a tree's Outcome names as binding (in an And the limit with the
// fewest tokens left, in an Or the one with the most; leaves numbered in the order the notation
// writes them), and the instant the tree holds one token more.
func TestOutcomeBinding(t *testing.T) {
	at := kernel.FromTime(t0) // on the minute
	for _, c := range []struct {
		text  string
		cost  int64
		binds int
		next  int64 // after at
	}{
		{"gcra 10/s burst 5 & window 100/m", 5, 0, int64(100 * time.Millisecond)},
		{"window 100/m & gcra 10/s burst 5", 5, 1, int64(100 * time.Millisecond)},
		{"window 3/m & gcra 10/s burst 5", 3, 0, int64(time.Minute)},
		{"sliding 2/s & sliding 5/m", 2, 0, int64(time.Second)},
		{"finite 3 | sliding 5/s", 4, 0, int64(time.Second)}, // the finite bucket, untouched, holds 3, the log 1
		{"sliding 5/s | finite 3", 4, 1, int64(time.Second)},
		{"finite 3 | sliding 5/s", 1, 1, int64(time.Second)}, // both took it: the log holds 4, the bucket 2
		{"(gcra 1/s burst 2 | finite 1) & sliding 10/m", 1, 0, int64(time.Second)},
		{"(gcra 1/s burst 2 | finite 1) & sliding 1/m", 1, 2, int64(time.Minute)},
	} {
		p := MustCompile(c.text)
		s := p.Fresh()
		o, ok := in(p).DebitIn(&s, at, c.cost)
		require.True(t, ok, c.text)
		require.Equal(t, c.binds, o.Binds, "%s: the binding limit", c.text)
		require.Equal(t, at+c.next, o.Next, "%s: its next token", c.text)
		peek, _ := in(p).PeekIn(&s, at)
		require.Equal(t, [2]int64{int64(o.Binds), o.Next}, [2]int64{int64(peek.Binds), peek.Next}, "%s: PeekIn reports the same", c.text)
	}
}

// TestForeignStatesReportNoNegativeBalance: a State written under a larger burst, read by a
// policy of a smaller one (as its own: see State), holds more debt than the reader's tolerance.
// Its Remaining reads 0, never below, in the Outcome and in the Status, and nothing is admitted.
func TestForeignStatesReportNoNegativeBalance(t *testing.T) {
	big, small := MustCompile("gcra 1/s burst 100"), MustCompile("gcra 1/s burst 1")
	s := big.Fresh()
	_, ok := in(big).DebitIn(&s, 0, 100)
	require.True(t, ok)
	o, ok := in(small).DebitIn(&s, 0, 1)
	require.False(t, ok)
	require.Zero(t, o.Remaining)
	require.Zero(t, small.Status(s, time.Unix(0, 0)).Remaining)

	fine, whole := MustCompile("gcra 999999999999/7s burst 1"), MustCompile("gcra 1/s burst 1")
	s = fine.Fresh()
	_, ok = in(fine).DebitIn(&s, 0, 1)
	require.True(t, ok)
	require.Zero(t, whole.Status(s, time.Unix(0, 0)).Remaining)
	_, _, ok = whole.DebitN(s, time.Unix(0, 0), 1)
	require.False(t, ok, "a TAT fraction read by a policy of whole nanoseconds")
	_, ok = in(whole).DebitIn(&s, 0, 1)
	require.False(t, ok)
}
