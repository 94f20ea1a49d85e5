package main

import (
	"time"

	"github.com/numerus-closus/numerus"
	"github.com/numerus-closus/numerus/typed"
)

// policyText is the sending policy, the one place it is written, in the policy notation: at most 5
// messages a second, paced one every 200ms (a GCRA of burst 1), at most 100 in any minute and
// 1,000 in any day (sliding logs).
const policyText = "gcra 5/s burst 1 & sliding 100/min & sliding 1000/d"

// policySpec returns the spec of policyText.
func policySpec() typed.Spec { return typed.MustCompile(policyText).Spec() }

// pacing returns the policy the demo paces by: sp with margin m (typed.Spec.WithMargin), which
// keeps sp's limits at a server whose delays differ by at most m, or sp itself when m is 0. It
// returns sp's validation error, or WithMargin's for a negative m or a policy that takes no margin
// (an Or).
func pacing(sp typed.Spec, m time.Duration) (typed.Spec, error) {
	if m == 0 {
		return sp, sp.Validate()
	}
	return sp.WithMargin(m)
}

// limiter returns a fresh limiter for sp, a valid spec (as pacing returns).
func limiter(sp typed.Spec) numerus.Limiter {
	p := compile(sp)
	return p.Limiter(p.Fresh())
}

// compile returns the policy of sp, a valid spec.
func compile(sp typed.Spec) typed.Policy {
	p, err := typed.Compile(sp)
	if err != nil {
		panic(err) // programmer error: the demo's specs are validated (pacing)
	}
	return p
}
