package keyed

import (
	"strconv"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/typed"
)

// PerSecond returns the policy of at most n tokens in any second, all n available at once: the
// sliding log of n per second ("sliding n/s"), as the notation reads "n/s".
func PerSecond(n int64) typed.Spec { return perPeriod(n, time.Second) }

// PerMinute returns the policy of at most n tokens in any minute, all n available at once: the
// sliding log of n per minute ("sliding n/m").
func PerMinute(n int64) typed.Spec { return perPeriod(n, time.Minute) }

// PerHour returns the policy of at most n tokens in any hour, all n available at once: the sliding
// log of n per hour ("sliding n/h").
func PerHour(n int64) typed.Spec { return perPeriod(n, time.Hour) }

func perPeriod(n int64, period time.Duration) typed.Spec {
	return typed.Spec{Algo: typed.AlgoSliding, Count: n, Period: period}
}

// Rate returns the policy that sustains permits tokens per period and holds at most burst at
// once: a GCRA ("gcra 100/s burst 200"), which decides exactly as a token bucket of the same rate
// and capacity and keeps a smaller state. It admits burst tokens at once and up to
// burst + permits - 1 in a span of period: Rate(100, time.Second, 200) admits 200 after a quiet
// spell and up to 299 in a second, and 100 a second when busy. A burst of 0 is typed.Spec's
// default, 1: one token every period/permits, never more than permits in a span of period. For
// at most n in any span with all n available at once, use PerSecond, PerMinute or PerHour.
func Rate(permits int64, period time.Duration, burst int64) typed.Spec {
	return typed.Spec{Algo: typed.AlgoGCRA, Count: permits, Period: period, Burst: burst}
}

// MinPeriod is the shortest period, window or sub-window a keyed policy may have: stores keep
// time in whole microseconds or finer.
const MinPeriod = time.Microsecond

// compile validates sp for keyed use and compiles it: what typed.Spec.Validate checks, and every
// period, window and sub-window at least MinPeriod. It returns the policy and its capacity.
func compile(sp typed.Spec) (typed.Policy, int64, error) {
	if err := sp.Validate(); err != nil {
		return typed.Policy{}, 0, err
	}
	if err := checkPeriods(sp, ""); err != nil {
		return typed.Policy{}, 0, err
	}
	p, err := typed.Compile(sp)
	if err != nil {
		return typed.Policy{}, 0, err
	}
	return p, p.Status(p.Fresh(), time.Unix(0, 0)).Limit, nil
}

func checkPeriods(sp typed.Spec, path string) error {
	for i, c := range sp.Of {
		if err := checkPeriods(c, path+"of["+strconv.Itoa(i)+"]."); err != nil {
			return err
		}
	}
	if sp.Of == nil && sp.Algo != typed.AlgoFinite && sp.Period < MinPeriod {
		return &numerus.ParamError{Param: path + "period", Problem: "must be at least 1µs for a keyed store, got " + sp.Period.String()}
	}
	if sp.Algo == typed.AlgoBuckets && sp.In > 0 && sp.Period/time.Duration(sp.In) < MinPeriod {
		return &numerus.ParamError{Param: path + "in", Problem: "must leave sub-windows of at least 1µs for a keyed store, got " +
			(sp.Period / time.Duration(sp.In)).String()}
	}
	return nil
}
