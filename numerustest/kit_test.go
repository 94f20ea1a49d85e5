package numerustest

import (
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/numerus-closus/numerus"
)

// quota admits n tokens in each window of length w aligned on the zero time. Without a flaw it
// obeys every law; each flaw breaks one, so that the kit can be shown to catch it.
type quota struct {
	n, used int64
	w       time.Duration
	start   time.Time // the window that used counts
	last    time.Time // the latest admitted instant
	flaw    string
	shared  *int64 // hidden mutable state, for the flaws "hidden" and "mutating"
}

func newQuota(flaw string) func() numerus.Limiter {
	return func() numerus.Limiter { return quota{n: 3, w: time.Second, flaw: flaw, shared: new(int64)} }
}

func (q quota) Debit(at time.Time) (numerus.Limiter, numerus.NextDebitable, bool) {
	return q.DebitN(at, 1)
}

// window returns the start of the window holding at and the tokens it counts.
func (q quota) window(at time.Time) (time.Time, int64) {
	s := at.Truncate(q.w)
	switch {
	case q.flaw == "mutating":
		return s, *q.shared
	case s.Equal(q.start):
		return s, q.used
	}
	return s, 0
}

func (q quota) DebitN(at time.Time, cost int64) (numerus.Limiter, numerus.NextDebitable, bool) {
	if q.flaw == "stale" && at.Before(q.last) { // no better than L, but not L either
		return q, numerus.DebitableFrom(q.last), false
	}
	if q.flaw != "rewinds" && at.Before(q.last) {
		at = q.last
	}
	s, used := q.window(at)
	charge := cost
	if q.flaw == "split" {
		charge = cost * cost
	}
	if q.flaw == "hidden" {
		*q.shared++
		if *q.shared%3 == 0 {
			charge = q.n + 1
		}
	}
	if charge > q.n {
		return q, numerus.Never(), false
	}
	if used+charge > q.n && !(q.flaw == "hole" && at.Sub(s) > 2*q.w/5 && at.Sub(s) < 3*q.w/5) {
		return q.refuse(s, charge)
	}
	if q.flaw == "quiet" && at.Sub(s) >= q.w/2 {
		return q, numerus.DebitableFrom(s.Add(q.w)), false
	}
	return q.admit(at, s, used+charge), numerus.DebitableFrom(at), true
}

func (q quota) refuse(s time.Time, charge int64) (numerus.Limiter, numerus.NextDebitable, bool) {
	from := numerus.DebitableFrom(s.Add(q.w))
	switch q.flaw {
	case "never":
		from = numerus.Never()
	case "early":
		from = numerus.DebitableFrom(s.Add(q.w - 1))
	case "late":
		from = numerus.DebitableFrom(s.Add(q.w + 1))
	case "charges":
		q.used += charge
	}
	return q, from, false
}

func (q quota) admit(at, s time.Time, used int64) quota {
	if q.flaw == "mints" {
		used = max(used-2, 0)
	}
	if q.flaw == "mutating" {
		*q.shared = used
	}
	q.start, q.used, q.last = s, used, at
	return q
}

func (q quota) Status(at time.Time) numerus.Status {
	if at.Before(q.last) {
		at = q.last
	}
	s, used := q.window(at)
	st := numerus.Status{Limit: q.n, Remaining: q.n - used, Full: numerus.DebitableFrom(at)}
	if used > 0 {
		st.Full = numerus.DebitableFrom(s.Add(q.w))
	}
	switch q.flaw {
	case "status":
		st.Remaining = min(st.Remaining+1, q.n)
	case "full":
		if used > 0 {
			st.Full = numerus.DebitableFrom(s.Add(q.w - 1))
		}
	}
	return st
}

func (q quota) String() string { return fmt.Sprintf("quota %d/%v (flaw %q)", q.n, q.w, q.flaw) }

// TestQuotaObeys checks that the quota without a flaw obeys every law, so that each flaw below
// is what breaks one.
func TestQuotaObeys(t *testing.T) {
	Run(t, newQuota(""), WithSpan(time.Second), WithMaxCost(4))
}

// recorder is a rapid.TB that records a failure instead of failing the test.
type recorder struct {
	failed bool
	msgs   []string
}

func (r *recorder) Helper()                      {}
func (r *recorder) Name() string                 { return "mutant" }
func (r *recorder) Logf(string, ...any)          {}
func (r *recorder) Log(...any)                   {}
func (r *recorder) Skipf(string, ...any)         {}
func (r *recorder) Skip(...any)                  {}
func (r *recorder) SkipNow()                     {}
func (r *recorder) Errorf(f string, args ...any) { r.fail(fmt.Sprintf(f, args...)) }
func (r *recorder) Error(args ...any)            { r.fail(fmt.Sprint(args...)) }
func (r *recorder) Fatalf(f string, args ...any) { r.fail(fmt.Sprintf(f, args...)) }
func (r *recorder) Fatal(args ...any)            { r.fail(fmt.Sprint(args...)) }
func (r *recorder) FailNow()                     { r.failed = true }
func (r *recorder) Fail()                        { r.failed = true }
func (r *recorder) Failed() bool                 { return r.failed }
func (r *recorder) fail(msg string)              { r.failed, r.msgs = true, append(r.msgs, msg) }

// TestLawsCatchFlaws checks that each law, run as Run runs it, fails on a limiter with the flaw
// that breaks it, and so that the kit has the power to find such flaws. rapid writes the fail files of these expected failures into a temporary
// directory.
func TestLawsCatchFlaws(t *testing.T) {
	t.Chdir(t.TempDir())
	cases := []struct {
		law  Law
		flaw string
	}{
		{Determinism, "hidden"},
		{Immutability, "mutating"},
		{Refusal, "charges"},
		{Tightness, "early"},
		{Tightness, "late"},
		{Waiting, "hole"},
		{NeverFinal, "never"},
		{OutOfOrder, "rewinds"},
		{TimeRule, "rewinds"},
		{TimeRule, "stale"},
		{Growth, "quiet"},
		{Cost, "mints"},
		{Split, "split"},
		{StatusMatch, "status"},
		{FullStatus, "full"},
	}
	for _, c := range cases {
		e := newEnv(config{maxCost: 4, span: time.Second, start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
			newQuota(c.flaw))
		if !catches(check(c.law), e) {
			t.Errorf("law %s did not catch the flaw %q", c.law, c.flaw)
		}
	}
}

// catches reports whether law fails in one of three runs of rapid.Check: a flaw may need a rare
// timeline to show, and three runs make missing it unlikely (the tests would be flaky otherwise).
func catches(law func(*rapid.T, env), e env) bool {
	for range 3 {
		var r recorder
		rapid.Check(&r, func(t *rapid.T) { law(t, e) })
		if r.failed {
			return true
		}
	}
	return false
}

func check(l Law) func(*rapid.T, env) {
	for _, x := range laws {
		if x.law == l {
			return x.check
		}
	}
	panic("no law " + l)
}

// TestLaws checks the list of laws and that Skip leaves them out.
func TestLaws(t *testing.T) {
	if got := len(Laws()); got != 13 {
		t.Fatalf("Laws() has %d laws, want 13", got)
	}
	Run(t, newQuota("split"), Skip(Split, StatusMatch), WithMaxCost(4))
}

// TestLongSpan checks that the largest span runs: four spans still fit in a time.Duration.
func TestLongSpan(t *testing.T) {
	Run(t, newQuota(""), WithSpan(1<<62), WithMaxCost(4), WithStart(time.Date(1800, 1, 1, 0, 0, 0, 0, time.UTC)))
}
