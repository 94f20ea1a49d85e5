package keyed

import (
	"strconv"
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/typed"
)

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
