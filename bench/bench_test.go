package bench

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/numerus-closus/numerus"
)

// t0 is the first instant of every timeline that does not read the clock.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// A result is what every debit of a benchmark must answer: allow or deny.
type result string

const (
	allow result = "allow"
	deny  result = "deny"
)

// results lists both outcomes, in the order the sub-benchmarks run.
var results = []result{allow, deny}

// name joins key=value pairs into a sub-benchmark name, as in "lib=xrate/result=allow".
func name(pairs ...any) string {
	s := ""
	for i := 0; i+1 < len(pairs); i += 2 {
		if s != "" {
			s += "/"
		}
		s += fmt.Sprintf("%v=%v", pairs[i], pairs[i+1])
	}
	return s
}

// checkAllowed reports the share of admitted checks as allow/op and fails the benchmark when it is
// not the one want promises: every check admitted, or none. checks is how many decisions were
// made (b.N, or b.N times a batch size).
func checkAllowed(b *testing.B, want result, allowed, checks int) {
	b.Helper()
	if checks <= 0 {
		b.Fatalf("no check was made")
	}
	b.ReportMetric(float64(allowed)/float64(checks), "allow/op")
	if want == allow && allowed != checks || want == deny && allowed != 0 {
		b.Fatalf("result=%s, but %d of %d checks were admitted", want, allowed, checks)
	}
}

// must returns v, or panics with err: every configuration here is a literal, so an error is a bug
// in the benchmark.
func must[V any](v V, err error) V {
	if err != nil {
		panic(err)
	}
	return v
}

// drainNumerus debits l n times at the instant at and fails unless every debit is admitted.
func drainNumerus(b *testing.B, l numerus.Limiter, at time.Time, n int64) numerus.Limiter {
	b.Helper()
	for i := range n {
		next, _, ok := l.Debit(at)
		if !ok {
			b.Fatalf("%v refused debit %d of %d at %v while draining", l, i+1, n, at)
		}
		l = next
	}
	return l
}

// TestMain stops the redis-server that the Redis benchmarks may have started.
func TestMain(m *testing.M) {
	code := m.Run()
	stopRedis()
	os.Exit(code)
}
